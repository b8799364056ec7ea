-- C7: GB200 NVL72 all_reduce on one, two and twenty racks (72, 144 and
-- 1,440 GPUs, 72 per NVLink domain), NCCL 2.26.2 defaults (NVLS on, no
-- CollNet), out-of-place busbw by size.
-- Source: coreweave/nccl-tests README.md, "Expected Performance", GB200
-- (commit cb86553328f8c9ed6f9d682971f5f9b17a926ab4); the job scripts
-- (slurm/nccl-test-distributed-gb200-nvl72-enroot.slurm) set MNNVL and no
-- NCCL_COLLNET_ENABLE.
--
-- Fits: two rows of the twenty-rack curve.  16 GiB chose which of NCCL's
-- per-channel network constants holds for Blackwell with 400G NICs
-- (core/hw.c: net_channel_GBps = 24, NCCL's perChMaxTreeBws, not the 48
-- GB/s of its one-NIC-per-channel search speed).  1 GiB chose how a tree's
-- pipeline fills across domains: linearly in the domain count (every
-- domain on the tree holds its network channels' NCCL buffers, 16 x
-- NCCL_BUFFSIZE 4 MiB, before the tree streams; core/coll.c), not with the
-- tree depth; the constants are NCCL's, nothing numeric was fitted.  Every
-- other row is a prediction: one rack tests the scale-up fill growing with
-- the ring length (72 ranks, 24 channels: a 135 MiB half from the 80 KiB
-- per rank and channel fitted on C1); two racks the two-node rule (the
-- NVLS-tree's network traffic is S per domain, not 2S) and the tree fill
-- at d = 2.  Before channels were modelled podsim spread the rack's
-- traffic over its 72 NICs and predicted about twice the multi-rack busbw.
--
-- Algorithm: NCCL runs NVLS inside one NVLink domain (tuning.cc disables
-- NVLS across nodes without CollNet) and NVLSTree across racks: at two
-- racks the measured 810 GB/s is above anything a ring can reach through
-- its 16 network channels (NCCL's search: 16 x 48 = 768 GB/s per domain),
-- and at twenty racks a ring's 2(n-1) = 2,878 latency steps lose to the
-- tree's 2 log2(20).  Tolerance: busbw within 15% (public.md).
local nvl = podsim.systems.gb200_nvl72
local source = "coreweave/nccl-tests README.md (GB200, NCCL 2.26.2)"
local GiB = 2 ^ 30

local cases = {
  {racks = 1, algo = "nvls", points = {
    {0.5, 586.06}, {1, 681.17}, {2, 757.78}, {4, 839.16}, {8, 834.57}}},
  {racks = 2, algo = "nvls_tree", points = {
    {0.5, 493.94}, {1, 596.10}, {2, 680.30}, {4, 743.09}, {8, 793.06},
    {16, 810.41}}},
  {racks = 20, algo = "nvls_tree", points = {
    {0.5, 150.95}, {1, 218.85, "fit"}, {2, 286.52}, {4, 346.38},
    {8, 381.48}, {16, 405.74, "fit"}}},
}

for _, c in ipairs(cases) do
  local n = 72 * c.racks
  for _, p in ipairs(c.points) do
    local r = podsim.collective(nvl, "all_reduce", {ranks = n, ranks_per_domain = 72,
      bytes = p[1] * GiB})
    podsim.check{id = "C7", name = string.format("GB200 NVL72 %d rack%s all_reduce busbw %s",
        c.racks, c.racks > 1 and "s" or "", podsim.fmt_bytes(p[1] * GiB)),
      published = p[2], value = r.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
      fit = p[3] == "fit", source = source, note = "podsim algorithm: " .. r.algo}
  end
  local r = podsim.collective(nvl, "all_reduce", {ranks = n, ranks_per_domain = 72, bytes = 8 * GiB})
  podsim.check{id = "C7", name = string.format("GB200 NVL72 %d rack%s 8 GiB: auto picks NCCL's %s",
      c.racks, c.racks > 1 and "s" or "", c.algo),
    published = 1, value = r.algo == c.algo and 1 or 0, unit = "match", tol_abs = 0,
    fit = false, source = "NVIDIA/nccl src/graph/tuning.cc (5067397c); " .. source,
    note = "podsim algorithm: " .. r.algo}
end
