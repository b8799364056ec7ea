-- C13: SHARP (in-network reduction) all_reduce on 64 H100 (8 nodes of 8,
-- 8x 400G NDR InfiniBand per node), NCCL 2.18.1 with NCCL_COLLNET_ENABLE=1
-- and NCCL_ALGO=COLLNETCHAIN, busbw 512 MiB to 8 GiB.  Source:
-- coreweave/nccl-tests README.md at commit fb4787c ("Update README with
-- H100 NCCL output": the output of the H100 SHARP job) and that job at the
-- same commit (mpi-operator/nccl-test-distributed-h100-64-sharp-las1-
-- mpijob.yaml: 64 ranks, the two NCCL settings above).
--
-- Prediction (nothing fitted): `collnet_chain` on `hgx_h100` with the
-- `ib_ndr_sharp` fabric.  A chain through the node's 8 GPUs carries S
-- each way twice on every NVLink (reduce up, broadcast down), so the run
-- is NVLink-bound at 2 S / 370.8 GB/s (NVLink4's NCCL rate): busbw
-- 2(n-1)/n x 370.8 / 2 = 365 GB/s, while the network side (S per node once,
-- the switches reduce) would allow twice that.  With CollNetDirect's
-- 2(r-1)/r S per link (podsim's `collnet` without NVLS) it would be 8-12%
-- high; with NVLS inside (`collnet` on the NVLS preset) 40% high.
-- Searched and not found (NVIDIA/nccl and NVIDIA/nccl-tests issues,
-- coreweave/nccl-tests, oracle-quickstart/oci-gpu-quickstarts,
-- NVIDIA/dgxc-benchmarking, web pages): nccl-tests tables with SHARP at
-- NCCL's default choice (NVLS+CollNet, CollNetDirect), on XDR, or on
-- GB200/GB300 racks.  So `collnet` (Direct / NVLS) stays unvalidated.
-- Tolerance: busbw within 15%.
local sys = podsim.system{base = "hgx_h100", fabric = "ib_ndr_sharp"}
local src = "coreweave/nccl-tests README.md (fb4787c), H100 SHARP job (NCCL 2.18.1, COLLNETCHAIN)"
for _, p in ipairs{{0.5, 356.01}, {1, 365.90}, {2, 380.73}, {4, 383.23}, {8, 386.56}} do
  local r = podsim.collective(sys, "all_reduce", {ranks = 64, bytes = p[1] * 2 ^ 30,
    algo = "collnet_chain"})
  podsim.check{id = "C13", name = string.format("64x H100 SHARP all_reduce (collnet_chain) busbw %s",
      podsim.fmt_bytes(p[1] * 2 ^ 30)),
    published = p[2], value = r.busbw_GBps, unit = "GB/s", tol_rel = 0.15, fit = false,
    source = src, note = "podsim algorithm: " .. r.algo}
end
