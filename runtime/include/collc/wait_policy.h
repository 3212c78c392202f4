/* What collrt_wait does while no transfer of this rank can move: the idle
 * policy. It is chosen once per bound collective (collrt_bind_*) and can be
 * read back with collrt_coll_wait_policy.
 *
 *   spin   poll MPI again at once. Right when every rank has a core: the
 *          next message of a chain is handled the moment it lands, as MPI's
 *          own (busy-polling) collectives do; like MPICH's own wait, it
 *          yields once every 1024 idle polls, so a daemon or another job
 *          sharing the core is not starved.
 *   yield  poll, then sched_yield(). Right on an oversubscribed node: the core
 *          goes to a peer that must make progress first, and comes back as
 *          soon as the scheduler has nothing better. Never sleeps, so a rank
 *          never sleeps through the arrival it waits for.
 *   block  MPI_Waitsome on the transfers in flight (after every copy and
 *          every issuable transfer was started). The MPI library decides how
 *          to wait; under SimGrid SMPI this is the only policy that does not
 *          charge simulated time per poll (smpi/test).
 *
 * COLLRT_WAIT=auto|spin|yield|block in the environment selects it; `auto`
 * (also the default) is: block under SMPI (the build's one documented seam,
 * COLLRT_SMPI); yield when the ranks of this node outnumber the CPUs this
 * process may run on; spin otherwise. */
#ifndef COLLC_WAIT_POLICY_H
#define COLLC_WAIT_POLICY_H

#include "collc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum collrt_wait_policy {
  COLLRT_WAIT_AUTO = 0,
  COLLRT_WAIT_SPIN = 1,
  COLLRT_WAIT_YIELD = 2,
  COLLRT_WAIT_BLOCK = 3,
} collrt_wait_policy_t;

const char *collrt_wait_policy_name(collrt_wait_policy_t policy);

/* The decision of `auto`, without MPI so that it can be tested: `setting` is
 * the COLLRT_WAIT value (NULL or "" = auto), `node_ranks` the ranks of the
 * communicator on this node, `cpus` the CPUs this process may use, `smpi`
 * whether the runtime runs under SimGrid SMPI. An unknown setting is
 * COLLRT_ERR_ARG with diag naming it and the accepted values. */
collrt_status_t collrt_choose_wait_policy(const char *setting, int node_ranks,
                                          int cpus, int smpi,
                                          collrt_wait_policy_t *out_policy,
                                          collrt_diag_t *diag);

#ifdef __cplusplus
}
#endif

#endif /* COLLC_WAIT_POLICY_H */
