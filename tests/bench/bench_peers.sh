#!/usr/bin/env bash
# bench_peers.sh PODSIM: podsim against a NumPy peer (tests/bench/peers/)
# doing the same computation as two studies, in one run, one core:
#   peer_uncertainty  scenarios/alltoall_uncertainty.lua as shipped (a Lua
#                     eval, compiled), 3 grid points x 200,000 samples
#   peer_kernel       tests/bench/peers/kernel_a2a.lua (the built-in
#                     collective evaluator), 1,000,000 samples
# podsim (--threads 1) and the peer run in alternating rounds; each round
# also measures the machine's free capacity (bench_capacity).  Figures:
# the best round's study time (podsim: the study's wall_s; NumPy: sampling,
# model and statistics, interpreter start excluded), whole-process times,
# the ratio NumPy time / podsim time, and the agreement check.
# Skipped with a message when Debian's python3-numpy is missing.
set -euo pipefail
podsim=${1:-build/podsim}
src=$(cd "$(dirname "$0")/../.." && pwd)
cap_bin=$(dirname "$podsim")/bench_capacity
py=""
for c in /usr/bin/python3 python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c "import numpy" 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ]; then
  echo "peer_numpy: skipped (python3-numpy is not installed; ./build.sh deps installs it)"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }
rounds=3
for mode in uncertainty kernel; do
  if [ $mode = uncertainty ]; then
    scen=$src/scenarios/alltoall_uncertainty.lua; n=200000; study=a2a_ratio
  else
    scen=$src/tests/bench/peers/kernel_a2a.lua; n=1000000; study=kernel_a2a
  fi
  best_p=1e9 best_n=1e9 best_pw=1e9 best_nw=1e9 caps=""
  for r in $(seq 1 $rounds); do
    t0=$(now)
    "$podsim" run "$scen" --threads 1 --quiet --samples $n --out "$out/p$r" >/dev/null
    t1=$(now)
    "$py" "$src/tests/bench/peers/a2a_numpy.py" $mode "$podsim" "$src" $n >"$out/n$r.json"
    t2=$(now)
    caps="$caps $("$cap_bin" --value)"
    ps=$(sed -n 's/.*"wall_s": \([0-9.e+-]*\).*/\1/p' "$out/p$r/$study/meta.json")
    ns=$(sed -n 's/.*"compute_s": \([0-9.e+-]*\).*/\1/p' "$out/n$r.json")
    best_p=$(awk -v a="$best_p" -v b="$ps" 'BEGIN { print (b < a ? b : a) }')
    best_n=$(awk -v a="$best_n" -v b="$ns" 'BEGIN { print (b < a ? b : a) }')
    best_pw=$(awk -v a="$best_pw" -v b="$t0" -v c="$t1" 'BEGIN { d = c - b; print (d < a ? d : a) }')
    best_nw=$(awk -v a="$best_nw" -v b="$t1" -v c="$t2" 'BEGIN { d = c - b; print (d < a ? d : a) }')
  done
  agree=$("$py" "$src/tests/bench/peers/compare.py" "$out/p$rounds/$study" "$out/n$rounds.json" || true)
  evaluator=$(sed -n 's/.*"evaluator": "\([a-z_]*\)".*/\1/p' "$out/p$rounds/$study/meta.json")
  awk -v m=$mode -v n=$n -v p="$best_p" -v q="$best_n" -v pw="$best_pw" -v qw="$best_nw" \
      -v ev="$evaluator" -v caps="$caps" -v r=$rounds 'BEGIN {
    printf "peer_%s: podsim %.3f s, NumPy %.3f s for the study (%d samples per grid point, '\
'1 core, evaluator %s, best of %d alternating rounds); whole process podsim %.2f s, '\
'NumPy %.2f s; free capacity per round:%s of 2 cores\n", m, p, q, n, ev, r, pw, qw, caps
    printf "peer_%s_ratio: %.1fx (NumPy study time / podsim study time)\n", m, q / p
  }'
  echo "peer_${mode}_agreement: $agree"
done
