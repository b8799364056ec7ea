#!/usr/bin/env bash
# run.sh SECONDS [TARGET...]: build the libFuzzer targets in build-fuzz/
# with clang -fsanitize=fuzzer,address,undefined and run each for SECONDS
# with its seed corpus tests/fuzz/corpus/<target>/ (new inputs go to
# build-fuzz/corpus/<target>/, crashes to build-fuzz/crashes/<target>/).
# Prints one line per target: executions, corpus size, and the result.
# Exit 1 when a target found a crash, leak or property violation.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
secs=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario coll train serve rl stats dist kernels gpenc recipe codec)
B=$ROOT/build-fuzz
CC=${CC:-clang}
command -v "$CC" >/dev/null || { echo "run.sh: $CC not found (./build.sh deps clang libclang-rt-14-dev)" >&2; exit 2; }

# The libraries: instrumented for coverage and sanitizers, not linked with
# libFuzzer's main (fuzzer-no-link).
# UBSan stays recoverable so tests/fuzz/ubsan.supp can hold known issues of
# other modules; halt_on_error turns every other report into a crash.
san="-fsanitize=address,undefined -fno-sanitize-recover=address -fno-omit-frame-pointer"
CC=$CC cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOD_MPI=OFF \
  -DCMAKE_C_FLAGS="$san -fsanitize=fuzzer-no-link -Wno-unused-command-line-argument" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$B" -j "$(nproc 2>/dev/null || echo 2)" --target podlua >/dev/null
libs=$(pkg-config --libs lua5.4 libuv gsl nettle)
cflags=$(pkg-config --cflags lua5.4 libuv gsl nettle)
status=0
for t in "${targets[@]}"; do
  src=$ROOT/tests/fuzz/fuzz_$t.c
  [ -f "$src" ] || { echo "run.sh: no target $t" >&2; exit 2; }
  # shellcheck disable=SC2086
  "$CC" -g -O1 $san -fsanitize=fuzzer -I"$ROOT/core" -I"$ROOT/lua" $cflags \
    -D_XOPEN_SOURCE=700 "$src" "$B/libpodlua.a" "$B/libpodcore.a" $libs -lm -lpthread \
    -o "$B/fuzz_$t"
  mkdir -p "$B/corpus/$t" "$B/crashes/$t"
  seeds=$ROOT/tests/fuzz/corpus/$t
  [ -d "$seeds" ] || seeds=
  dict=$ROOT/tests/fuzz/$t.dict
  [ -f "$dict" ] && dictarg=(-dict="$dict") || dictarg=()
  log=$B/fuzz_$t.log
  set +e
  # shellcheck disable=SC2086
  # the scenario host prints every scenario error: keep its stderr closed
  mask=1
  [ "$t" = scenario ] && mask=3
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$ROOT/tests/fuzz/ubsan.supp \
  "$B/fuzz_$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 -close_fd_mask=$mask \
    -print_final_stats=1 -artifact_prefix="$B/crashes/$t/" "${dictarg[@]}" \
    "$B/corpus/$t" $seeds >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  ncorp=$(find "$B/corpus/$t" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    echo "fuzz_$t: ${execs:-?} executions in ${secs} s (${rate:-?}/s), corpus $ncorp: ok"
  else
    status=1
    echo "fuzz_$t: ${execs:-?} executions, FAILED (exit $rc); see $log and $B/crashes/$t/"
    grep -m 3 -E "ERROR: |runtime error|fuzz property violated" "$log" | sed 's/^/  /' || true
  fi
done
exit $status
