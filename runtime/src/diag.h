/* Filling the optional diagnostic of a fallible call. */
#ifndef COLLRT_DIAG_H
#define COLLRT_DIAG_H

#include "collc/status.h"

/* printf-style; a NULL diag is ignored. */
void collrt_diag_set(collrt_diag_t *diag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
