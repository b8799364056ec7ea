-- R1 (validation/public.md): Llama 3 405B on 16,384 H100 over 54 days:
-- 419 unexpected interruptions, and over 90% effective training time.
local cfg = {system = "hgx_h100", gpus = 16384, failures = "llama3_h100",
  -- Assumed, plausible settings (not published): a 20 s checkpoint stall
  -- (asynchronous save), 5 min detection + restart + reload, 32 spare
  -- nodes covering 2-day repairs (swap time folded into the restart),
  -- Young's interval.
  spares = {pool = 32, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300,
  hours = 54 * 24}
local r = podsim.reliability(cfg)
-- Fit: the preset's per-cause rates come from Table 5 (R2), whose counts
-- add up to this row; the check covers the per-GPU/per-node/per-job
-- bookkeeping on the published footprint.
podsim.check{id = "R1", name = "Llama 3: unexpected interruptions in 54 days, 16,384 H100",
  published = 419, value = r.interruptions_per_day * 54, unit = "count", tol_rel = 0.02,
  fit = true, source = "The Llama 3 Herd of Models, sec. 3.3.4, Table 5"}
-- Prediction: effective training time under the assumed settings.
podsim.check{id = "R1", name = "Llama 3: effective training time (analytic, assumed C/R)",
  published = 0.90, value = r.goodput, unit = "fraction", range = {0.90, 1.0}, fit = false,
  source = "The Llama 3 Herd of Models, sec. 3.3.4"}
-- The simulated runs agree with the analytic expectation.
local sum, n = 0, 200
for s = 1, n do
  cfg.seed = s
  sum = sum + podsim.simulate_run(cfg).goodput
end
podsim.check{id = "R1", name = "Llama 3: effective training time (mean of 200 simulated runs)",
  published = 0.90, value = sum / n, unit = "fraction", range = {0.90, 1.0}, fit = false,
  source = "The Llama 3 Herd of Models, sec. 3.3.4"}
