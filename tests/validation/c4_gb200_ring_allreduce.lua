-- C4 (validation/public.md): 4x GB200 in one VM (one NVL72 NVLink domain),
-- ring all_reduce, in-place busbw by size.
-- Source: Azure/AI-benchmarking-guide, ND GB200 v6 results.
--
-- Prediction: NVLink5's achievable rate is the one fitted on a multi-node
-- NVLink all-to-all (C12: 37.1 GB/s x 18 links; NCCL's topology figure
-- SM100_NVLINK_BW 40.1 put these rows 6-9% high); latencies and the LL
-- cap are NCCL's tuning tables; the half size is the shared one fitted on
-- C1.
-- Tolerances: busbw within 15% at 128 MiB and above, times within 30% below.
local sys = podsim.systems.gb200_nvl72
local n = 4
local factor = 2 * (n - 1) / n
local source = "Azure/AI-benchmarking-guide, ND GB200 v6"
local MiB = 2 ^ 20

local points = {
  {MiB, 80.5}, {16 * MiB, 331.1}, {128 * MiB, 574.2},
  {1024 * MiB, 646.9}, {8192 * MiB, 679.6},
}
for _, p in ipairs(points) do
  local bytes, busbw = p[1], p[2]
  local r = podsim.collective(sys, "all_reduce", {ranks = n, bytes = bytes, algo = "ring"})
  if bytes >= 128 * MiB then
    podsim.check{id = "C4", name = "4x GB200 ring all_reduce busbw " .. podsim.fmt_bytes(bytes),
      published = busbw, value = r.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
      fit = false, source = source}
  else
    local published_us = bytes / (busbw / factor * 1e9) * 1e6
    podsim.check{id = "C4", name = "4x GB200 ring all_reduce time " .. podsim.fmt_bytes(bytes),
      published = published_us, value = r.time_s * 1e6, unit = "us", tol_rel = 0.30,
      fit = false, source = source .. " (time = S / (busbw / 1.5))"}
  end
end
