#!/usr/bin/env bash
# Writes a spec for one allreduce or bcast, on a ring of 8 nodes unless a
# topology is given (a YAML flow mapping, e.g. "{shape: [2, 2], ranks_per_node: 2}"):
#   reduce-spec.sh [--topology TOPOLOGY] OP ALGORITHM [DATATYPE REDUCE_OP] > spec.yaml
set -eu
topology="{shape: [8]}"
if [ "${1:-}" = "--topology" ]; then
  topology=$2
  shift 2
fi
echo "topology: $topology"
echo "collective:"
echo "  op: $1"
echo "  algorithm: $2"
if [ $# -ge 4 ]; then
  echo "  datatype: $3"
  echo "  reduce_op: $4"
fi
