#!/bin/sh
# Runs a command and checks its output (stdout and stderr together).
#   expect.sh [--fail] [--grep ERE]... [--once ERE]... [--expect-line] -- CMD...
# --fail: CMD must exit non-zero (else zero). --grep: some line matches.
# --once: exactly one line matches. --expect-line: the program's line
# "pmpi_check: expect: TEXT" names a line TEXT that must also be printed
# (the library's summary agreeing with the program's own tally).
fail=0
greps=""
onces=""
expect_line=0
while [ $# -gt 0 ]; do
  case "$1" in
    --fail) fail=1 ;;
    --grep) greps="$greps
$2"; shift ;;
    --once) onces="$onces
$2"; shift ;;
    --expect-line) expect_line=1 ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out"
status=0
if [ $fail -eq 1 ] && [ $rc -eq 0 ]; then
  echo "expect.sh: the command succeeded but should have failed"; status=1
elif [ $fail -eq 0 ] && [ $rc -ne 0 ]; then
  echo "expect.sh: the command failed (exit $rc)"; status=1
fi
IFS='
'
for re in $greps; do
  grep -Eq -- "$re" "$out" || { echo "expect.sh: no line matches: $re"; status=1; }
done
for re in $onces; do
  n=$(grep -Ec -- "$re" "$out")
  [ "$n" -eq 1 ] || { echo "expect.sh: $n lines (not 1) match: $re"; status=1; }
done
if [ $expect_line -eq 1 ]; then
  want=$(sed -n 's/^pmpi_check: expect: //p' "$out" | head -n 1)
  if [ -z "$want" ]; then
    echo "expect.sh: the program printed no expectation"; status=1
  elif ! grep -Fxq -- "$want" "$out"; then
    echo "expect.sh: no line reads: $want"; status=1
  fi
fi
exit $status
