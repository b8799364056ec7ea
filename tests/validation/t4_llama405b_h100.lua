-- T4 (public.md): Llama 3.1 405B on H100, seq 8192, TP8 PP8 CP2 VP8,
-- GBS = GPUs / 2, at 512 / 1,024 / 2,048 GPUs: bf16 MFU 55.5 / 55.3 /
-- 55.2%; fp8 44.4 / 44.2 / 43.7% (step 12.37 / 12.42 / 12.56 s).  126
-- layers over PP8 x VP8 = 64 virtual stages: NeMo's uneven layout (the
-- embedding and the loss take the two spare slots), uneven = true.  MFU
-- convention as in T3 (full attention).
-- Fits: bf16 and fp8 at 512 GPUs set the Hopper GEMM efficiencies (the
-- fp8 step at 512 carries the same information).  1,024 and 2,048 are
-- predictions; the fp8 slope (three times bf16's in points) tests the
-- fp8 amax synchronisation fitted on T3 (delayed scaling, amax group
-- tp*cp*dp = 64 -> 256 ranks).
local src = "NVIDIA/dgxc-benchmarking llama3.1/README.md (v25.04)"
local function run(gpus, dtype)
  return podsim.train{system = "hgx_h100", model = "llama3_405b", gpus = gpus, seq = 8192,
    global_batch = gpus // 2, dtype = dtype, mfu_full_attn = true,
    parallel = {tp = 8, pp = 8, vp = 8, cp = 2, uneven = true}}
end
local pubs = {bf16 = {55.5, 55.3, 55.2}, fp8 = {44.4, 44.2, 43.7}}
local steps = {12.37, 12.42, 12.56}
local res = {}
for _, dtype in ipairs{"bf16", "fp8"} do
  res[dtype] = {}
  for i, gpus in ipairs{512, 1024, 2048} do
    local r = run(gpus, dtype)
    res[dtype][i] = r
    -- Case ids: the 512-GPU fits keep T4; the predictions are T13.
    podsim.check{id = gpus == 512 and "T4" or "T13",
      name = string.format("Llama 405B H100 %s MFU, %d GPUs", dtype, gpus),
      published = pubs[dtype][i], value = 100 * r.mfu, unit = "% MFU", tol_abs = 3,
      fit = gpus == 512, source = src}
    if dtype == "fp8" then
      podsim.check{id = gpus == 512 and "T4" or "T13",
        name = string.format("Llama 405B H100 fp8 step, %d GPUs", gpus),
        published = steps[i], value = r.step_s, unit = "s", tol_rel = 0.15,
        fit = gpus == 512, source = src}
    end
  end
end
local pub = 55.2 - 55.5
podsim.check{id = "T13", name = "Llama 405B bf16 MFU change 512->2048 (points)", published = pub,
  value = 100 * (res.bf16[3].mfu - res.bf16[1].mfu), unit = "points",
  range = {pub * 1.5, pub * 0.5}, fit = false, source = src}
pub = 43.7 - 44.4
podsim.check{id = "T13", name = "Llama 405B fp8 MFU change 512->2048 (points)", published = pub,
  value = 100 * (res.fp8[3].mfu - res.fp8[1].mfu), unit = "points",
  range = {pub * 1.5, pub * 0.5}, fit = false, source = src}
