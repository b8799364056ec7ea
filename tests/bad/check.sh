#!/usr/bin/env bash
# check.sh PODSIM CASE.lua OUTDIR: runs one bad-input case and compares the
# exit code and the start of stderr with the case's header:
#   -- expect-exit: 1
#   -- expect-error: FILE:LINE: podsim.system: up_GBps: must be     (a literal
#      prefix of stderr's first line, after "FILE" is replaced by the case path)
#   -- args: --timeout 2                                         (optional)
# The case runs from its own folder by its file name, so FILE is short and
# Lua never abbreviates it, however deep the checkout is.
set -u
podsim=$(realpath "$1") case=$2 out=$(realpath -m "$3")
rm -rf "$out"; mkdir -p "$out"
want_rc=$(sed -n 's/^-- expect-exit: *//p' "$case" | head -n 1)
want_err=$(sed -n 's/^-- expect-error: *//p' "$case" | head -n 1)
args=$(sed -n 's/^-- args: *//p' "$case" | head -n 1)
[ -n "$want_rc" ] || { echo "$case: no expect-exit header"; exit 1; }
name=$(basename "$case")
want_err=${want_err//FILE/$name}
# shellcheck disable=SC2086
(cd "$(dirname "$case")" && timeout 60 "$podsim" run "$name" --out "$out" $args) >"$out/stdout" 2>"$out/stderr"
rc=$?
first=$(head -n 1 "$out/stderr")
status=0
if [ "$rc" -ne "$want_rc" ]; then
  echo "exit code $rc, want $want_rc"; status=1
fi
if [ -n "$want_err" ] && [ "${first#"$want_err"}" = "$first" ]; then
  echo "stderr starts: $first"; echo "want prefix:   $want_err"; status=1
fi
if find "$out" -name '*.tmp.*' | grep -q .; then
  echo "temporary files left behind"; status=1
fi
[ $status -eq 0 ] && echo "1 passed, 0 failed" || { echo "--- stderr"; cat "$out/stderr"; echo "0 passed, 1 failed"; }
exit $status
