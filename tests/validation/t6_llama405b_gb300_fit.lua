-- T6, third Blackwell fit: Llama 3.1 405B on 256 GB300 NVL72 GPUs, FP8 (per-tensor current
-- scaling, Megatron-Bridge "fp8_cs": bf16_with_fp8_current_scaling_mixed,
-- fp8_param_gather True, first/last layers not in bf16), GBS 1536, MBS 1,
-- seq 8192, TP4 PP8 CP1 VP4: 1,048 tokens/s/GPU, 2,646 TFLOP/s/GPU.
-- NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md ("26.06
-- NeMo Container"); recipe at v0.5.0, scripts/performance/configs/llama/
-- llama31_workload_base_configs.py, LLAMA31_405B_PRETRAIN_CONFIG_GB300_
-- FP8_CS_V2 (no FSDP, no CPU offload, no recompute).  126 layers over PP8
-- x VP4 = 32 chunks of 4 slots, the embedding and the loss in the two
-- spare slots (uneven = true).
-- Fit: this row sets the dense Blackwell fp8 GEMM efficiency (train.c,
-- EFF_BLACKWELL_FP8); the other systems of the table are T11 (predictions).
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.06), recipe at v0.5.0"
local r = podsim.train{system = "gb300_nvl72", model = "llama3_405b", gpus = 256, seq = 8192,
  global_batch = 1536, dtype = "fp8", fp8_recipe = "current", software = "megatron_bridge_26_06",
  parallel = {tp = 4, pp = 8, vp = 4, uneven = true}}
assert(r.fits, "the published layout must fit in podsim's memory model")
podsim.check{id = "T6", name = "Llama 3.1 405B GB300 256 GPUs fp8 tokens/s/GPU (26.06)",
  published = 1048, value = r.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15,
  fit = true, source = src}
