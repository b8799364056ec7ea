# Issue 13: reliability states its goodput-changing assumptions.  Without
# shrink= a run where failures find no spare says once (per process, with
# no figures, so the same whatever the threads) that it waits for repairs;
# stating shrink, or having spares enough, prints nothing.
source "$(dirname "$0")/lib.bash"
set -e
scenario wait.lua <<'LUA'
local base = {system = "hgx_h100", gpus = 1024, failures = "llama3_h100", spares = "none",
  repair_h = 24, checkpoint = {write_s = 30}, restart_s = 600, hours = 100}
local a = podsim.reliability(base)
base.seed = 1
local b = podsim.simulate_run(base)
print(string.format("goodput %.3f %.3f", a.goodput, b.goodput))
LUA
run "$PODSIM" run "$OUT/wait.lua" --quiet --out "$OUT/o1"
expect_rc 0 "runs"; expect_out 'goodput' "prints results"
expect_err '^podsim.reliability: note: shrink not given, so a hardware failure that finds no free spare waits for its repair' "states the assumption"
expect_lines_err 1 "once per process"
scenario stated.lua <<'LUA'
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, failures = "llama3_h100", spares = "none",
  shrink = false, repair_h = 24, checkpoint = {write_s = 30}, restart_s = 600, hours = 100}
local p = podsim.reliability{system = "hgx_h100", gpus = 1024, failures = "llama3_h100",
  spares = {pool = 8, swap_s = 300}, repair_h = 24, checkpoint = {write_s = 30}, restart_s = 600, hours = 100}
print(r.goodput < p.goodput)
LUA
run "$PODSIM" run "$OUT/stated.lua" --quiet --out "$OUT/o2"
expect_rc 0 "runs"; expect_out 'true' "spares help"
expect_no_err "shrink stated, or no failure finds the pool empty"
finish
