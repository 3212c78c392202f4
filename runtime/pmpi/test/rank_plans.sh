#!/bin/sh
# Runs a command with COLLC_PLANS set by the MPI rank: the first argument on
# rank 0, the second on every other rank (an installation where the ranks
# read different plan files).
#   rank_plans.sh PLANS_RANK0 PLANS_OTHERS CMD...
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
if [ "$rank" = 0 ]; then COLLC_PLANS=$1; else COLLC_PLANS=$2; fi
export COLLC_PLANS
shift 2
exec "$@"
