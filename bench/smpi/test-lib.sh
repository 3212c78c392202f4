# Sourced by bench/smpi's and bench/pmpi's ctest scripts (test-*.sh) after they set `name`:
#   fail MESSAGE...   "NAME: FAIL: MESSAGE" on stderr, exit 1
#   skip MESSAGE...   "NAME: SKIP: MESSAGE", exit 77 (ctest's SKIP_RETURN_CODE)
#   need_matplotlib   skip unless Debian's python3 (the one report and
#                     seed000 run under) has matplotlib
#   fresh_dir DIR     DIR emptied, matplotlib's cache kept in it (not $HOME)
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
skip() { echo "$name: SKIP: $*"; exit 77; }
need_matplotlib() {
  /usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
    skip "matplotlib is missing for /usr/bin/python3 (apt-get install python3-matplotlib)"
}
fresh_dir() {
  rm -rf "$1" && mkdir -p "$1" || fail "cannot create $1"
  export MPLCONFIGDIR="$1/mplconfig"
}
# expect_stale_then_restored RENDER ROOT DIR PAGE TABLE: DIR/PAGE is ROOT/PAGE
# with one cell of generated table TABLE altered; RENDER --check must exit 1
# naming that table alone, and rendering DIR must restore ROOT/PAGE
expect_stale_then_restored() {
  "$1" --check --root "$3" >"$3/stale.out" 2>&1
  status=$?
  [ "$status" -eq 1 ] || fail "--check exited $status (want 1) on an altered table: $(cat "$3/stale.out")"
  grep -q "^$4:[0-9]*: generated table '$5' differs" "$3/stale.out" ||
    fail "--check did not name $4's table '$5': $(cat "$3/stale.out")"
  [ "$(grep -c 'differs' "$3/stale.out")" -eq 1 ] || fail "--check named other tables: $(cat "$3/stale.out")"
  "$1" --root "$3" >/dev/null || fail "rendering the altered copy exited $?"
  cmp -s "$2/$4" "$3/$4" || fail "rendering did not restore $4"
}
