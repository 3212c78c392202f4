/* collc-run --calibrate: measures the cost model's parameters on this machine
 * and prints them as a spec's network: section (calibrate.c). */
#ifndef COLLC_RUN_CALIBRATE_H
#define COLLC_RUN_CALIBRATE_H

/* Collective over MPI_COMM_WORLD (after MPI_Init, needs 2 ranks or more);
 * argv: collc-run's, holding --calibrate and optionally --max-bytes N.
 * Rank 0 prints; returns the process exit code. */
int calibrate_main(int argc, char **argv);

#endif
