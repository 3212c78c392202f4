/* Loads a plan linked in as the symbols collc --emit=c / --emit=obj define. */
#include <stdio.h>

#include "collc/plan.h"

extern const unsigned char a2a_plan[];
extern const unsigned long a2a_plan_size;

int main(void) {
  collrt_plan_t *plan = NULL;
  collrt_diag_t diag;
  collrt_status_t st = collrt_plan_load(a2a_plan, a2a_plan_size, &plan, &diag);
  printf("embedded plan: %lu bytes, load: %s\n", a2a_plan_size,
         collrt_strerror(st));
  if (st != COLLRT_OK) {
    printf("%s\n", diag.message);
    return 1;
  }
  printf("op %d, algorithm %d\n", collrt_plan_desc(plan)->op,
         collrt_plan_desc(plan)->algorithm);
  collrt_plan_free(plan);
  return 0;
}
