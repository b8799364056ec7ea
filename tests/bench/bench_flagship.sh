#!/usr/bin/env bash
# bench_flagship.sh PODSIM: flagship samples per second on 1 and 2 threads
# (wall time of the study from meta.json; the layout search before it is
# not counted), and the ratio, measured in one run.
set -euo pipefail
podsim=${1:-build/podsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A rate
for t in 1 2; do
  "$podsim" run scenarios/moe_nvl72_vs_hgx.lua --samples 20000 --threads $t --quiet --out "$out/t$t" >/dev/null
  meta="$out/t$t/moe_nvl72_vs_hgx/meta.json"
  wall=$(sed -n 's/.*"wall_s": \([0-9.e+-]*\).*/\1/p' "$meta")
  done_=$(sed -n 's/.*"samples_done": \([0-9]*\).*/\1/p' "$meta")
  rate[$t]=$(awk -v n="$done_" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')
  echo "flagship_samples: ${rate[$t]} samples/s on $t thread(s) ($done_ samples, $wall s)"
done
awk -v a="${rate[1]}" -v b="${rate[2]}" 'BEGIN { printf "flagship_speedup_1_to_2_threads: %.2fx\n", b / a }'
