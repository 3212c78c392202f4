/* Status strings and the diagnostic helper. */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

const char *collrt_strerror(collrt_status_t status) {
  switch (status) {
  case COLLRT_OK: return "success";
  case COLLRT_ERR_ARG: return "invalid argument";
  case COLLRT_ERR_NOMEM: return "out of memory";
  case COLLRT_ERR_IO: return "I/O error";
  case COLLRT_ERR_PLAN_FORMAT: return "malformed plan";
  case COLLRT_ERR_PLAN_CHECKSUM: return "plan checksum mismatch";
  case COLLRT_ERR_PLAN_INVALID: return "invalid plan";
  case COLLRT_ERR_COMM_MISMATCH: return "communicator does not fit the plan";
  case COLLRT_ERR_COUNTS: return "inconsistent counts";
  case COLLRT_ERR_BOUNDS: return "out of bounds";
  case COLLRT_ERR_MPI: return "MPI error";
  case COLLRT_ERR_STATE: return "call out of order";
  case COLLRT_ERR_DEADLOCK: return "deadlock";
  }
  return "unknown status";
}

void collrt_diag_set(collrt_diag_t *diag, const char *fmt, ...) {
  if (!diag)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  va_end(ap);
}
