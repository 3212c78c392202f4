/* The MPI-4 entry points libcollc_pmpi intercepts, on MPI libraries that
 * ship them under another name.
 *
 * The persistent collectives (MPI_Alltoall_init, MPI_Alltoallv_init,
 * MPI_Allgatherv_init, MPI_Allreduce_init, MPI_Bcast_init) are MPI-4.
 * Open MPI 4.x implements MPI 3.1 (MPI_VERSION 3) and ships them as its
 * `pcollreq` extension: <mpi-ext.h> declares MPIX_Alltoall_init and
 * PMPIX_Alltoall_init (and the v, allgatherv, allreduce and bcast forms)
 * with the MPI-4 signatures, and their requests are started, completed
 * and freed by the ordinary MPI_Start, MPI_Wait*, MPI_Test* and
 * MPI_Request_free. Here the MPI-4 names become the
 * extension's, so that the wrappers written against MPI-4 define (and
 * export) what an Open MPI 4 application calls, and call what Open MPI
 * provides underneath. Debian 12's Open MPI 4.1.4 builds the extension
 * (OMPI_HAVE_MPI_EXT_PCOLLREQ); docs/open-mpi.md.
 *
 * COLLC_HAVE_PERSISTENT_COLL is 1 where the library has them under either
 * name and 0 where it has neither (an MPI-3 library without the extension):
 * code that calls or defines them is compiled only under
 * `#if COLLC_HAVE_PERSISTENT_COLL`. COLLC_PERSISTENT_COLL_NAME("Alltoall")
 * is the name the application calls ("MPI_Alltoall_init" or
 * "MPIX_Alltoall_init"), for messages. */
#ifndef COLLC_MPI_COMPAT_H
#define COLLC_MPI_COMPAT_H

#include <mpi.h>

#if MPI_VERSION >= 4
#define COLLC_HAVE_PERSISTENT_COLL 1
#define COLLC_PERSISTENT_COLL_NAME(op) "MPI_" op "_init"
#elif defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define COLLC_HAVE_PERSISTENT_COLL 1
#define COLLC_PERSISTENT_COLL_NAME(op) "MPIX_" op "_init"
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Allgatherv_init MPIX_Allgatherv_init
#define PMPI_Alltoall_init PMPIX_Alltoall_init
#define PMPI_Alltoallv_init PMPIX_Alltoallv_init
#define PMPI_Allgatherv_init PMPIX_Allgatherv_init
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Bcast_init MPIX_Bcast_init
#define PMPI_Allreduce_init PMPIX_Allreduce_init
#define PMPI_Bcast_init PMPIX_Bcast_init
#endif
#endif

#ifndef COLLC_HAVE_PERSISTENT_COLL
#define COLLC_HAVE_PERSISTENT_COLL 0
#endif

#endif
