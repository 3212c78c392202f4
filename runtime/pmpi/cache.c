/* The plan cache: bound collectives kept on their communicator as an MPI
 * attribute, so that they are freed with it (MPI_Comm_free calls the delete
 * callback) and are not inherited by its duplicates (null copy callback:
 * bind's own per-FIFO duplicates would otherwise share the entries). */
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

static void entry_free(pmpi_entry_t *e) {
  collrt_coll_free(e->coll);
  free(e->ints);
  memset(e, 0, sizeof *e);
}

static void cache_free(pmpi_cache_t *c) {
  for (int i = 0; i < c->nentries; ++i)
    entry_free(&c->entries[i]);
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
  if (!c)
    return NULL;
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

pmpi_entry_t *pmpi_cache_find(pmpi_cache_t *c, const pmpi_key_t *key) {
  for (int i = 0; i < c->nentries; ++i)
    if (key_equals(&c->entries[i], key)) {
      c->entries[i].last_use = ++c->clock;
      return &c->entries[i];
    }
  return NULL;
}

int pmpi_cache_put(pmpi_cache_t *c, const pmpi_key_t *key, collrt_coll_t *coll, int64_t gen) {
  pmpi_entry_t *slot = pmpi_cache_find(c, key);
  if (!slot && c->nentries < PMPI_CACHE_ENTRIES)
    slot = &c->entries[c->nentries++];
  if (!slot) {
    slot = &c->entries[0];
    for (int i = 1; i < c->nentries; ++i)
      if (c->entries[i].last_use < slot->last_use)
        slot = &c->entries[i];
  }
  /* MPI_Comm_free is collective in the standard but local in practice
   * (MPICH, Open MPI): ranks evict their entries at different calls. */
  entry_free(slot);
  size_t n = key_ints(key);
  int *ints = malloc((n + 1) * sizeof *ints);
  if (!ints) {
    collrt_coll_free(coll);
    /* keep the array dense: move the last entry into the hole */
    *slot = c->entries[--c->nentries];
    memset(&c->entries[c->nentries], 0, sizeof c->entries[0]);
    return 0;
  }
  int *at = ints;
  for (int p = 0; p < key->nparts; ++p) {
    memcpy(at, key->part[p], key->part_len[p] * sizeof *at);
    at += key->part_len[p];
  }
  slot->op = key->op;
  slot->tsize = key->tsize;
  slot->ints = ints;
  slot->nints = n;
  slot->coll = coll;
  slot->gen = gen;
  slot->last_use = ++c->clock;
  return 1;
}

void pmpi_cache_free_all(void) {
  while (g_pmpi.caches) {
    pmpi_cache_t *c = g_pmpi.caches;
    if (PMPI_Comm_delete_attr(c->comm, g_pmpi.keyval) != MPI_SUCCESS && g_pmpi.caches == c)
      cache_free(c);
  }
}
