/* An application that duplicates a communicator per step and keeps them,
 * calling one 8-byte MPI_Alltoall on each, until MPI_Comm_dup fails.
 * Prints "communicators: N". Preloaded, N must stay within 1% of the
 * native count: the library may not spend the program's context ids
 * (comm_count.sh compares the two). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int n = 0, size; MPI_Comm_size(MPI_COMM_WORLD, &size);
  char s[64], r[64];
  for (;;) {
    MPI_Comm c;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) break;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    if (MPI_Alltoall(s, 8, MPI_BYTE, r, 8, MPI_BYTE, c) != MPI_SUCCESS) { printf("alltoall failed at %d\n", n); break; }
    ++n;
    if (n > 5000) break;
  }
  if (!rank) printf("communicators: %d\n", n);
  /* Flushed before MPI_Finalize: output still buffered when mpiexec tears
   * the job down can be lost. */
  fflush(stdout);
  MPI_Finalize();
}
