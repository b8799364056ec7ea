#!/usr/bin/env bash
# bench_mpi.sh PODSIM: the speed-up of 2 MPI ranks (one thread each) over
# one rank for a study whose chunks are expensive (event-simulated runs:
# the simulate_run kernel, 54 days of a 16,384-GPU job per sample), beside
# the machine's two-thread capacity measured on the same study in one
# process (2 threads over 1), and the CPU the 2-rank job spends over the
# 1-rank job (what distribution costs; robust on a shared machine).  Rounds alternate the four runs so that all
# see the same (possibly shared) machine; each figure is the best of 3.
# Skipped when podsim has no MPI or mpirun is missing.
set -euo pipefail
podsim=${1:-build/podsim}
if ! "$podsim" --version | grep -q "MPI: built in" || ! command -v mpirun >/dev/null; then
  echo "mpi_speedup: skipped (podsim built without MPI, or no mpirun)"
  exit 0
fi
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
# containers often forbid the cross-memory attach Open MPI's shared-memory
# transport uses for large messages: copy through shared memory instead
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat >"$out/sim.lua" <<'LUA'
local cfg = {base = "default", failures = "llama3_h100", node_gpus = 8, domain_gpus = 8,
             active_gpus = 16384, pool_units = 32, pool_scope = "node", repair_h = 48,
             ckpt_s = 20, restart_s = 300, interval_rule = "young", work_h = 54 * 24}
local s = podsim.study{name = "sim", samples = 60000, seed = 3, chunk_size = 250,
  params = {u_seed = podsim.dist.uniform{0, 1}, gpu_rate_log10 = podsim.dist.uniform{-0.3, 0.3}},
  eval = podsim.kernel.simulate_run(cfg)}
podsim.write(s:run())
LUA
wall() { sed -n 's/.*"wall_s": \([0-9.e+-]*\).*/\1/p' "$1/sim/meta.json"; }
# cpu CMD...: run CMD, print its CPU seconds (user + system, children included)
cpu() {
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }'
}
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
k1= k2= t1= t2= c1= c2=
for round in 1 2 3; do
  c1=$(best "$c1" "$(cpu "${mpirun[@]}" -n 1 "$podsim" run "$out/sim.lua" --mpi --threads 1 --quiet --out "$out/k1")")
  c2=$(best "$c2" "$(cpu "${mpirun[@]}" -n 2 "$podsim" run "$out/sim.lua" --mpi --threads 1 --quiet --out "$out/k2")")
  "$podsim" run "$out/sim.lua" --threads 1 --quiet --out "$out/t1"
  "$podsim" run "$out/sim.lua" --threads 2 --quiet --out "$out/t2"
  cmp -s "$out/k1/sim/summary.csv" "$out/k2/sim/summary.csv" || { echo "bench_mpi: K=2 results differ" >&2; exit 1; }
  k1=$(best "$k1" "$(wall "$out/k1")"); k2=$(best "$k2" "$(wall "$out/k2")")
  t1=$(best "$t1" "$(wall "$out/t1")"); t2=$(best "$t2" "$(wall "$out/t2")")
done
awk -v k1="$k1" -v k2="$k2" -v t1="$t1" -v t2="$t2" -v c1="$c1" -v c2="$c2" 'BEGIN {
  printf "mpi_speedup_2_ranks: %.2fx (60000 simulate_run samples: %.2f s on 1 rank, %.2f s on 2 ranks x 1 thread)\n", k1 / k2, k1, k2
  printf "mpi_machine_2_thread_capacity: %.2fx (the same study in one process: %.2f s on 1 thread, %.2f s on 2)\n", t1 / t2, t1, t2
  printf "mpi_cpu_2_ranks_over_1: %.2fx (CPU seconds of the whole job, mpirun and start-up included: %.2f on 1 rank, %.2f on 2)\n", c2 / c1, c1, c2
}'
