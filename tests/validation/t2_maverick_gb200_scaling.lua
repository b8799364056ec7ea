-- T2 (public.md): Llama 4 Maverick on GB200 NVL72 at 256 and 512 GPUs,
-- same layout and global batch as T1 (DP grows): 10,530 and 10,365
-- tokens/s/GPU against 10,757 at 128.  Predictions (eff_scale = 1/1.5 as
-- in T1).  The decline comes from the model's mechanisms: fewer
-- micro-batches per pipeline (larger bubble share), DP traffic across more
-- racks, and the straggler term.
local src = "NVIDIA/dgxc-benchmarking llama4/README.md (v25.05-25.07)"
local function run(gpus)
  return podsim.train{system = "gb200_nvl72", model = "llama4_maverick", gpus = gpus,
    seq = 8192, global_batch = 1024, dtype = "fp8", eff_scale = 1 / 1.5,
    parallel = {tp = 1, pp = 2, vp = 12, ep = 64}}
end
local r128, r256, r512 = run(128), run(256), run(512)
podsim.check{id = "T2", name = "Maverick GB200 256 GPUs tokens/s/GPU", published = 10530,
  value = r256.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T2", name = "Maverick GB200 512 GPUs tokens/s/GPU", published = 10365,
  value = r512.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
-- Trend: published change 128 -> 512 is -3.64%; within half of it.
local pub = 10365 / 10757 - 1
local got = r512.tokens_per_s_per_gpu / r128.tokens_per_s_per_gpu - 1
podsim.check{id = "T2", name = "Maverick GB200 128->512 per-GPU change", published = pub,
  value = got, unit = "fraction", range = {pub * 1.5, pub * 0.5}, fit = false, source = src}
