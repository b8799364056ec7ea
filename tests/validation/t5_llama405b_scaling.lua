-- T5 (public.md, seed 000): Llama 3 405B on H100, 576 -> 2,304 GPUs with
-- global batch 252 -> 1,008 sequences of 8192: bf16 MFU 54.5% -> 54.2%.
-- The layout is not published: podsim.search picks the best layout that
-- fits at 576 GPUs, and the same layout with 4x the data parallelism runs
-- at 2,304.  MFU convention as in T3/T4 (full attention).  Predictions.
local src = "seed 000"
local base = {system = "hgx_h100", model = "llama3_405b", seq = 8192, dtype = "bf16",
  mfu_full_attn = true}
local function cfg(gpus, gbs, extra)
  local t = {gpus = gpus, global_batch = gbs}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(extra or {}) do t[k] = v end
  return t
end
local best = podsim.search(cfg(576, 252, {top = 1}))[1]
assert(best, "no layout fits")
local layout = {tp = best.tp, pp = best.pp, vp = best.vp, cp = best.cp,
  microbatch = best.microbatch, zero = best.zero, recompute = best.recompute,
  uneven = best.uneven}
local a = podsim.train(cfg(576, 252, {parallel = layout}))
local b = podsim.train(cfg(2304, 1008, {parallel = layout}))
podsim.check{id = "T5", name = "Llama 405B H100 bf16 MFU, 576 GPUs (searched layout)",
  published = 54.5, value = 100 * a.mfu, unit = "% MFU", tol_abs = 3, fit = false, source = src}
podsim.check{id = "T5", name = "Llama 405B H100 bf16 MFU, 2304 GPUs", published = 54.2,
  value = 100 * b.mfu, unit = "% MFU", tol_abs = 3, fit = false, source = src}
local pub = 54.2 - 54.5
podsim.check{id = "T5", name = "Llama 405B bf16 MFU change 576->2304 (points)", published = pub,
  value = 100 * (b.mfu - a.mfu), unit = "points", range = {pub * 1.5, pub * 0.5},
  fit = false, source = src}
