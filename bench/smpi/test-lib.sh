# Sourced by bench/smpi's ctest scripts (test-*.sh) after they set `name`:
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
