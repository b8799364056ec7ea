#!/usr/bin/env bash
# bench_where_nvl72.sh PODSIM: wall time and CPU time of
# scenarios/where_nvl72_wins.lua at its shipped 100,000 paired samples per
# cell on 2 threads (72 studies: 36 cells x B200 and H100), setup
# (layout searches, rollout choices) included.
set -euo pipefail
podsim=${1:-build/podsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$out/time" "$podsim" run scenarios/where_nvl72_wins.lua \
  --threads 2 --quiet --out "$out/run" >/dev/null
end=$(date +%s.%N)
read -r user sys < "$out/time"
awk -v s="$start" -v e="$end" -v u="$user" -v y="$sys" 'BEGIN {
  printf "where_nvl72_wins_100k_per_cell: %.1f s wall on 2 threads, %.1f s CPU\n", e - s, u + y }'
