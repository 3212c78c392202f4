#!/bin/sh
# comm_count.sh LIB PLANS -- MPIEXEC...: runs dup_loop natively and with
# LIB preloaded (serving it from PLANS); passes when the preloaded run
# keeps at least 99% of the communicators the native run gets and serves
# every call.
lib=$1 plans=$2
shift 3
# The count is read wherever its line landed: mpiexec merges the ranks'
# output streams, and another rank's diagnostic can precede it on one line.
count() { sed -n 's/.*communicators: \([0-9][0-9]*\).*/\1/p' | tail -n 1; }
native_out=$("$@" 2>&1)
native=$(printf '%s\n' "$native_out" | count)
out=$(env COLLC_PLANS="$plans" COLLC_VERBOSE=1 LD_PRELOAD="$lib" "$@" 2>&1)
served=$(printf '%s\n' "$out" | count)
calls=$(printf '%s\n' "$out" | sed -n 's/.*rank 0: \([0-9]*\) calls served.*/\1/p')
echo "comm_count: native $native communicators, preloaded $served ($calls calls served)"
[ -n "$native" ] && [ -n "$served" ] && [ "$calls" = "$served" ] &&
  [ $((served * 100)) -ge $((native * 99)) ] || {
  printf 'native run:\n%s\npreloaded run:\n%s\n' "$native_out" "$out" | tail -n 40
  echo "comm_count: FAILED"; exit 1; }
echo "comm_count: ok"
