-- maverick_gb200_vs_h100.lua: Llama 4 Maverick pre-training on GB200 NVL72
-- against H100 (public.md T1, seed 000): where does the per-GPU gain come
-- from, part by part, and how much of the all-to-all advantage survives
-- end to end?
--
-- Configurations as published by NVIDIA (dgxc-benchmarking llama4, v25.05):
-- fp8, seq 8192, 1024 sequences per step; GB200: 128 GPUs, TP1 PP2 VP12
-- EP64; H100: 512 GPUs, TP4 EP128 ETP4.  Software as that release ran it
-- (NeMo 25.05, dgxc-benchmarking v25.05 llama4/launch.sh; validation case
-- T1): no CUDA graphs on GB200, Transformer Engine graphs of the layers on
-- H100, no A2A overlap, unfused experts, NCCL all-to-all on both.  Set
-- --set current_software=true to compare both on the Megatron-Bridge 26.06
-- release preset instead (full-iteration graphs, A2A overlap, fused
-- grouped MLP, HybridEP, fp8 parameters).  T1 reports podsim's GB200 rows
-- about 16% above that 2025 release (a known miss).
local current = podsim.args.current_software == true
local sw_gb = current and "megatron_bridge_26_06" or "none"
local sw_h = current and "megatron_bridge_26_06" or {base = "none", cuda_graphs = "partial"}
local common = {model = "llama4_maverick", seq = 8192, global_batch = 1024, dtype = "fp8"}
local function run(t)
  for k, v in pairs(common) do t[k] = t[k] or v end
  return podsim.train(t)
end
local gb = run{system = "gb200_nvl72", gpus = 128, software = sw_gb,
  parallel = {tp = 1, pp = 2, vp = 12, ep = 64}}
local h = run{system = "hgx_h100", gpus = 512, software = sw_h,
  parallel = {tp = 4, pp = 1, ep = 128, etp = 4}}
local tokens = common.global_batch * common.seq

print(string.format("Llama 4 Maverick, fp8: GB200 NVL72 %.0f vs H100 %.0f tokens/s/GPU (%.2fx; published 10,757 vs 4,251 = 2.53x)",
  gb.tokens_per_s_per_gpu, h.tokens_per_s_per_gpu, gb.tokens_per_s_per_gpu / h.tokens_per_s_per_gpu))
print(string.format("MFU %.1f%% of %g TF vs %.1f%% of %g TF (fp8 dense peaks)",
  100 * gb.mfu, gb.peak_tflops, 100 * h.mfu, h.peak_tflops))
print()

-- GPU-seconds per million tokens, part by part: the per-GPU cost of a
-- token.  The gain is the ratio of the totals; each part's saving is its
-- share of the difference.
local parts = {"compute", "tp", "cp", "ep", "pp", "dp", "bubble", "optimizer", "host", "straggler"}
local function gpus_per_mtok(r, gpus, part)
  return r.breakdown[part] * gpus / tokens * 1e6
end
local th = h.step_s * 512 / tokens * 1e6
local tg = gb.step_s * 128 / tokens * 1e6
local rows, csv = {}, {}
for _, p in ipairs(parts) do
  local a, b = gpus_per_mtok(h, 512, p), gpus_per_mtok(gb, 128, p)
  rows[#rows + 1] = {p, a, b, a - b, 100 * (a - b) / (th - tg)}
  csv[#csv + 1] = {part = p, h100_gpu_s_per_mtok = a, gb200_gpu_s_per_mtok = b,
    saved_gpu_s_per_mtok = a - b, share_of_gain_pct = 100 * (a - b) / (th - tg)}
end
rows[#rows + 1] = {"total", th, tg, th - tg, 100}
podsim.print_table({"part", "H100 GPU-s/Mtok", "GB200 GPU-s/Mtok", "saved", "share of gain %"}, rows)
print()

-- The collective-level advantage: one EP all-to-all of the dispatch size
-- (8192 tokens x top-1 x 5120 x 2 B per rank) on 64 GPUs, inside one NVL72
-- domain against 8 H100 nodes (public.md C6: ~18x, unconfirmed).
local bytes = 8192 * 1 * 5120 * 2
local a2a_gb = podsim.collective("gb200_nvl72", "all_to_all", {ranks = 64, bytes = bytes})
local a2a_h = podsim.collective("hgx_h100", "all_to_all", {ranks = 64, bytes = bytes, ranks_per_domain = 8})
print(string.format("64-GPU all-to-all of %s: NVL72 %.2f ms vs 8 H100 nodes %.2f ms (%.1fx)",
  podsim.fmt_bytes(bytes), 1e3 * a2a_gb.time_s, 1e3 * a2a_h.time_s, a2a_h.time_s / a2a_gb.time_s))
print(string.format("end to end per GPU: %.2fx; EP share of the H100 step: %.1f%%, of the GB200 step: %.1f%%",
  gb.tokens_per_s_per_gpu / h.tokens_per_s_per_gpu, 100 * h.breakdown.ep / h.step_s,
  100 * gb.breakdown.ep / gb.step_s))
print("(the rest of the gain is compute: ~2.5x the fp8 peak per GPU at GB200's sustained clock, with the software of the release compared)")

local out = podsim.write_csv("maverick_parts.csv", {"part", "h100_gpu_s_per_mtok",
  "gb200_gpu_s_per_mtok", "saved_gpu_s_per_mtok", "share_of_gain_pct"}, csv)
print("wrote " .. out)
