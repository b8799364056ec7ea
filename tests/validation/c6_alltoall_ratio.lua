-- C6 (validation/public.md): a 64-GPU all-to-all inside one GB200 NVL72
-- NVLink domain against the same on an H100 cluster (8 nodes on
-- InfiniBand): about 18x faster.  Unconfirmed seed claim (seed 000, citing a
-- SemiAnalysis article of 2025-08-20); checked at 1 GiB in [13.5, 22.5]
-- (18 +- 25%).
--
-- Prediction (nothing fitted here).  The H100 side is bound by each GPU's
-- NIC carrying (n-r)/n of the buffer, with the path-collision term of the
-- scale-out fabric (core/coll.c: k = 7 peer nodes per NIC under static
-- routing keep 1 - (6/7)^7 = 66% of the NIC busy); the NVL72 side by NVLink5
-- at NCCL's achievable rate.
-- The figure may be a line-rate ratio: NVLink5's 900 GB/s per GPU over a
-- 400G NIC's 50 GB/s is 18, the ratio SemiAnalysis gives as 18x for EP
-- all-to-all in a later post (inferencex.semianalysis.com, GB200 NVL72
-- against B200 disaggregated DeepSeek-R1).  If so this row checks line
-- rates, not the fabric's routing: without the collision term podsim
-- gives 12.6x (see docs/validation.md, C6).  The row bounds the H100
-- side's all-to-all rate per GPU NIC: 13.5x needs at most 43 GB/s, 18x
-- 32 GB/s, against 47 GB/s point to point (C3); the source names no
-- fabric.  T16's DGX-H100 MoE row bounds the same rate at 31-43 GB/s
-- (t16_qwen3_235b_26_04.lua): the static-ECMP term (7 peer nodes, 31
-- GB/s here) stands in for a loss of that size whose InfiniBand
-- mechanism is not found.
local source = "seed 000 (SemiAnalysis, 2025-08-20; unconfirmed)"
local bytes = 2 ^ 30

local nvl = podsim.collective(podsim.systems.gb200_nvl72, "all_to_all",
  {ranks = 64, ranks_per_domain = 64, bytes = bytes})
local h100 = podsim.collective(podsim.systems.hgx_h100, "all_to_all",
  {ranks = 64, ranks_per_domain = 8, bytes = bytes})
podsim.check{id = "C6", name = "64-GPU all_to_all 1 GiB: NVL72 speed-up over 8x HGX H100",
  published = 18, value = h100.time_s / nvl.time_s, unit = "x", range = {13.5, 22.5},
  fit = false, source = source}
