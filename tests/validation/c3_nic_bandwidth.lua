-- C3 (validation/public.md): achievable bandwidth of one NIC: 400 Gb/s
-- ConnectX-7 (NDR) 46-48 GB/s; 200 Gb/s HDR about 24 GB/s.
-- Source: NVIDIA engineers in NVIDIA/nccl-tests issues 290 and 160.
--
-- Fit: these two figures set out_eff of the NDR (0.94) and HDR (0.96)
-- fabric generations (core/hw.c), shared by every system with those NICs.
-- Measured as podsim's send_recv between two GPUs in different domains
-- (ranks_per_domain = 1): one NIC each way, 1 GiB message.
local source = "NVIDIA/nccl-tests issues 290 and 160"
local bytes = 2 ^ 30

local ndr = podsim.collective(podsim.systems.hgx_h100, "send_recv",
  {ranks = 2, ranks_per_domain = 1, bytes = bytes})
podsim.check{id = "C3", name = "one 400 Gb/s CX-7 NIC, send_recv 1 GiB",
  published = 47, value = ndr.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
  fit = true, source = source .. " (46-48 GB/s; midpoint)"}

local hdr = podsim.collective(podsim.systems.dgx_a100, "send_recv",
  {ranks = 2, ranks_per_domain = 1, bytes = bytes})
podsim.check{id = "C3", name = "one 200 Gb/s HDR NIC, send_recv 1 GiB",
  published = 24, value = hdr.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
  fit = true, source = source}
