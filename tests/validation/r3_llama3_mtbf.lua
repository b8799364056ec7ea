-- R3 (validation/public.md), derived from R1: one unexpected interruption
-- every 3.09 h on 16,384 H100, about 1.97e-5 per GPU-hour.
-- Fit: the preset's rates come from the same Table 5 counts.
local r = podsim.reliability{system = "hgx_h100", gpus = 16384, failures = "llama3_h100",
  spares = {pool = 32, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300,
  hours = 54 * 24}
assert(math.abs(r.per_gpu_hour - 1.97e-5) < 0.02 * 1.97e-5)
podsim.check{id = "R3", name = string.format(
    "Llama 3 job MTBF on 16,384 H100 (%.3g per GPU-hour)", r.per_gpu_hour),
  published = 3.09, value = r.job_mtbf_h, unit = "h", tol_rel = 0.02, fit = true,
  source = "derived from The Llama 3 Herd of Models, sec. 3.3.4"}
