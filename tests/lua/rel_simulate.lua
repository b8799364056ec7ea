-- rel_simulate.lua: podsim.simulate_run, one stochastic training run.
local cfg = {system = "hgx_h100", gpus = 16384, failures = "llama3_h100",
             spares = {pool = 32, swap_s = 120}, repair_h = 48, checkpoint = {write_s = 20},
             restart_s = 300, hours = 54 * 24}
local function with(over)
  local t = {}
  for k, v in pairs(cfg) do t[k] = v end
  for k, v in pairs(over) do t[k] = v end
  return t
end

local a = podsim.simulate_run(with{seed = 1})
local b = podsim.simulate_run(with{seed = 1})
local c = podsim.simulate_run(with{seed = 2})
assert(a.wall_h == b.wall_h and a.interruptions == b.interruptions)
assert(a.wall_h ~= c.wall_h)
-- accounting: wall = work + checkpoints + lost + restarts/swaps + waiting
local sum = a.work_h + a.ckpt_h + a.lost_h + a.restart_h + a.wait_h
assert(math.abs(a.wall_h - sum) < 1e-9 * a.wall_h)
local n = 0
for cause, k in pairs(a.by_cause) do
  assert(type(cause) == "string" and k >= 0)
  n = n + k
end
assert(n == a.interruptions)
assert(a.by_cause.faulty_gpu > 0 and a.swaps + a.waits + a.by_cause.software_bug
       + a.by_cause.nccl_watchdog + a.by_cause.dependency == a.interruptions)
assert(a.gpus == 16384 and a.spare_gpus == 256 and a.spares_peak_gpus > 0)
-- every interruption costs at least the restart time
assert(a.restart_h >= a.interruptions * 300 / 3600)

-- The mean of many runs matches the analytic renewal expectation.
local runs, wall, intr = 300, 0, 0
for s = 1, runs do
  local r = podsim.simulate_run(with{seed = 100 + s})
  wall, intr = wall + r.wall_h, intr + r.interruptions
end
local an = podsim.reliability(cfg)
assert(math.abs(wall / runs - an.wall_h) < 0.01 * an.wall_h,
       string.format("sim %.2f vs analytic %.2f", wall / runs, an.wall_h))
assert(math.abs(intr / runs - an.interruptions) < 0.03 * an.interruptions)

-- No failures: wall time is the work plus the checkpoints.
local z = podsim.simulate_run(with{failures = {}, checkpoint = {write_s = 36, interval_s = 3600},
                                   hours = 100, seed = 0})
assert(z.interruptions == 0 and z.checkpoints == 99 and math.abs(z.wall_h - (100 + 99 * 0.01)) < 1e-9)

-- Spares exhausted: the job waits for repairs.
local w = podsim.simulate_run(with{spares = {pool = 0, swap_s = 120}, seed = 5, hours = 200})
assert(w.waits > 0 and w.wait_h > 0 and w.swaps == 0)
-- Shrinking: no waiting.
local s = podsim.simulate_run(with{spares = "none", shrink = true, seed = 5, hours = 200})
assert(s.waits == 0 and s.shrinks > 0 and s.wait_h == 0)
-- Lognormal repairs.
local l = podsim.simulate_run(with{repair = "lognormal", repair_sigma = 1, seed = 9})
assert(l.wall_h > l.work_h)
print("rel_simulate: ok")
