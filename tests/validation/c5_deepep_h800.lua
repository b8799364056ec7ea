-- C5 (validation/public.md): DeepEP normal kernels inside one H800 node
-- (about 160 GB/s NVLink per direction), EP8, 4096 tokens per rank, hidden
-- 7168, top-8 of 256 experts, fp8 dispatch, bf16 combine: 153 GB/s
-- dispatch, 158 GB/s combine.  Source: deepseek-ai/DeepEP, docs/legacy.md.
--
-- Prediction (nothing fitted here).  Dispatch and combine are an
-- all_to_all over the 8 GPUs.  Bytes per rank: DeepEP's test draws the
-- top-8 experts uniformly, so a token goes to each of the 8 ranks (32
-- experts each) with probability p = 1 - C(224,8)/C(256,8); a rank sends
-- each token once per destination rank.  fp8 dispatch carries one byte per
-- element plus a 4-byte scale per 128 elements; combine sends bf16.
-- DeepEP reports "NVLink bandwidth", i.e. the NVLink traffic rate, which is
-- nccl-tests' all_to_all busbw ((n-1)/n S / t: the 1/n a rank keeps does not
-- cross NVLink).  Note: DeepEP's script divides all received bytes,
-- including the kept 1/n, by the time; against that reading podsim's algbw
-- would be n/(n-1) higher.  Tolerance: 15%.
local sys = podsim.systems.hgx_h800
local source = "deepseek-ai/DeepEP docs/legacy.md"
local ranks, tokens, hidden, experts, topk = 8, 4096, 7168, 256, 8

local miss = 1.0
local per_rank = experts / ranks
for i = 0, topk - 1 do
  miss = miss * (experts - per_rank - i) / (experts - i)
end
local dest_ranks = ranks * (1 - miss)            -- expected ranks per token

local fp8_bytes = 1 + 4 / 128
local dispatch = tokens * dest_ranks * hidden * fp8_bytes
local combine = tokens * dest_ranks * hidden * 2

local d = podsim.collective(sys, "all_to_all", {ranks = ranks, bytes = dispatch})
podsim.check{id = "C5", name = "DeepEP EP8 dispatch (fp8) on H800, NVLink GB/s",
  published = 153, value = d.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
  fit = false, source = source}
local c = podsim.collective(sys, "all_to_all", {ranks = ranks, bytes = combine})
podsim.check{id = "C5", name = "DeepEP EP8 combine (bf16) on H800, NVLink GB/s",
  published = 158, value = c.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
  fit = false, source = source}
