/* The plan cache: bound collectives kept on their communicator as an MPI
 * attribute, so that they are freed with it (MPI_Comm_free calls the delete
 * callback) and are not inherited by its duplicates (null copy callback:
 * bind's own per-FIFO duplicates would otherwise share the entries). */
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

void pmpi_entry_release(pmpi_entry_t *e) {
  if (!e || --e->refs > 0)
    return;
  collrt_coll_free(e->coll);
  free(e->ints);
  free(e);
}

static void cache_free(pmpi_cache_t *c) {
  for (int k = 0; k < PMPI_CLASSES; ++k)
    for (int i = 0; i < c->nentries[k]; ++i)
      pmpi_entry_release(c->entries[k][i]);
  for (int op = 0; op < 8; ++op)
    pmpi_entry_release(c->flex[op]);
  if (c->prev)
    c->prev->next = c->next;
  else
    g_pmpi.caches = c->next;
  if (c->next)
    c->next->prev = c->prev;
  free(c);
}

static int delete_cache(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  cache_free(value);
  return MPI_SUCCESS;
}

pmpi_cache_t *pmpi_cache_get(MPI_Comm comm) {
  if (g_pmpi.keyval == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cache, &g_pmpi.keyval, NULL) !=
          MPI_SUCCESS)
    return NULL;
  void *value = NULL;
  int flag = 0;
  PMPI_Comm_get_attr(comm, g_pmpi.keyval, &value, &flag);
  if (flag)
    return value;
  pmpi_cache_t *c = calloc(1, sizeof *c);
  /* Where comm stands to MPI_COMM_WORLD: only local group arithmetic, the
   * same answer on every rank */
  MPI_Group group, world;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int cmp = MPI_UNEQUAL, n = 0, of_world = 1;
  PMPI_Group_compare(group, world, &cmp);
  PMPI_Group_size(group, &n);
  enum { CHUNK = 256 };
  int ranks[CHUNK], in_world[CHUNK];
  for (int at = 0; at < n && of_world; at += CHUNK) {
    int k = n - at < CHUNK ? n - at : CHUNK;
    for (int i = 0; i < k; ++i)
      ranks[i] = at + i;
    PMPI_Group_translate_ranks(group, k, ranks, world, in_world);
    for (int i = 0; i < k; ++i)
      of_world &= in_world[i] != MPI_UNDEFINED;
  }
  /* only a communicator with processes of another MPI_COMM_WORLD (dynamic
   * processes) agrees for itself, and every rank of one sees that alike */
  int need_agreement = !of_world || g_pmpi.world_plans_agree < 0;
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  /* The first intercepted collective on comm: every rank is in it. Agree
   * here, once, that every rank loaded the same plans (unless MPI_Init
   * agreed it for all of MPI_COMM_WORLD); later calls decide alike on
   * every rank without asking. */
  int agree = g_pmpi.world_plans_agree == 1;
  if (need_agreement) {
    int64_t fp = g_pmpi.plans.fingerprint, mine[2] = {fp, -fp}, all[2] = {0, 0};
    int rc = PMPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, comm);
    agree = rc == MPI_SUCCESS && all[0] == -all[1];
  }
  if (!c)
    return NULL;
  c->plans_agree = agree;
  c->machine = cmp == MPI_IDENT;
  c->comm = comm;
  PMPI_Comm_size(comm, &c->size);
  PMPI_Comm_rank(comm, &c->rank);
  if (PMPI_Comm_set_attr(comm, g_pmpi.keyval, c) != MPI_SUCCESS) {
    free(c);
    return NULL;
  }
  c->next = g_pmpi.caches;
  if (c->next)
    c->next->prev = c;
  g_pmpi.caches = c;
  return c;
}

static size_t key_ints(const pmpi_key_t *k) {
  size_t n = 0;
  for (int p = 0; p < k->nparts; ++p)
    n += k->part_len[p];
  return n;
}

static int key_equals(const pmpi_entry_t *e, const pmpi_key_t *k) {
  if (!e)
    return 0;
  if (e->op != k->op || e->tsize != k->tsize || e->nints != key_ints(k))
    return 0;
  const int *at = e->ints;
  for (int p = 0; p < k->nparts; ++p) {
    if (memcmp(at, k->part[p], k->part_len[p] * sizeof *at))
      return 0;
    at += k->part_len[p];
  }
  return 1;
}

pmpi_entry_t *pmpi_cache_find(pmpi_cache_t *c, int klass, const pmpi_key_t *key) {
  for (int i = 0; i < c->nentries[klass]; ++i)
    if (key_equals(c->entries[klass][i], key)) {
      c->entries[klass][i]->last_use = ++c->clock;
      return c->entries[klass][i];
    }
  return NULL;
}

pmpi_entry_t *pmpi_cache_put(pmpi_cache_t *c, int klass, const pmpi_key_t *key,
                             collrt_coll_t *coll, int64_t gen) {
  size_t n = key_ints(key);
  pmpi_entry_t *e = calloc(1, sizeof *e);
  int *ints = malloc((n + 1) * sizeof *ints);
  if (!e || !ints) {
    free(e);
    free(ints);
    collrt_coll_free(coll);
    return NULL;
  }
  int *at = ints;
  for (int p = 0; p < key->nparts; ++p) {
    memcpy(at, key->part[p], key->part_len[p] * sizeof *at);
    at += key->part_len[p];
  }
  e->op = key->op;
  e->tsize = key->tsize;
  e->ints = ints;
  e->nints = n;
  e->coll = coll;
  e->gen = gen;
  e->last_use = ++c->clock;
  e->refs = 1;
  /* the same key's old entry, else a free slot, else the least recently
   * used: the same slot on every rank for the uniform class */
  pmpi_entry_t **slots = c->entries[klass];
  int slot = -1;
  for (int i = 0; i < c->nentries[klass] && slot < 0; ++i)
    if (key_equals(slots[i], key))
      slot = i;
  if (slot < 0 && c->nentries[klass] < PMPI_CACHE_ENTRIES)
    slot = c->nentries[klass]++;
  if (slot < 0) {
    slot = 0;
    for (int i = 1; i < c->nentries[klass]; ++i)
      if (slots[i]->last_use < slots[slot]->last_use)
        slot = i;
  }
  /* MPI_Comm_free is collective in the standard but local in practice
   * (MPICH, Open MPI): ranks evict their entries at different calls. A run
   * still using the old entry keeps it alive. */
  if (slot < c->nentries[klass] && slots[slot] && slots[slot] != e)
    pmpi_entry_release(slots[slot]);
  slots[slot] = e;
  return e;
}

pmpi_entry_t *pmpi_cache_flex(pmpi_cache_t *c, int op, int idx, collrt_coll_t *coll,
                              int64_t gen) {
  pmpi_entry_t *e = calloc(1, sizeof *e);
  if (!e) {
    collrt_coll_free(coll);
    return NULL;
  }
  e->op = op;
  e->coll = coll;
  e->gen = gen;
  e->refs = 1;
  /* a run still using the old one keeps it alive */
  pmpi_entry_release(c->flex[op]);
  c->flex[op] = e;
  c->flex_plan[op] = idx;
  return e;
}

void pmpi_cache_free_all(void) {
  while (g_pmpi.caches) {
    pmpi_cache_t *c = g_pmpi.caches;
    if (PMPI_Comm_delete_attr(c->comm, g_pmpi.keyval) != MPI_SUCCESS && g_pmpi.caches == c)
      cache_free(c);
  }
}
