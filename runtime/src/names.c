/* Names of collectives and algorithms, from the one table of plan_format.h. */
#include <string.h>

#include "collc/plan.h"

const char *collrt_op_name(unsigned op) {
  switch (op) {
#define COLLRT_X_CASE(NAME, ID, SPELLING) case ID: return SPELLING;
    COLLRT_OPS(COLLRT_X_CASE)
#undef COLLRT_X_CASE
  }
  return "?";
}

const char *collrt_algorithm_name(unsigned algorithm) {
  switch (algorithm) {
#define COLLRT_X_CASE(NAME, ID, SPELLING) case ID: return SPELLING;
    COLLRT_ALGORITHMS(COLLRT_X_CASE)
#undef COLLRT_X_CASE
  }
  return "?";
}

unsigned collrt_op_from_name(const char *name) {
#define COLLRT_X_MATCH(NAME, ID, SPELLING) if (name && !strcmp(name, SPELLING)) return ID;
  COLLRT_OPS(COLLRT_X_MATCH)
#undef COLLRT_X_MATCH
  return 0;
}

unsigned collrt_algorithm_from_name(const char *name) {
#define COLLRT_X_MATCH(NAME, ID, SPELLING) if (name && !strcmp(name, SPELLING)) return ID;
  COLLRT_ALGORITHMS(COLLRT_X_MATCH)
#undef COLLRT_X_MATCH
  return 0;
}
