-- C2 (validation/public.md): 8x H100, ring all_reduce and the other ring
-- collectives at large sizes: about 370 GB/s busbw (450 GB/s line rate per
-- direction less protocol overhead); all_gather saturates near 360.
-- Source: NCCL maintainers in NVIDIA/nccl-tests issues 212 and 326.
--
-- Prediction: NVLink4's achievable rate is NCCL's own topology figure
-- (src/graph/topo.h SM90_NVLINK_BW 20.6 GB/s per link x 18 links, core/hw.c),
-- not fitted on this row.  "Large sizes": 4 GiB, where nccl-tests tables
-- have saturated.  Tolerance: busbw within 15%.
local sys = podsim.systems.hgx_h100
local source = "NVIDIA/nccl-tests issues 212 and 326"
local bytes = 4 * 2 ^ 30

local cases = {
  {"all_reduce", 370},
  {"reduce_scatter", 370},
  {"all_gather", 360},
}
for _, c in ipairs(cases) do
  local r = podsim.collective(sys, c[1], {ranks = 8, bytes = bytes, algo = "ring"})
  podsim.check{id = "C2", name = "8x H100 ring " .. c[1] .. " busbw 4 GiB",
    published = c[2], value = r.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
    fit = false, source = source}
end
