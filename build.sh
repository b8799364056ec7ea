#!/usr/bin/env bash
# build.sh: set up, build, test and run podsim.  See `./build.sh help`.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

# python3-numpy: only for the NumPy peer of ./build.sh bench (tests/bench/peers/)
PKGS=(build-essential cmake pkg-config liblua5.4-dev libuv1-dev libgsl-dev
      gnuplot-nox libcmocka-dev nettle-dev groff-base man-db chromium python3
      openmpi-bin libopenmpi-dev python3-numpy)
FUZZ_PKGS=(clang libclang-rt-14-dev)
FORMAT_PKGS=(clang-format)
JOBS=$(nproc 2>/dev/null || echo 2)
DEFAULT_SCENARIO=scenarios/moe_nvl72_vs_hgx.lua

usage() {
  cat <<'USAGE'
usage: ./build.sh COMMAND [ARGS]

  deps            install missing Debian packages (as root), else print the line
  build           release build into build/
  test            build, then run every test with CTest
  run [FILE] [ARGS]
                  build, then run FILE (default: the flagship scenario)
  bench           build, then run the benchmarks in tests/bench/
  asan            ASan+UBSan build in build-asan/ and the whole test suite
  tsan            ThreadSanitizer build in build-tsan/, runner and Monte Carlo tests
  fuzz [SECONDS]  libFuzzer targets in tests/fuzz/ (default 30 s each)
  format-check    list C sources under core/ lua/ tests/ that clang-format
                  would change (exit 1 if any)
  clean           remove build trees
USAGE
}

missing_pkgs() {
  local p miss=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || miss+=("$p")
  done
  echo "${miss[@]:-}"
}

# Lists fetched within the last day count as fresh.
apt_lists_stale() {
  local lists=/var/lib/apt/lists
  ls "$lists"/*_Packages >/dev/null 2>&1 || return 0
  [ -n "$(find "$lists" -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null | head -n 1)" ] && return 1
  return 0
}

deps() {
  local miss
  miss=$(missing_pkgs "${PKGS[@]}" "$@")
  [ -z "$miss" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "build.sh: missing packages; install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y $miss" >&2
    exit 2
  fi
  echo "build.sh: installing $miss" >&2
  export DEBIAN_FRONTEND=noninteractive
  if apt_lists_stale; then apt-get update -qq; fi
  # shellcheck disable=SC2086
  if ! apt-get install -y -qq --no-install-recommends $miss >&2; then
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $miss >&2
  fi
}

configure() {  # configure DIR [cmake args]
  local dir=$1; shift
  local werror=OFF
  [ -n "${CI:-}" ] && werror=ON
  cmake -S "$ROOT" -B "$dir" -DPOD_WERROR=$werror "$@" >/dev/null
}

build() {  # build DIR [cmake args]
  local dir=${1:-build}; shift || true
  configure "$dir" "$@"
  cmake --build "$dir" -j "$JOBS"
}

ctest_in() {  # ctest_in DIR [ctest args]
  local dir=$1; shift
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" "$@")
}

# no command is a usage error (exit 2), not help: a script that meant to
# build must not go on with a stale binary
if [ $# -eq 0 ]; then
  echo "build.sh: a command is needed (./build.sh build builds into build/)" >&2
  usage >&2
  exit 2
fi
cmd=$1
shift
case "$cmd" in
  deps) deps ;;
  build) deps; build build ;;
  test) deps; build build; ctest_in build ;;
  run)
    deps; build build >/dev/null
    file=${1:-$DEFAULT_SCENARIO}; shift || true
    exec ./build/podsim run "$file" "$@" ;;
  bench)
    deps; build build >/dev/null
    for b in build/bench_*; do [ -x "$b" ] && "$b"; done
    for s in tests/bench/*.lua; do [ -f "$s" ] && ./build/podsim run "$s" --unsafe --quiet --out build/bench-out; done
    for s in tests/bench/*.sh; do [ -f "$s" ] && bash "$s" build/podsim; done
    ;;
  asan)
    deps
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DPOD_SANITIZE=address,undefined
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest_in build-asan ;;
  tsan)
    deps
    build build-tsan -DCMAKE_BUILD_TYPE=Debug -DPOD_SANITIZE=thread
    TSAN_OPTIONS=halt_on_error=1 ctest_in build-tsan -L tsan ;;
  fuzz)
    deps "${FUZZ_PKGS[@]}"
    secs=${1:-30}
    bash tests/fuzz/run.sh "$secs" ;;
  format-check)
    deps "${FORMAT_PKGS[@]}"
    bash tests/format.sh ;;
  clean) rm -rf build build-asan build-tsan build-fuzz ;;
  help|-h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
