/* The environment variables, one table (see env.h). A value the table does
 * not accept is an error that says what is accepted: a typo such as
 * COLLRT_SHM=of must not run the job with settings nobody asked for. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diag.h"

/* clang-format off */
const collrt_env_var_t collrt_env_vars[] = {
  /* the runtime: bind and expansion (src/) */
  {"COLLRT_WAIT", COLLRT_ENV_ENUM, "auto|spin|yield|block", 0, "auto", "runtime",
   "how a rank waits for its peers: auto decides from the ranks per core (SMPI: block)"},
  {"COLLRT_VERBOSE", COLLRT_ENV_BOOL, NULL, 0, "0", "runtime, collc-run",
   "1: rank 0 says at bind how its messages move (shared memory or MPI, and why)"},
  {"COLLRT_TIMEOUT", COLLRT_ENV_SECONDS, NULL, 0, "unset (wait forever)", "runtime",
   "seconds a wait may go without progress before it prints what it waits on and fails (COLLRT_ERR_TIMEOUT)"},
  {"COLLRT_STEP_BUDGET", COLLRT_ENV_POSITIVE, NULL, LLONG_MAX, "from the ranks and bytes", "runtime",
   "the most steps expansion may produce for one rank (a guard against runaway plans)"},
  {"COLLRT_NODE_SIZE", COLLRT_ENV_POSITIVE, NULL, 1 << 20, "unset (MPI's nodes)", "runtime",
   "splits each node's ranks, in rank order, into groups of N, so one machine stands for several nodes (tests)"},
  {"COLLRT_SHM", COLLRT_ENV_BOOL, NULL, 0, "1", "runtime",
   "0: on-node messages go through MPI point-to-point instead of shared memory"},
  {"COLLRT_SHM_MIN", COLLRT_ENV_COUNT, NULL, LLONG_MAX, "16384 (SMPI: 0)", "runtime",
   "bytes: on-node messages at least this long go in one copy through shared memory"},
  {"COLLRT_SHM_EAGER", COLLRT_ENV_BOOL, NULL, 0, "1 (SMPI: 0)", "runtime",
   "0: on-node messages below COLLRT_SHM_MIN go over MPI instead of through the sender's window"},
  {"COLLRT_SHM_BOUNCE", COLLRT_ENV_ENUM, "auto|always", 0, "auto", "runtime",
   "always: every cross-process read goes through the bounce buffer (tests)"},
  {"COLLRT_SHM_CHUNK", COLLRT_ENV_COUNT, NULL, 1ll << 40, "0 (the runtime's chunk)", "runtime",
   "bytes: the chunks both ends of an on-node message copy (tests)"},
  {"COLLRT_SHM_COPY", COLLRT_ENV_ENUM, "auto|push", 0, "auto", "runtime",
   "push: a receiver leaves every chunk to its sender (tests; cross-memory attach only)"},
  {"COLLRT_SHM_FAULT", COLLRT_ENV_FAULT, NULL, 0, "unset", "runtime",
   "map:R: node rank R fails to allocate its shared-memory map at bind (tests)"},
  /* the SimGrid SMPI build of the runtime */
  {"COLLRT_SMPI_SHARED_SCRATCH", COLLRT_ENV_BOOL, NULL, 0, "0", "SMPI runtime",
   "1: every rank's scratch folds onto one shared allocation (collc-run --shared-bufs sets it)"},
  {"COLLRT_SMPI_OR_US", COLLRT_ENV_FLOAT, NULL, 0, "unset (MPI_Isend)", "SMPI runtime",
   "microseconds charged per eager message, sent as MPI_Issend (a model of o_r)"},
  {"COLLRT_COPY_CHUNK", COLLRT_ENV_POSITIVE, NULL, LLONG_MAX, "from the node's copy speed", "SMPI runtime",
   "bytes a rank copies before it answers messages again (a measurement knob)"},
  /* libcollc_pmpi (pmpi/) */
  {"COLLC_PLANS", COLLRT_ENV_PATH, NULL, 0, "unset (nothing served)", "PMPI",
   "a directory of *.plan and *.collplan files, or a colon-separated list of plan files"},
  {"COLLC_VERBOSE", COLLRT_ENV_COUNT, NULL, 2, "0", "PMPI",
   "1: rank 0 explains each choice and prints a summary at MPI_Finalize; 2: every rank does"},
  {"COLLC_STRICT", COLLRT_ENV_BOOL, NULL, 0, "0", "PMPI",
   "1: a call that would fall back to MPI aborts with the reason instead"},
  {"COLLC_TIMEOUT", COLLRT_ENV_SECONDS, NULL, 0, "unset (wait forever)", "PMPI",
   "COLLRT_TIMEOUT for the plans libcollc_pmpi serves"},
};
/* clang-format on */
const size_t collrt_env_nvars = sizeof collrt_env_vars / sizeof collrt_env_vars[0];

const collrt_env_var_t *collrt_env_find(const char *name) {
  for (size_t k = 0; name && k < collrt_env_nvars; ++k)
    if (!strcmp(collrt_env_vars[k].name, name))
      return &collrt_env_vars[k];
  return NULL;
}

/* "0 or 1", "a positive integer up to 1048576", "auto, spin, yield or block" */
static void describe_accepted(const collrt_env_var_t *v, char *out, size_t len) {
  switch (v->kind) {
  case COLLRT_ENV_BOOL: snprintf(out, len, "0 or 1 (or no/yes, false/true, off/on)"); return;
  case COLLRT_ENV_COUNT:
  case COLLRT_ENV_POSITIVE: {
    const char *what = v->kind == COLLRT_ENV_COUNT ? "a non-negative integer" : "a positive integer";
    if (v->max < LLONG_MAX)
      snprintf(out, len, "%s up to %lld", what, v->max);
    else
      snprintf(out, len, "%s", what);
    return;
  }
  case COLLRT_ENV_ENUM: {
    size_t at = 0;
    out[0] = 0;
    for (const char *p = v->accepted; *p && at + 1 < len;) {
      size_t n = strcspn(p, "|");
      int last = !p[n], first = p == v->accepted;
      int w = snprintf(out + at, len - at, "%s%.*s", first ? "" : last ? " or " : ", ", (int)n, p);
      if (w < 0)
        return;
      at += (size_t)w;
      p += n + !last;
    }
    return;
  }
  case COLLRT_ENV_PATH: snprintf(out, len, "a path"); return;
  case COLLRT_ENV_SECONDS: snprintf(out, len, "a positive number of seconds (e.g. 30 or 0.5)"); return;
  case COLLRT_ENV_FLOAT: snprintf(out, len, "a non-negative number (e.g. 1.5)"); return;
  case COLLRT_ENV_FAULT: snprintf(out, len, "map:R, R a node rank"); return;
  }
  snprintf(out, len, "?");
}

static collrt_status_t reject(const collrt_env_var_t *v, const char *value, collrt_diag_t *diag) {
  char accepted[160];
  describe_accepted(v, accepted, sizeof accepted);
  collrt_diag_set(diag, "%s='%s' is not %s (%s: %s; default %s)", v->name, value, accepted,
                  v->name, v->meaning, v->def);
  return COLLRT_ERR_ARG;
}

/* Decimal digits only (no sign, no spaces, no hex): the plainest reading of
 * a count, so that "-1" and "1e6" are refused rather than wrapped or cut. */
static int parse_count(const char *s, long long *out) {
  if (!isdigit((unsigned char)s[0]))
    return -1;
  errno = 0;
  char *end = NULL;
  long long x = strtoll(s, &end, 10);
  if (errno || *end)
    return -1;
  *out = x;
  return 0;
}

static int parse_number(const char *s, double *out) {
  if (!isdigit((unsigned char)s[0]) && s[0] != '.')
    return -1;
  errno = 0;
  char *end = NULL;
  double x = strtod(s, &end);
  if (errno || *end || !isfinite(x))
    return -1;
  *out = x;
  return 0;
}

static int parse_bool(const char *s, int *out) {
  static const char *const no[] = {"0", "no", "false", "off"}, *const yes[] = {"1", "yes", "true", "on"};
  for (int k = 0; k < 4; ++k) {
    if (!strcasecmp(s, no[k])) {
      *out = 0;
      return 0;
    }
    if (!strcasecmp(s, yes[k])) {
      *out = 1;
      return 0;
    }
  }
  return -1;
}

static int parse_enum(const char *accepted, const char *s, int *out) {
  size_t len = strlen(s);
  int index = 0;
  for (const char *p = accepted; *p; ++index) {
    size_t n = strcspn(p, "|");
    if (n == len && !strncmp(p, s, n)) {
      *out = index;
      return 0;
    }
    p += n + (p[n] != 0);
  }
  return -1;
}

/* The row and the set value of `name` (NULL value: unset or empty). */
static collrt_status_t lookup(const char *name, collrt_env_kind_t kind,
                              const collrt_env_var_t **row, const char **value,
                              collrt_diag_t *diag) {
  *row = collrt_env_find(name);
  if (!*row || ((*row)->kind != kind &&
                !(kind == COLLRT_ENV_COUNT && (*row)->kind == COLLRT_ENV_POSITIVE) &&
                !(kind == COLLRT_ENV_FLOAT && (*row)->kind == COLLRT_ENV_SECONDS))) {
    collrt_diag_set(diag, "%s is not a collrt environment variable of this kind (runtime/src/env.c)",
                    name ? name : "(null)");
    return COLLRT_ERR_ARG;
  }
  const char *v = getenv(name);
  *value = v && *v ? v : NULL;
  return COLLRT_OK;
}

/* Checks `value` against `v`'s kind; the parsed value in the outputs. */
static collrt_status_t validate(const collrt_env_var_t *v, const char *value, long long *i,
                                double *d, int *b, collrt_diag_t *diag) {
  int bad = 0;
  switch (v->kind) {
  case COLLRT_ENV_BOOL: bad = parse_bool(value, b); break;
  case COLLRT_ENV_COUNT:
    bad = parse_count(value, i) || *i > v->max;
    break;
  case COLLRT_ENV_POSITIVE:
    bad = parse_count(value, i) || *i < 1 || *i > v->max;
    break;
  case COLLRT_ENV_ENUM: bad = parse_enum(v->accepted, value, b); break;
  case COLLRT_ENV_PATH: break; /* any non-empty text */
  case COLLRT_ENV_SECONDS: bad = parse_number(value, d) || !(*d > 0); break;
  case COLLRT_ENV_FLOAT: bad = parse_number(value, d) || *d < 0; break;
  case COLLRT_ENV_FAULT:
    bad = strncmp(value, "map:", 4) || parse_count(value + 4, i) || *i > INT_MAX;
    break;
  }
  return bad ? reject(v, value, diag) : COLLRT_OK;
}

collrt_status_t collrt_env_bool(const char *name, int *out, collrt_diag_t *diag) {
  const collrt_env_var_t *v;
  const char *value;
  long long i;
  double d;
  int b;
  collrt_status_t st = lookup(name, COLLRT_ENV_BOOL, &v, &value, diag);
  if (st || !value || (st = validate(v, value, &i, &d, &b, diag)))
    return st;
  *out = b;
  return COLLRT_OK;
}

collrt_status_t collrt_env_int(const char *name, long long *out, collrt_diag_t *diag) {
  const collrt_env_var_t *v;
  const char *value;
  long long i;
  double d;
  int b;
  collrt_status_t st = lookup(name, COLLRT_ENV_COUNT, &v, &value, diag);
  if (st || !value || (st = validate(v, value, &i, &d, &b, diag)))
    return st;
  *out = i;
  return COLLRT_OK;
}

collrt_status_t collrt_env_double(const char *name, double *out, collrt_diag_t *diag) {
  const collrt_env_var_t *v;
  const char *value;
  long long i;
  double d;
  int b;
  collrt_status_t st = lookup(name, COLLRT_ENV_FLOAT, &v, &value, diag);
  if (st || !value || (st = validate(v, value, &i, &d, &b, diag)))
    return st;
  *out = d;
  return COLLRT_OK;
}

collrt_status_t collrt_env_enum(const char *name, int *out, collrt_diag_t *diag) {
  const collrt_env_var_t *v;
  const char *value;
  long long i;
  double d;
  int b;
  collrt_status_t st = lookup(name, COLLRT_ENV_ENUM, &v, &value, diag);
  if (st || !value || (st = validate(v, value, &i, &d, &b, diag)))
    return st;
  *out = b;
  return COLLRT_OK;
}

collrt_status_t collrt_env_path(const char *name, const char **out, collrt_diag_t *diag) {
  const collrt_env_var_t *v;
  const char *value;
  collrt_status_t st = lookup(name, COLLRT_ENV_PATH, &v, &value, diag);
  if (st || !value)
    return st;
  *out = value;
  return COLLRT_OK;
}

collrt_status_t collrt_env_fault(const char *name, long long *out, collrt_diag_t *diag) {
  const collrt_env_var_t *v;
  const char *value;
  long long i;
  double d;
  int b;
  collrt_status_t st = lookup(name, COLLRT_ENV_FAULT, &v, &value, diag);
  if (st || !value || (st = validate(v, value, &i, &d, &b, diag)))
    return st;
  *out = i;
  return COLLRT_OK;
}

collrt_status_t collrt_env_check_all(collrt_diag_t *diag) {
  for (size_t k = 0; k < collrt_env_nvars; ++k) {
    const collrt_env_var_t *v = &collrt_env_vars[k];
    const char *value = getenv(v->name);
    long long i;
    double d;
    int b;
    collrt_status_t st;
    if (value && *value && (st = validate(v, value, &i, &d, &b, diag)))
      return st;
  }
  return COLLRT_OK;
}
