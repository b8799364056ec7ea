# Atomic output (DESIGN.md 7, 10): podsim is killed with SIGKILL at random
# moments while a study writes a samples.csv of two million rows (and its
# summary, histograms and meta.json).  After every kill each file under
# its final name must be absent or a complete version: byte-identical to
# the full output of one of the two seeds written into that folder, never
# a prefix (meta.json may also be the complete "in progress" version that
# podsim.write writes first).  Temporary files of killed runs may remain (nothing can remove
# them after SIGKILL); they never carry a final name.
source "$(dirname "$0")/lib.bash"
set -e
N=2000000
scenario big.lua <<'LUA'
local s = podsim.study{name = "big", samples = podsim.args.n, seed = podsim.args.seed,
  keep_samples = true, sensitivity = "none",
  params = {bytes = podsim.dist.loguniform{1e3, 1e9}, ["system.up_eff"] = podsim.dist.uniform{0.5, 0.9}},
  eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1e6}}
podsim.write(s:run())
LUA
files="samples.csv summary.csv meta.json hist_time_s.csv"
# reference outputs of both seeds, written to completion
for seed in 1 2; do
  t0=$(date +%s.%N)
  run "$PODSIM" run "$OUT/big.lua" --quiet --threads 2 --set n=$N --set seed=$seed --out "$OUT/ref$seed"
  ref_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  expect_rc 0 "reference run, seed $seed"
  [ "$(wc -l <"$OUT/ref$seed/big/samples.csv")" -eq $((N + 1)) ] && ok || bad "reference samples.csv has $N rows"
done
sum() { [ -f "$1" ] && md5sum <"$1" | cut -c1-32 || echo absent; }
# meta.json differs between runs only in wall time: compare it without it
metasum() { [ -f "$1" ] && grep -v '"wall_s"' "$1" | md5sum | cut -c1-32 || echo absent; }
check() { # check FILE -> 0 when absent or equal to a reference version
  local f=$1 got
  if [ "$f" = meta.json ]; then
    got=$(metasum "$OUT/t/big/$f")
    [ "$got" = absent ] || [ "$got" = "$(metasum "$OUT/ref1/big/$f")" ] || [ "$got" = "$(metasum "$OUT/ref2/big/$f")" ] ||
      # or the whole "in progress" version podsim.write puts first
      { grep -q '"state": "in progress"' "$OUT/t/big/$f" && [ "$(tail -n 1 "$OUT/t/big/$f")" = "}" ]; }
  else
    got=$(sum "$OUT/t/big/$f")
    [ "$got" = absent ] || [ "$got" = "$(sum "$OUT/ref1/big/$f")" ] || [ "$got" = "$(sum "$OUT/ref2/big/$f")" ]
  fi
}
# kill at random moments: while sampling, while writing, around the renames
kills=0
# (up to 20 attempts, until 8 kills landed in a running process: run times
# vary with the machine's load, so a kill may come after the run ended)
for i in $(seq 1 20); do
  [ $kills -ge 8 ] && break
  seed=$(( i % 2 + 1 ))
  # a random moment inside a run: 5% to 70% of the reference run's time
  delay=$(awk -v r=$RANDOM -v t="$ref_s" 'BEGIN { printf "%.3f", t * (0.05 + 0.65 * r / 32768) }')
  "$PODSIM" run "$OUT/big.lua" --quiet --threads 2 --set n=$N --set seed=$seed --out "$OUT/t" \
    >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
  wait "$pid" 2>/dev/null || true
  for f in $files; do
    check "$f" && ok || bad "after SIGKILL at ${delay}s (seed $seed): $f is neither absent nor a complete version"
  done
  if [ -f "$OUT/t/big/samples.csv" ]; then
    [ "$(tail -c 1 "$OUT/t/big/samples.csv" | od -An -c | tr -d ' ')" = '\n' ] && ok || bad "samples.csv ends mid-line"
  fi
done
[ $kills -ge 4 ] && ok || bad "only $kills of $i runs were still running when killed"
echo "killed $kills runs; temporary files left by them: $(find "$OUT/t" -name '*.tmp.*' | wc -l)"
# a run that finishes replaces the file whole and leaves no temporary file
rm -f "$OUT"/t/big/*.tmp.*
run "$PODSIM" run "$OUT/big.lua" --quiet --threads 2 --set n=$N --set seed=1 --out "$OUT/t"
expect_rc 0 "a complete run after the kills"
cmp -s "$OUT/t/big/samples.csv" "$OUT/ref1/big/samples.csv" && ok || bad "the final samples.csv is the complete version"
find "$OUT/t" -name '*.tmp.*' | grep -q . && bad "temporary files left by a complete run" || ok
rm -rf "$OUT/ref1" "$OUT/ref2" "$OUT/t" # 400 MB
finish
