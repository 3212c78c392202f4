#!/usr/bin/env bash
# Writes a spec for one allreduce or bcast on a ring of 8 nodes, or on the
# topology TOPOLOGY gives (a flow mapping, e.g. "{shape: [2, 2],
# ranks_per_node: 2}": schedules that read the topology run only on its size):
#   reduce-spec.sh OP ALGORITHM [DATATYPE REDUCE_OP [TOPOLOGY]] > spec.yaml
set -eu
default="{shape: [8]}"
echo "topology: ${5:-$default}"
echo "collective:"
echo "  op: $1"
echo "  algorithm: $2"
if [ $# -ge 4 ]; then
  echo "  datatype: $3"
  echo "  reduce_op: $4"
fi
