/* The environment variables the runtime and libcollc_pmpi read: one table
 * (env.c) of every name, its kind, default and meaning, and readers that
 * turn a malformed value into an error naming the variable, the value and
 * what is accepted, instead of silently taking a default.
 *
 * docs/runtime-environment.md lists the same table; a test (env-doc)
 * checks that the two name the same variables. */
#ifndef COLLRT_ENV_H
#define COLLRT_ENV_H

#include <stddef.h>

#include "collc/status.h"

typedef enum collrt_env_kind {
  COLLRT_ENV_BOOL,    /* 0/1 (also no/yes, false/true, off/on) */
  COLLRT_ENV_COUNT,   /* a non-negative integer (decimal), at most `max` */
  COLLRT_ENV_POSITIVE,/* a positive integer (decimal), at most `max` */
  COLLRT_ENV_ENUM,    /* one of `accepted` ("a|b|c"); index = position */
  COLLRT_ENV_PATH,    /* any non-empty text (a file, directory or list) */
  COLLRT_ENV_SECONDS, /* a positive decimal number */
  COLLRT_ENV_FLOAT,   /* a non-negative decimal number */
  COLLRT_ENV_FAULT,   /* test-only fault injection: "map:R", R a count */
} collrt_env_kind_t;

typedef struct collrt_env_var {
  const char *name;
  collrt_env_kind_t kind;
  const char *accepted; /* ENUM: "a|b|c"; others: NULL */
  long long max;        /* COUNT, POSITIVE: the largest accepted value */
  const char *def;      /* the default, as the docs say it */
  const char *reader;   /* where it is read: runtime, SMPI runtime, PMPI, collc-run */
  const char *meaning;  /* one line */
} collrt_env_var_t;

/* The table, in the order the docs list it. */
extern const collrt_env_var_t collrt_env_vars[];
extern const size_t collrt_env_nvars;

/* The table's row for `name`, or NULL. */
const collrt_env_var_t *collrt_env_find(const char *name);

/* Readers. Each leaves *out untouched and returns COLLRT_OK when the
 * variable is unset or empty (the caller's default stands: some depend on
 * the build or the job), and returns COLLRT_ERR_ARG with a diagnostic when
 * it is set to a value its kind does not accept, or when `name` is not in
 * the table or not of the reader's kind (a programming error). */
collrt_status_t collrt_env_bool(const char *name, int *out, collrt_diag_t *diag);
collrt_status_t collrt_env_int(const char *name, long long *out, collrt_diag_t *diag);
collrt_status_t collrt_env_double(const char *name, double *out, collrt_diag_t *diag);
/* ENUM: the index of the value in `accepted`. */
collrt_status_t collrt_env_enum(const char *name, int *out, collrt_diag_t *diag);
/* PATH: the text itself (the environment's string). */
collrt_status_t collrt_env_path(const char *name, const char **out, collrt_diag_t *diag);
/* FAULT "map:R": R. */
collrt_status_t collrt_env_fault(const char *name, long long *out, collrt_diag_t *diag);

/* Validates every variable of the table that is set (non-empty); the first
 * malformed one is the error. */
collrt_status_t collrt_env_check_all(collrt_diag_t *diag);

#endif
