#!/usr/bin/env bash
# Writes a spec for one allreduce or bcast on a ring of 8 nodes:
#   reduce-spec.sh OP ALGORITHM [DATATYPE REDUCE_OP] > spec.yaml
set -eu
echo "topology: {shape: [8]}"
echo "collective:"
echo "  op: $1"
echo "  algorithm: $2"
if [ $# -ge 4 ]; then
  echo "  datatype: $3"
  echo "  reduce_op: $4"
fi
