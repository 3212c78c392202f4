/* Status strings and the diagnostic helper. */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

/* One row per status code: its name and what it means. */
#define COLLRT_STATUSES(X)                                                     \
  X(COLLRT_OK, "success")                                                      \
  X(COLLRT_ERR_ARG, "invalid argument")                                        \
  X(COLLRT_ERR_NOMEM, "out of memory")                                         \
  X(COLLRT_ERR_IO, "I/O error")                                                \
  X(COLLRT_ERR_PLAN_FORMAT, "malformed plan")                                  \
  X(COLLRT_ERR_PLAN_CHECKSUM, "plan checksum mismatch")                        \
  X(COLLRT_ERR_PLAN_INVALID, "invalid plan")                                   \
  X(COLLRT_ERR_COMM_MISMATCH, "communicator does not fit the plan")            \
  X(COLLRT_ERR_COUNTS, "inconsistent counts")                                  \
  X(COLLRT_ERR_BOUNDS, "out of bounds")                                        \
  X(COLLRT_ERR_MPI, "MPI error")                                               \
  X(COLLRT_ERR_STATE, "call out of order")                                     \
  X(COLLRT_ERR_DEADLOCK, "deadlock")                                           \
  X(COLLRT_ERR_TIMEOUT, "no progress within COLLRT_TIMEOUT")

/* "unknown status -42 (not a collrt status)" without a caller's buffer:
 * thread-local, so two threads' messages do not mix. */
static const char *unknown(const char *prefix, int status) {
  static _Thread_local char text[64];
  snprintf(text, sizeof text, "%s%d (not a collrt status)", prefix, status);
  return text;
}

const char *collrt_strerror(collrt_status_t status) {
  switch (status) {
#define X(code, text)                                                          \
  case code: return text;
    COLLRT_STATUSES(X)
#undef X
  }
  return unknown("unknown status ", (int)status);
}

const char *collrt_status_name(collrt_status_t status) {
  switch (status) {
#define X(code, text)                                                          \
  case code: return #code;
    COLLRT_STATUSES(X)
#undef X
  }
  return unknown("status ", (int)status);
}

void collrt_diag_set(collrt_diag_t *diag, const char *fmt, ...) {
  if (!diag)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  va_end(ap);
}
