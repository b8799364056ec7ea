#!/usr/bin/env bash
# bench_flagship.sh PODSIM: the shipped Lua-eval scenarios as they are
# (scenarios/moe_nvl72_vs_hgx.lua, scenarios/alltoall_uncertainty.lua):
# samples per second of the study alone (its wall_s from meta.json; for
# the flagship the layout search before it is not counted) and the whole
# process (wall clock of `podsim run`, search, plots and files included),
# compiled (traced) and per-sample Lua (--no-trace), on 1 and 2 threads.
# Each round runs 1 then 2 threads and measures the machine's free
# capacity (bench_capacity) beside them; the figure is the best of 3
# rounds.  Ratios are within this one run.
set -euo pipefail
podsim=${1:-build/podsim}
cap_bin=$(dirname "$podsim")/bench_capacity
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }
bench() { # name scenario study samples mode
  local name=$1 scen=$2 study=$3 n=$4 mode=$5 flag=""
  [ "$mode" = lua ] && flag=--no-trace
  declare -A best whole
  local caps=""
  for r in 1 2 3; do
    for t in 1 2; do
      local t0 t1
      t0=$(now)
      "$podsim" run "$scen" --samples "$n" --threads $t --quiet $flag --out "$out/$r$t" >/dev/null
      t1=$(now)
      local meta="$out/$r$t/$study/meta.json"
      local wall done_ rate wrate
      wall=$(sed -n 's/.*"wall_s": \([0-9.e+-]*\).*/\1/p' "$meta")
      done_=$(sed -n 's/.*"samples_done": \([0-9]*\).*/\1/p' "$meta")
      rate=$(awk -v n="$done_" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')
      wrate=$(awk -v n="$done_" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
      [ "${best[$t]:-0}" -lt "$rate" ] && best[$t]=$rate
      [ "${whole[$t]:-0}" -lt "$wrate" ] && whole[$t]=$wrate
    done
    caps="$caps $("$cap_bin" --value)"
  done
  for t in 1 2; do
    echo "${name}_${mode}_samples: ${best[$t]} samples/s study alone, ${whole[$t]} samples/s whole process, on $t thread(s) ($n samples per grid point, best of 3)"
  done
  awk -v a="${best[1]}" -v b="${best[2]}" -v c="$caps" -v nm="${name}_${mode}" \
    'BEGIN { printf "%s_speedup_1_to_2_threads: %.2fx (free capacity per round:%s of 2 cores)\n", nm, b / a, c }'
  eval "rate_${name}_${mode}=${best[1]}"
}
bench flagship scenarios/moe_nvl72_vs_hgx.lua moe_nvl72_vs_hgx 100000 traced
bench flagship scenarios/moe_nvl72_vs_hgx.lua moe_nvl72_vs_hgx 10000 lua
bench alltoall_uncertainty scenarios/alltoall_uncertainty.lua a2a_ratio 200000 traced
bench alltoall_uncertainty scenarios/alltoall_uncertainty.lua a2a_ratio 20000 lua
awk -v a="$rate_flagship_traced" -v b="$rate_flagship_lua" -v c="$rate_alltoall_uncertainty_traced" \
    -v d="$rate_alltoall_uncertainty_lua" 'BEGIN {
  printf "flagship_traced_over_lua: %.1fx (1 thread, study alone)\n", a / b
  printf "alltoall_uncertainty_traced_over_lua: %.1fx (1 thread, study alone)\n", c / d }'
