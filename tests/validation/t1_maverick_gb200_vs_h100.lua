-- T1 (public.md): Llama 4 Maverick, fp8, seq 8192, GBS 1024 sequences.
-- GB200 NVL72: 128 GPUs, TP1 PP2 VP12 EP64 DP64; H100: 512 GPUs, TP4 PP1
-- EP128 ETP4 DP128.  Published 10,757 vs 4,251 tokens/s/GPU (2.53x).
-- Source: NVIDIA/dgxc-benchmarking llama4/README.md (v25.05-25.07).
-- All three are predictions.  Blackwell software of that release is
-- modelled with eff_scale = 1/1.5: NVIDIA's published "software alone 1.5x
-- on the same hardware" (public.md T8), not a fit; the Hopper efficiency
-- was fitted on Llama 3.1 runs of the same release family (T4).
local src = "NVIDIA/dgxc-benchmarking llama4/README.md (v25.05-25.07)"
local gb = podsim.train{system = "gb200_nvl72", model = "llama4_maverick", gpus = 128,
  seq = 8192, global_batch = 1024, dtype = "fp8", eff_scale = 1 / 1.5,
  parallel = {tp = 1, pp = 2, vp = 12, ep = 64}}
local h = podsim.train{system = "hgx_h100", model = "llama4_maverick", gpus = 512,
  seq = 8192, global_batch = 1024, dtype = "fp8",
  parallel = {tp = 4, pp = 1, ep = 128, etp = 4}}
podsim.check{id = "T1", name = "Maverick GB200 128 GPUs fp8 tokens/s/GPU", published = 10757,
  value = gb.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T1", name = "Maverick H100 512 GPUs fp8 tokens/s/GPU", published = 4251,
  value = h.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T1", name = "Maverick GB200 over H100 per GPU", published = 10757 / 4251,
  value = gb.tokens_per_s_per_gpu / h.tokens_per_s_per_gpu, unit = "x", tol_rel = 0.15,
  fit = false, source = src .. "; seed 000"}
podsim.check{id = "T1", name = "Maverick GB200 step time", published = 6.093,
  value = gb.step_s, unit = "s", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T1", name = "Maverick H100 step time", published = 3.855,
  value = h.step_s, unit = "s", tol_rel = 0.15, fit = false, source = src}
