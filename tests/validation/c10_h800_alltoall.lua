-- C10: all_to_all on 64 H800 GPUs (8 nodes of 8), 8 MiB buffer: 337.8 us
-- out-of-place.  Source: NVIDIA/nccl issue 1531 (nccl-tests alltoall_perf
-- table, 8 nodes).  The issue does not state the NICs; this case assumes
-- the hgx_h800 preset's one 400 Gb/s NDR NIC per GPU under static routing.
--
-- Prediction (nothing fitted here).  At 8 MiB each of the 63 peers gets
-- 128 KiB, one NCCL p2p network chunk.  NCCL holds all 63 in flight: 16
-- p2p channels (the ring graph's 8, doubled), one channel per network
-- peer (2 x 64 > 4 x 16 halves NCCL's 2), 16 / 1 x 8 = 128 peers at once
-- (NVIDIA/nccl 2.28.7 ae7aed19 src/enqueue.cc:965, src/graph/paths.cc:846;
-- core/coll.c).  The time: NCCL's Simple base 8.4 us, one NVLink step 3.4
-- us, the network step or the proxy's 56 posts of 1 us, whichever is
-- longer (56 us), 56/64 of the buffer through each GPU's NIC at its rate
-- cut by static ECMP collisions among the 7 peer nodes (237 us), one 128
-- KiB chunk of fill (4 us): 309 us.  While podsim ran the 63 peers in 8
-- rounds one after another (7 network steps, 7 chunks of fill) it gave
-- 376 us (+11.3%).  Tolerance: small-message times within 30% (public.md).
local r = podsim.collective(podsim.systems.hgx_h800, "all_to_all",
  {ranks = 64, ranks_per_domain = 8, bytes = 8 * 2 ^ 20})
podsim.check{id = "C10", name = "64x H800 (8 nodes) all_to_all time 8 MiB",
  published = 337.8, value = r.time_s * 1e6, unit = "us", tol_rel = 0.30,
  fit = false, source = "NVIDIA/nccl issue 1531 (NIC configuration assumed)",
  note = "podsim algorithm: " .. r.algo}
