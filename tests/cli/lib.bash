# lib.sh: helpers for CLI tests (sourced).  Each test runs as
#   bash tests/cli/NAME.sh PODSIM SRCDIR OUTDIR
set -u
PODSIM=$1
SRC=$2
OUT=$3
rm -rf "$OUT"
mkdir -p "$OUT"
FAILS=0
CHECKS=0

# run CMD...: sets RC, STDOUT, STDERR
run() {
  set +e
  "$@" >"$OUT/stdout" 2>"$OUT/stderr"
  RC=$?
  set -e
  STDOUT=$(cat "$OUT/stdout")
  STDERR=$(cat "$OUT/stderr")
}

ok() { CHECKS=$((CHECKS + 1)); }
bad() {
  CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1))
  echo "FAIL: $*" >&2
  echo "  rc=$RC" >&2
  echo "  stdout: $(head -c 600 "$OUT/stdout")" >&2
  echo "  stderr: $(head -c 600 "$OUT/stderr")" >&2
}
expect_rc() { [ "$RC" -eq "$1" ] && ok || bad "expected exit $1 ($2)"; }
expect_out() { grep -qE -- "$1" "$OUT/stdout" && ok || bad "stdout lacks /$1/ ($2)"; }
expect_err() { grep -qE -- "$1" "$OUT/stderr" && ok || bad "stderr lacks /$1/ ($2)"; }
expect_no_err() { [ ! -s "$OUT/stderr" ] && ok || bad "stderr not empty ($1)"; }
expect_lines_err() { [ "$(wc -l <"$OUT/stderr")" -eq "$1" ] && ok || bad "stderr has $(wc -l <"$OUT/stderr") lines, want $1 ($2)"; }

# scenario NAME <<'EOF' ... EOF: write a scenario file into $OUT
scenario() { cat >"$OUT/$1"; }

finish() {
  echo "$((CHECKS - FAILS)) passed, $FAILS failed"
  [ "$FAILS" -eq 0 ]
}

# same_outputs REF DIR WHAT: every file of REF in DIR with the same bytes
# (meta.json: but for the run's wall time and thread count)
same_outputs() {
  local f n=0
  for f in $(cd "$1" && find . -type f | sort); do
    n=$((n + 1))
    if [ "${f##*/}" = meta.json ]; then
      diff <(grep -v '"wall_s"\|"threads"' "$1/$f") <(grep -v '"wall_s"\|"threads"' "$2/$f") >/dev/null \
        && ok || bad "$3: $f differs"
    else
      cmp -s "$1/$f" "$2/$f" && ok || bad "$3: $f differs"
    fi
  done
  [ "$n" -ge 12 ] && ok || bad "$3: only $n output files"
  [ "$(cd "$1" && find . -type f | sort)" = "$(cd "$2" && find . -type f | sort)" ] && ok || bad "$3: other files"
}
