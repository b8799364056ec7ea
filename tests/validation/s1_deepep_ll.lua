-- S1 (issue 14): DeepEP low-latency dispatch and combine on H800, the
-- kernels a decode step runs for every MoE layer.  Source: deepseek-ai/
-- DeepEP README (legacy V1 performance table, "Low-latency kernels with
-- pure RDMA"): H800, one CX7 400 Gb/s NIC per GPU, 128 tokens per rank,
-- hidden 7168, top-8 experts, fp8 dispatch (one fp32 scale per 128
-- elements), bf16 combine; latency in microseconds.
--
-- podsim (core/serve.c, pod_serve_ep_time): one copy per expert, sent
-- at once to all peers, NVLink to the peers in the node and the NIC to
-- the others in parallel, plus a fixed cost ep_ll_us.  ep_ll_us = 34 us
-- is FITTED on the EP32 dispatch row (marked fit = true); the nine other
-- rows are predictions.  EP8 is left out: the table's EP8 run disables
-- NVLink peer access (pure RDMA) on one node, a path podsim does not
-- model.  Tolerance 15%.
local sys = podsim.systems.hgx_h800
local source = "deepseek-ai/DeepEP README (V1 low-latency table)"
local published = {
  [16] = {118, 195}, [32] = {155, 273}, [64] = {173, 314},
  [128] = {192, 369}, [256] = {194, 360},
}
for _, ep in ipairs{16, 32, 64, 128, 256} do
  local d = podsim.ep_time{system = sys, ranks = ep, tokens = 128, hidden = 7168, top_k = 8,
    bytes_per_elem = 1 + 4 / 128, kernel = "deepep_ll"}
  local c = podsim.ep_time{system = sys, ranks = ep, tokens = 128, hidden = 7168, top_k = 8,
    bytes_per_elem = 2, kernel = "deepep_ll"}
  podsim.check{id = "S1", name = string.format("DeepEP LL dispatch EP%d on H800 (us)", ep),
    published = published[ep][1], value = d * 1e6, unit = "us", tol_rel = 0.15,
    fit = ep == 32, source = source}
  podsim.check{id = "S1", name = string.format("DeepEP LL combine EP%d on H800 (us)", ep),
    published = published[ep][2], value = c * 1e6, unit = "us", tol_rel = 0.15,
    fit = false, source = source}
end

-- DeepEP's NVLink path for low-latency kernels (deepseek-ai/DeepEP PR
-- #173, "LL nvlink p2p", H20: 8 GPUs per node on NVLink 900 GB/s, one
-- 400 Gb/s NIC per GPU; 128 tokens, hidden 7168, top-8, fp8 dispatch,
-- bf16 combine; latency after the change, us).  EP8 stays on NVLink: its
-- fixed cost ep_ll_up_us = 19 us is FITTED on the EP8 dispatch row; EP8
-- combine and EP16-EP64 (NVLink to the node, the NIC across, fixed cost
-- ep_ll_us from the H800 fit above) are predictions.
local h20 = podsim.system{base = "hgx_h100", name = "hgx_h20",
  gpu = {base = "h100", name = "h20", bf16_tflops = 148, fp8_tflops = 296, hbm_gb = 96,
    hbm_TBps = 4.0, power_w = 400}}
local pr = {[8] = {37, 59}, [16] = {119, 199}, [32] = {157, 280}, [64] = {176, 318}}
local src173 = "deepseek-ai/DeepEP PR #173 (H20)"
for _, ep in ipairs{8, 16, 32, 64} do
  local d = podsim.ep_time{system = h20, ranks = ep, tokens = 128, hidden = 7168, top_k = 8,
    bytes_per_elem = 1 + 4 / 128, kernel = "deepep_ll"}
  local c = podsim.ep_time{system = h20, ranks = ep, tokens = 128, hidden = 7168, top_k = 8,
    bytes_per_elem = 2, kernel = "deepep_ll"}
  podsim.check{id = "S1", name = string.format("DeepEP LL+NVLink dispatch EP%d on H20 (us)", ep),
    published = pr[ep][1], value = d * 1e6, unit = "us", tol_rel = 0.15, fit = ep == 8,
    source = src173}
  podsim.check{id = "S1", name = string.format("DeepEP LL+NVLink combine EP%d on H20 (us)", ep),
    published = pr[ep][2], value = c * 1e6, unit = "us", tol_rel = 0.15, fit = false,
    source = src173}
end

-- DeepEP's low-latency kernels on GB200 NVL72, the decode path of S4:
-- deepseek-ai/DeepEP PR #385 ("Speed up dispatch send by refining loop
-- unrolling", 2025-08-30, by an author of the SGLang GB200 blogs, for the
-- "768 tok 48 rank nvfp4 pure nvlink case"): kernel times in us of the
-- send (a) and receive (b) halves of each call (SGLang runs them with
-- the receive hook), baseline rows, nvfp4 dispatch (0.5 B per element
-- plus one fp8 scale per 16), bf16 combine, all peers in the NVLink
-- domain.  podsim compares a + b (the midpoints of the published ranges)
-- with one call.  The combine rows are predictions (ep_ll_up_us keeps
-- the H20 fit) and agree within 7%.
-- The dispatch: the measured send grows 0.126 us per token, podsim's
-- NVLink bytes only 0.047 (4 KB per copy), while its fixed part (about
-- 21 us from the 128- and 768-token rows) matches ep_ll_up_us.  The
-- kernel casts each token to NVFP4 inside the send (LMSYS 2025-09-25,
-- "Fusing NVFP4 in DeepEP"; deepseek-ai/DeepEP internode_ll.cu, the NVFP4
-- dispatch of PR #341): its ceil(E / ceil(E / 148)) = 144 blocks (288
-- experts, DeepEP's launch rule) take tokens one at a time, each cast by
-- the block's warps, a barrier, then its eight copies issued before the
-- next token's cast (core/serve_ep.c).  podsim adds ceil(tokens / 144)
-- casts of ep_cast_us each to the bytes-bound send: ep_cast_us = 10.4 us
-- is FITTED on the 768-token row (6 per block, marked fit = true); the two
-- 128-token rows (one per block) are predictions.  The fp8 rows above
-- (H800, H20: 1-2 tokens per block) leave no room for more than about
-- 1 us per token in the fp8 cast, so the cast cost is NVFP4's only
-- (podsim.serve applies it with dtype "fp4").  Before (bytes only):
-- -21%, -32%, -53%.
local gb = podsim.systems.gb200_nvl72
local src385 = "deepseek-ai/DeepEP PR #385 (GB200 NVL72, nvfp4)"
local rows385 = {
  {tokens = 128, ranks = 4, disp = 22.5 + 7.5, comb = 28.5 + 9.5},
  {tokens = 128, ranks = 48, disp = 29.5 + 7.5, comb = 33 + 9.5},
  {tokens = 768, ranks = 48, disp = 99 + 18.5, comb = 134 + 21},
}
local nvfp4 = 0.5 + 1 / 16
-- the serving default of the NVFP4 cast (the config's ep_cast_us)
local cast_us = podsim.serve{system = gb, model = "deepseek_v3", gpus = 48,
  parallel = {tp = 1, ep = 48}, batch = 48, dtype = "fp4", redundant_experts = 32}
  .config.ep_cast_us
for _, r in ipairs(rows385) do
  local d = podsim.ep_time{system = gb, ranks = r.ranks, tokens = r.tokens, hidden = 7168,
    top_k = 8, bytes_per_elem = nvfp4, kernel = "deepep_ll", experts = 288,
    cast_us = cast_us}
  local c = podsim.ep_time{system = gb, ranks = r.ranks, tokens = r.tokens, hidden = 7168,
    top_k = 8, bytes_per_elem = 2, kernel = "deepep_ll"}
  podsim.check{id = "S1",
    name = string.format("DeepEP LL nvfp4 dispatch EP%d %d tok on GB200 (us)", r.ranks, r.tokens),
    published = r.disp, value = d * 1e6, unit = "us", tol_rel = 0.15,
    fit = r.tokens == 768, source = src385}
  podsim.check{id = "S1",
    name = string.format("DeepEP LL combine EP%d %d tok on GB200 (us)", r.ranks, r.tokens),
    published = r.comb, value = c * 1e6, unit = "us", tol_rel = 0.15, fit = false,
    source = src385}
end
