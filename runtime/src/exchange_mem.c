/* The bind-time exchange of a whole communicator in one process: the same
 * first pass bind runs (collrt_exchange_puts) for every rank, each record
 * delivered to its peer's table, every table sorted as TABLE reads it. The
 * simulator (and so the verifier) and the link-load analysis use it; bind
 * moves the same records over MPI. */
#include <stdlib.h>

#include "collc/plan.h"
#include "diag.h"

collrt_status_t collrt_exchange_in_memory(const collrt_plan_t *plan, int P,
                                          collrt_input_fn input, void *ctx,
                                          collrt_table_entry_t **entries,
                                          collrt_tables_t *tables, collrt_diag_t *diag) {
  collrt_status_t st = COLLRT_OK;
  collrt_put_t **puts = calloc((size_t)P, sizeof *puts);
  size_t *nputs = calloc((size_t)P, sizeof *nputs);
  size_t *filled = calloc((size_t)P, sizeof *filled);
  for (int p = 0; p < P; ++p) {
    entries[p] = NULL;
    tables[p].entries = NULL;
    tables[p].count = 0;
  }
  if (!puts || !nputs || !filled) {
    collrt_diag_set(diag, "cannot allocate the bind-time exchange of %d ranks", P);
    st = COLLRT_ERR_NOMEM;
    goto out;
  }
  for (int p = 0; p < P && !st; ++p)
    st = collrt_exchange_puts(plan, input(ctx, p), &puts[p], &nputs[p], diag);
  for (int p = 0; p < P && !st; ++p)
    for (size_t k = 0; k < nputs[p]; ++k)
      ++tables[puts[p][k].peer].count;
  for (int p = 0; p < P && !st; ++p)
    if (!(entries[p] = malloc((tables[p].count + 1) * sizeof **entries))) {
      collrt_diag_set(diag, "cannot allocate %zu exchange entries for rank %d", tables[p].count, p);
      st = COLLRT_ERR_NOMEM;
    }
  for (int p = 0; p < P && !st; ++p)
    for (size_t k = 0; k < nputs[p]; ++k) {
      int to = puts[p][k].peer;
      collrt_table_entry_t *e = &entries[to][filled[to]++];
      e->from = p;
      e->table = puts[p][k].table;
      e->index = puts[p][k].index;
      e->value = puts[p][k].value;
    }
  for (int p = 0; p < P && !st; ++p) {
    st = collrt_tables_sort(entries[p], tables[p].count, p, diag);
    tables[p].entries = entries[p];
  }
out:
  if (st)
    for (int p = 0; p < P; ++p) {
      free(entries[p]);
      entries[p] = NULL;
      tables[p].entries = NULL;
      tables[p].count = 0;
    }
  if (puts)
    for (int p = 0; p < P; ++p)
      free(puts[p]);
  free(puts);
  free(nputs);
  free(filled);
  return st;
}
