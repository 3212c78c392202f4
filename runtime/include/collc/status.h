/* Status codes and diagnostics shared by every collrt function. */
#ifndef COLLC_STATUS_H
#define COLLC_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* 0 = success, negative = error. */
typedef enum collrt_status {
  COLLRT_OK = 0,
  COLLRT_ERR_ARG = -1,            /* a NULL or out-of-range argument */
  COLLRT_ERR_NOMEM = -2,
  COLLRT_ERR_IO = -3,             /* a plan file could not be read or written */
  COLLRT_ERR_PLAN_FORMAT = -4,    /* bad magic, version, or truncated plan */
  COLLRT_ERR_PLAN_CHECKSUM = -5,  /* checksum does not match the contents */
  COLLRT_ERR_PLAN_INVALID = -6,   /* a field or program fails validation */
  COLLRT_ERR_COMM_MISMATCH = -7,  /* communicator does not fit the plan */
  COLLRT_ERR_COUNTS = -8,         /* counts inconsistent between ranks */
  COLLRT_ERR_BOUNDS = -9,         /* expansion left a buffer, rank or limit */
  COLLRT_ERR_MPI = -10,           /* an MPI call failed */
  COLLRT_ERR_STATE = -11,         /* call out of order (e.g. wait before start) */
  COLLRT_ERR_DEADLOCK = -12,      /* simulation: no transfer can progress */
  COLLRT_ERR_TIMEOUT = -13,       /* no progress within COLLRT_TIMEOUT seconds */
} collrt_status_t;

/* Optional out-parameter of fallible calls: what went wrong, with values. */
typedef struct collrt_diag {
  char message[512];
} collrt_diag_t;

/* What a status means ("inconsistent counts"). A value that is not one of
 * the codes above reads "unknown status -42 (not a collrt status)": the
 * number is in the text, so an uninitialised or foreign status shows as
 * what it is. The text is in a thread-local buffer until this thread's
 * next call for another unknown value; known codes are constant strings. */
const char *collrt_strerror(collrt_status_t status);

/* The enumerator's name ("COLLRT_ERR_COUNTS"), for logs and tests; an
 * unknown value reads "status -42 (not a collrt status)", as above. */
const char *collrt_status_name(collrt_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* COLLC_STATUS_H */
