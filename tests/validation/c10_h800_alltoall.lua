-- C10: all_to_all on 64 H800 GPUs (8 nodes of 8), 8 MiB buffer: 337.8 us
-- out-of-place.  Source: NVIDIA/nccl issue 1531 (nccl-tests alltoall_perf
-- table, 8 nodes).  The issue does not state the NICs; this case assumes
-- the hgx_h800 preset's one 400 Gb/s NDR NIC per GPU under static routing.
--
-- Prediction (nothing fitted here).  At 8 MiB each of the 63 peers gets
-- 128 KiB, one NCCL p2p network chunk: the time is 7 rounds of 8 network
-- peers (latency steps, one chunk of fill each) plus 56/64 of the buffer
-- through each GPU's NIC, its rate cut by static ECMP collisions among the
-- 7 peer nodes (core/coll.c).  Tolerance: small-message times within 30%
-- (public.md).
local r = podsim.collective(podsim.systems.hgx_h800, "all_to_all",
  {ranks = 64, ranks_per_domain = 8, bytes = 8 * 2 ^ 20})
podsim.check{id = "C10", name = "64x H800 (8 nodes) all_to_all time 8 MiB",
  published = 337.8, value = r.time_s * 1e6, unit = "us", tol_rel = 0.30,
  fit = false, source = "NVIDIA/nccl issue 1531 (NIC configuration assumed)",
  note = "podsim algorithm: " .. r.algo}
