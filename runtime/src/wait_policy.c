/* The idle policy's decision (see collc/wait_policy.h). */
#include <string.h>

#include "collc/wait_policy.h"
#include "diag.h"

static const char *const names[] = {"auto", "spin", "yield", "block"};

const char *collrt_wait_policy_name(collrt_wait_policy_t policy) {
  return policy >= COLLRT_WAIT_AUTO && policy <= COLLRT_WAIT_BLOCK ? names[policy] : "?";
}

collrt_status_t collrt_choose_wait_policy(const char *setting, int node_ranks,
                                          int cpus, int smpi,
                                          collrt_wait_policy_t *out,
                                          collrt_diag_t *diag) {
  collrt_wait_policy_t p = COLLRT_WAIT_AUTO;
  if (setting && *setting) {
    int k = COLLRT_WAIT_AUTO;
    while (k <= COLLRT_WAIT_BLOCK && strcmp(setting, names[k]))
      ++k;
    if (k > COLLRT_WAIT_BLOCK) {
      collrt_diag_set(diag, "COLLRT_WAIT='%s' is not an idle policy; use auto, spin, yield or block",
                      setting);
      return COLLRT_ERR_ARG;
    }
    p = (collrt_wait_policy_t)k;
  }
  if (p == COLLRT_WAIT_AUTO) {
    if (smpi)
      p = COLLRT_WAIT_BLOCK; /* polls cost simulated time; blocking does not */
    else if (cpus > 0 && node_ranks > cpus)
      p = COLLRT_WAIT_YIELD; /* a spinning rank would hold the core its peer needs */
    else
      p = COLLRT_WAIT_SPIN;
  }
  *out = p;
  return COLLRT_OK;
}
