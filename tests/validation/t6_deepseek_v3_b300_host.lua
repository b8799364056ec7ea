-- T6, second Blackwell fit: DeepSeek-V3 on 256 DGX-B300 (8-GPU nodes),
-- Megatron-Bridge 26.04 table (NVIDIA-NeMo/Megatron-Bridge docs/
-- performance-summary-archive.md, "26.04 NeMo Container"): MXFP8, GBS
-- 4096, MBS 1, seq 4096, TP1 PP16 EP8: 3,131 tokens/s/GPU.  Recipe at
-- v0.4.0 (DEEPSEEK_V3_PRETRAIN_CONFIG_B300_V2 = B300_V1 with GBS 4096):
-- pipeline 16, expert parallel 8, recompute_modules ["mla_up_proj"],
-- moe_flex_dispatcher_backend "hybridep", moe_a2a_overlap False, no CUDA
-- graphs (cuda_graph_impl unset), no fused grouped MLP.
-- Fit: this row sets the exposed host time per local expert of an eager
-- MoE layer (train.c, HOST_EXPERT_US): with 32 local experts and 976
-- layer passes per step the eager launches are a fifth of the step.  The
-- same release's GB300, GB200 and B200 rows (T10) and the 26.06 rows
-- (T9) are predictions of it.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.04)"
local r = podsim.train{system = "hgx_b300", model = "deepseek_v3", gpus = 256, seq = 4096,
  global_batch = 4096, dtype = "fp8", fp8_recipe = "block", software = "megatron_bridge_26_04",
  parallel = {tp = 1, pp = 16, ep = 8, microbatch = 1, uneven = true,
    recompute_modules = {mla_up_proj = true}}}
assert(r.fits, "the published layout must fit in podsim's memory model")
podsim.check{id = "T6", name = "DeepSeek-V3 DGX-B300 256 GPUs tokens/s/GPU (26.04)", published = 3131,
  value = r.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = true, source = src}
