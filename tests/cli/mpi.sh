# CLI tests of podsim run --mpi under mpirun (Open MPI): outputs and stdout
# byte-identical to one process for K = 1, 2, 3 ranks and 1 or 2 threads
# per rank, and K = 5 (the results forwarded down a tree of ranks); an evaluation error on another rank names the rank and the
# chunk; a killed rank fails the run naming it and the chunk it held, with
# no half-written file; SIGINT to mpirun leaves the partial results marked
# incomplete.  Skipped (passes) when podsim is built without MPI.
source "$(dirname "$0")/lib.bash"
set -e
run "$PODSIM" --version
if ! grep -q "MPI: built in" "$OUT/stdout" || ! command -v mpirun >/dev/null; then
  run "$PODSIM" run "$SRC/tests/cli/scale_case.lua" --mpi --out "$OUT/u"
  expect_rc 2 "--mpi without MPI is a usage error"; expect_err "without MPI" "says why"
  finish
  exit 0
fi
# Open MPI's components (dlopen'd, unloaded at MPI_Finalize) leave
# allocations LeakSanitizer reports from an unknown module; podsim's own
# leaks are covered by every other test, so leak checking is off here only
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
# containers often forbid the cross-memory attach Open MPI's shared-memory
# transport uses for large messages: copy through shared memory instead
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
cp "$SRC/tests/cli/scale_case.lua" "$OUT/case.lua"
# a temporary folder of this test's own (short: Open MPI puts its sockets
# there), to see that ranks > 0 remove their scratch folders
TMPDIR=$(mktemp -d -t pmt.XXXXXX)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT


run "$PODSIM" run "$OUT/case.lua" --threads 2 --max-samples-mb 1 --out "$OUT/ref"
expect_rc 0 "one process"
cp "$OUT/stdout" "$OUT/ref.stdout"
for k in 1 2 3 5; do
  for t in 1 2; do
    [ $k -eq 5 ] && [ $t -eq 2 ] && continue # 5 ranks: the state two levels down the tree
    run timeout 300 "${MPIRUN[@]}" -n $k "$PODSIM" run "$OUT/case.lua" --mpi --threads $t \
      --max-samples-mb 1 --out "$OUT/k${k}t$t"
    expect_rc 0 "$k ranks x $t threads"
    cmp -s "$OUT/ref.stdout" "$OUT/stdout" && ok || bad "$k ranks x $t threads: stdout differs"
    same_outputs "$OUT/ref" "$OUT/k${k}t$t" "$k ranks x $t threads"
  done
done
[ -z "$(find "$TMPDIR" -maxdepth 1 -name 'podsim-discard-*' 2>/dev/null)" ] \
  && ok || bad "ranks > 0 leave their scratch folders behind"

# an evaluation error: chunk 1 (grid point 2) fails on whichever rank runs
# it (grid point 1 keeps the other busy); the error names rank and chunk
scenario err.lua <<'LUA'
local s = podsim.study{name = "err", samples = 400, chunk_size = 200, grid = {g = {1, 2}},
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p)
    if p.g == 2 then error("bad sample") end
    local a = 0
    for i = 1, 3000 do a = a + math.sin(i * p.x) end
    return {y = a}
  end}
podsim.write(s:run())
LUA
run timeout 120 "${MPIRUN[@]}" -n 2 "$PODSIM" run "$OUT/err.lua" --mpi --threads 1 --out "$OUT/err"
[ "$RC" -ne 0 ] && ok || bad "an evaluation error fails the run"
expect_err "study 'err'.*bad sample.*\[rank [0-9]+, chunk 1\]" "names the error, the rank and the chunk"
[ ! -e "$OUT/err/err" ] && ok || bad "a failed run writes no results"

# after a failed study (caught), whose remote chunks were abandoned in
# flight, the next study still gets its own results on every rank
scenario recover.lua <<'LUA'
local function work(x) local a = 0 for i = 1, 3000 do a = a + math.sin(i * x) end return a end
local ok, err = pcall(function()
  return podsim.study{name = "fails", samples = 4000, chunk_size = 100,
    params = {x = podsim.dist.uniform{0, 1}},
    eval = function(p) if p.x > 0.9 then error("late failure") end return {y = work(p.x)} end}:run()
end)
assert(not ok and tostring(err):find("late failure"), tostring(err))
local r = podsim.study{name = "after", samples = 3000, chunk_size = 100, seed = 4,
  params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return {y = work(p.x)} end}:run()
print(string.format("%.17g %d", r.stats.y[1].mean, r.stats.y[1].n))
LUA
run "$PODSIM" run "$OUT/recover.lua" --threads 1 --quiet --out "$OUT/rec0"
expect_rc 0 "recover.lua in one process"
cp "$OUT/stdout" "$OUT/rec0.stdout"
run timeout 120 "${MPIRUN[@]}" -n 3 "$PODSIM" run "$OUT/recover.lua" --mpi --threads 2 --quiet --out "$OUT/rec3"
expect_rc 0 "recover.lua on 3 ranks"
cmp -s "$OUT/rec0.stdout" "$OUT/stdout" && ok || bad "the study after a failed one differs on 3 ranks"

# a study started and never waited for does not hold the end of the run
scenario nowait.lua <<'LUA'
podsim.study{name = "nw", samples = 3000, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = p.x} end}:start()
local r = podsim.study{name = "w", samples = 3000, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = p.x} end}:run()
print(r.stats.y[1].n)
LUA
run timeout 60 "${MPIRUN[@]}" -n 5 "$PODSIM" run "$OUT/nowait.lua" --mpi --threads 1 --quiet --out "$OUT/nw"
expect_rc 0 "a study never waited for"; expect_out "^3000" "the other study's results"

# a long study for the faults below
scenario long.lua <<'LUA'
local s = podsim.study{name = "long", samples = 400000, seed = 1, chunk_size = 200,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) local a = 0 for i = 1, 2000 do a = a + math.sin(i * p.x) end return {y = a} end}
podsim.write(s:run())
LUA
# started in the background; waits until rank R runs chunks; prints nothing
start_long() {
  "${MPIRUN[@]}" -n 3 "$PODSIM" run "$OUT/long.lua" --mpi --threads 1 --out "$OUT/$1" \
    >"$OUT/$1.out" 2>"$OUT/$1.err" &
  BG=$!
  sleep 3
}
rank_pid() { # PID of rank $1 of the long run
  local p
  for p in $(pgrep -f "podsim run $OUT/long.lua"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$p"
  done | head -n 1
}
# no file under its final name is half-written: meta.json, when there, is
# whole JSON and says the run is incomplete
check_whole() {
  if [ -f "$OUT/$1/long/meta.json" ]; then
    jq -e '.complete == false and .interrupted == true' "$OUT/$1/long/meta.json" >/dev/null \
      && ok || bad "$1: meta.json of a stopped run"
  else
    ok
  fi
  [ -z "$(find "$OUT/$1" -name '*.tmp.*' 2>/dev/null)" ] && ok || bad "$1: temporary files left"
}

start_long kill
pid=$(rank_pid 1)
[ -n "$pid" ] && kill -9 "$pid"
set +e; wait "$BG"; RC=$?; set -e
cp "$OUT/kill.err" "$OUT/stderr"; : >"$OUT/stdout"
[ "$RC" -ne 0 ] && ok || bad "a killed rank fails the run"
expect_err "rank 1 .*(exited on signal 9|killed)" "mpirun names the dead rank"
expect_err "chunks in flight:.* rank 1 chunk [0-9]+" "rank 0 names the chunk the rank held"
check_whole kill

start_long int
kill -INT "$(pgrep -x mpirun | head -n 1)"
set +e; wait "$BG"; RC=$?; set -e
cp "$OUT/int.err" "$OUT/stderr"; : >"$OUT/stdout"
[ "$RC" -ne 0 ] && ok || bad "an interrupted run does not exit 0"
[ -f "$OUT/int/long/summary.csv" ] && ok || bad "SIGINT: rank 0 writes the partial results"
check_whole int

# usage
run "$PODSIM" run "$OUT/case.lua" --mpi --shard 0/2 --out "$OUT/u"
expect_rc 2 "--mpi with --shard"
finish
