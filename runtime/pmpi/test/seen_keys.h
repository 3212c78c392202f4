/* The plans a test program has seen bound on one communicator, kept the way
 * libcollc_pmpi's cache keys them, so the program can predict which calls
 * the library will bind and which it will find cached (its summary line is
 * compared with the program's own tally). Programs keep below the cache's
 * 16 entries a communicator, so nothing is evicted. */
#ifndef COLLC_PMPI_TEST_SEEN_KEYS_H
#define COLLC_PMPI_TEST_SEEN_KEYS_H

#include <stdio.h>
#include <string.h>

enum { SEEN_MAX_KEYS = 64 };

typedef struct seen {
  char key[SEEN_MAX_KEYS][96];
  int n;
} seen_t;

/* 1 if `key` was seen before on this communicator (a cache hit), else 0,
 * and it is remembered (a bind). */
static inline int seen_before(seen_t *seen, const char *key) {
  for (int i = 0; i < seen->n; ++i)
    if (!strcmp(seen->key[i], key))
      return 1;
  if (seen->n < SEEN_MAX_KEYS)
    snprintf(seen->key[seen->n++], sizeof seen->key[0], "%s", key);
  return 0;
}

#endif
