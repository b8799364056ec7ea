-- C1 (validation/public.md): 8x H100 SXM in one DGX node, all_reduce with
-- NCCL's default algorithm (NVLS at large sizes), out-of-place busbw by size.
-- Source: NVIDIA/dgxc-benchmarking, nccl/README.md.
--
-- Fit: two points of this curve set NVLink4 parameters shared by every
-- NVLink4 system (core/hw.c): nvls_eff from the 8 GiB point and the
-- pipeline half size (shared by every fabric) from the 16 MiB point.  The
-- other five points are predictions of the fitted curve.
-- Tolerances (public.md): busbw within 15% at 128 MiB and above; times of
-- smaller messages within 30% (the published time is S / algbw, algbw =
-- busbw / (2(n-1)/n)).
local sys = podsim.systems.hgx_h100
local n = 8
local factor = 2 * (n - 1) / n
local source = "NVIDIA/dgxc-benchmarking nccl/README.md"
local MiB = 2 ^ 20

local points = {
  {MiB, 67.0, false},
  {16 * MiB, 237.2, true},
  {128 * MiB, 400.5, false},
  {512 * MiB, 436.8, false},
  {1024 * MiB, 466.3, false},
  {4096 * MiB, 477.2, false},
  {8192 * MiB, 480.2, true},
}

for _, p in ipairs(points) do
  local bytes, busbw, fit = p[1], p[2], p[3]
  local r = podsim.collective(sys, "all_reduce", {ranks = n, bytes = bytes})
  if bytes >= 128 * MiB then
    podsim.check{id = "C1", name = "8x H100 all_reduce (auto) busbw " .. podsim.fmt_bytes(bytes),
      published = busbw, value = r.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
      fit = fit, source = source, note = "podsim algorithm: " .. r.algo}
  else
    local published_us = bytes / (busbw / factor * 1e9) * 1e6
    podsim.check{id = "C1", name = "8x H100 all_reduce (auto) time " .. podsim.fmt_bytes(bytes),
      published = published_us, value = r.time_s * 1e6, unit = "us", tol_rel = 0.30,
      fit = fit, source = source .. " (time = S / (busbw / 1.75))",
      note = "podsim algorithm: " .. r.algo}
  end
end
