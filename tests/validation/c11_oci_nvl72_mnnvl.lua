-- C11 (predictions) and C12 (the fit): multi-node NVLink (GB200 / GB300 NVL72) and 8-GPU B300 nodes on one
-- cloud, NCCL defaults: all_reduce and all_to_all busbw at 4, 8 and 64
-- ranks inside one NVLink domain (1, 2 and 16 hosts of a rack) and across
-- two and three racks.  Source: oracle-quickstart/oci-gpu-quickstarts
-- (commit 6a0abdc), nvidia/GB300/README-GB300.md (NCCL 2.28.7, 2x 400G
-- RoCE per GPU), nvidia/GB200/README-GB200.md (NCCL 2.27.3, 1x 400G
-- InfiniBand per GPU), nvidia/B300/README-B300.md (NCCL 2.28.9, 2x 400G
-- RoCE per GPU); out-of-place busbw, the largest published sizes.  The
-- same rows are in tests/data/nccl/oci_*.csv for `podsim calibrate`.
--
-- Fits: two rows, under their own id C12 (at most a third of the case
-- ids hold a fit).  The what-if fabric of the GB300 2-rack all-to-all
-- (oversub, see the known misses below), and NVLink5's achievable rate (up_eff, core/hw.c) from the
-- GB300 all-to-all over 64 ranks on 16 hosts at 16 GiB: 0.742 of line
-- rate (NCCL's topology constant 40.1/50 = 0.802 over-predicted every
-- NVLink5 ring and all-to-all row by 5-17%).  Every other row is a
-- prediction: the other all-to-alls inside a domain (another cluster,
-- another GPU, 4 to 64 ranks), NVLS all-reduce (nvls_eff, NCCL's ratio
-- from the H100 fit, C1), NVLS-tree across racks (16 network channels at
-- 24 GB/s per 400G channel with NCCL's 128 KiB NVLS-tree chunk, half that
-- from four domains on, C7), all-to-all across racks.
-- The OCI GB300 and B300 NICs are 2x 400G ports per GPU (the published
-- NCCL_IB_HCA lists 8 HCAs per 4 GPUs), so those systems have two 400G
-- NICs per GPU at the 400G channel rate, not the presets' one 800G NIC.
--
-- Algorithm: auto chooses as NCCL's tuner does (core/coll_tune.c:
-- nvls_tuner_div inside a domain, NVIDIA/nccl 2.28.7 ae7aed19; across
-- domains NCCL 2.28.9 dbc86fd0's ratings of ring, tree and NVLS-tree,
-- src/graph/search.cc and tuning.cc).  NCCL's NVLS graph has one channel per head, min(n, 32)
-- heads, each at most the search's top per-channel speed (90 GB/s on
-- Blackwell); at 4 ranks the tuner rates NVLS at 4 x 90 = 360 GB/s
-- against the ring's 720 and runs the ring, from 8 ranks NVLS (8 x 90 =
-- 720, ahead on latency; 32 heads at 64 ranks: 917).  NCCL 2.27.3 (the
-- GB200 runs) rates NVLS differently (channels x min(bwIntra, bwInter) x
-- 5/6 algbw) and picks the same.  The 4-rank rows are the ring's (they
-- were +22% / +26% while podsim ran NVLS there).
-- Across racks NCCL runs NVLSTree.  NCCL 2.27.3 (72d24320, the GB200
-- rows), by hand through src/graph/search.cc and tuning.cc for a 64-GPU
-- MNNVL clique with 64 NICs: the NVLS graph takes 32 heads, one GPU and
-- NIC each, at bwIntra 20 and bwInter 40 GB/s, rated 32 x 20 x 5/6 = 533
-- GB/s at two and at three nodes; the ring graph 16 channels x 45 GB/s,
-- rated 720 x n / 2(n-1) = 362; the tree at most 331.  auto must pick
-- nvls_tree at 2 and 3 racks (checked below).  podsim rates with 2.28.9's
-- formula (the same graphs: 32 x 20 x 0.74 x 2 x 31/32 = 917.6 busbw,
-- 462 algbw at two racks, against the ring's 362): the same choice.
-- GB200 3 racks all_reduce (a known miss at -34% before the NVLS-tree
-- chunk rule; now a prediction): NCCL's NVLSTree over three domains runs
-- the tree's two chains of three (src/graph/connect.cc, connectNvls with
-- ncclGetDtree), so a rack moves 1.5 S, and any double tree over three
-- domains at least 4/3 S; the measured algbw 376 is the two-rack one (403
-- at 1 S), so a rack's network is not what binds: the tree crosses the
-- NICs of 32 NVLS heads (1.5 TB/s per rack).  What binds at two and three
-- racks is the channels' stage at NCCL's 128 KiB NVLS-tree chunk
-- (NCCL_NVLS_CHUNKSIZE), which NCCL halves to 64 KiB from four nodes on
-- (src/enqueue.cc, NCCL_NVLSTREE_MAX_CHUNKSIZE unset): C7's 20 racks
-- (algbw 203) run at half the two-rack rate for that reason, not because
-- a rack moves 2 S (core/coll.c, NVLS-tree).
-- Known misses, each with its mechanism or what is missing:
--   GB200 3 racks all_to_all: 41.9 GB/s per GPU on the network, 0.93 of
--   the 2-rack figure (45.2).  Static-ECMP collisions between two peer
--   racks cost podsim 25%, no collisions would give +12%.  The rows ran on
--   OCI's InfiniBand shape (the 2.27.3 commands name 4 HCAs per 4 GPUs,
--   BM.GPU.GB200.4: 4 x 400G InfiniBand; the RoCE shape is GB200-v3).
--   What the README gives of its fabric: ib_write_lat 1.8-1.9 us inside a
--   rack and 3.15-3.25 us across racks, so a rack's NICs share switches
--   and traffic between racks climbs a tier above them: at two and at
--   three racks every network byte of the all-to-all crosses that tier,
--   the same load per NIC, so a tier alone cannot tell 2 from 3 racks.
--   The one all-to-all command it prints (2 hosts, the 2.27.3-era stack)
--   sets NCCL_P2P_NET_CHUNKSIZE=512 KiB and no NCCL_IB_QPS_PER_CONNECTION
--   (NCCL's default, one QP per connection); the rack rows print none.
--   InfiniBand has no flow hashing: its subnet manager (ftree, updn,
--   minhop) writes one output port per destination LID in every switch,
--   and d-mod-k routing on a full fat tree carries NCCL's shift-ordered
--   p2p rounds without collisions at any rack count, which is the +12%.
--   NCCL 2.27.3's p2p channels (72d24320, src/graph/paths.cc and
--   src/include/channel.h): one channel per network peer at 128 and 192
--   ranks (2 x n > 4 x p2pnChannels halves NCCL's 2), round i on channel
--   8 x (i / 64) + (i mod 64) / 8, so the peers one domain away use 8
--   channels and those two away 8 more: the network gets 8 channels at
--   two racks and 16 at three, and NCCL's channels do not slow the 3-rack
--   row either.  What remains is not found: dropping the
--   collision term for InfiniBand passes this row (+12.1%) but takes C10
--   to -32.9% (out of its 30% since podsim holds NCCL's peers in flight
--   at once; -15.5% with rounds of 8 one after another), C6 to 12.6x
--   (range 13.5-22.5) and T16 DGX-H100 to +25.2%, its NVL72-over-H100
--   ratios to -22.2% and -23.8% (+38.6%, -31% and -35% while the EP
--   dispatch was charged in fp8; Megatron sends it in bf16, see
--   t16_qwen3_235b_26_04.lua): the term is what holds the Hopper
--   all-to-all rows, whose fabrics (DGX SuperPOD: rail-optimized,
--   PXN keeps an EP all-to-all in its rail leaves, 32 nodes a unit) have
--   no collision mechanism either (see docs/validation.md, C6 and C11).
--   Searched (issue 11): what InfiniBand static routing costs an all-to-all.
--   Random placement (Hoefler, Schneider, Lumsdaine, "Multistage switches
--   are not crossbars", IEEE Cluster 2008: effective bisection bandwidth
--   55-60% on full-bisection static-routed fat trees; 38% on a 512-node
--   statically routed Clos, Geoffray and Hoefler, Hot Interconnects 2008)
--   would cost the two-rack row, whose every network byte crosses the tier,
--   about 0.55-0.6 (busbw about 53, -40%): the row runs at 0.96 of the
--   NIC, so OCI's LIDs are in order, where ftree routing carries shift
--   all-to-all rounds contention-free (Zahavi, Johnson, Kerbyson, Lang,
--   Concurrency Computat., 2010), at three racks as at two: +12.1%
--   here, C10 -32.9% (out of its 30%).  A DGX H100 SuperPOD (rail-optimized,
--   PXN) keeps C6's 8 nodes and T16's 4-node EP32 inside one rail leaf
--   of a 32-node unit: a static route has no choice to make there, loss
--   0, and C6 goes to 12.57x, T16 DGX-H100 to +25.2%, its GB300 and GB200
--   over-H100 ratios to -22.2% and -23.8% (podsim with the IB presets at
--   routing "adaptive").  No routing mechanism gives the H100 rows the
--   0.66-0.74 they need, so the term stays and this row misses.
--   Receiver contention (any routing) gives the term's numbers: rounds out
--   of step send a port's 8 flows in flight to random peer racks, a GPU's
--   round waits for its slowest flow, share 0.74 / 0.71 / 0.67 at 3 / 4 /
--   8 domains (0.75 / 0.70 / 0.66 now), so it cannot pass this row (-17%)
--   while holding C6 and T16; the measured 0.93 says these nccl-tests
--   rounds stay nearly in step (docs/design.md 4).
--   GB300 2 racks all_to_all: 47.7 GB/s, 24 GB/s per GPU on the network:
--   a quarter of its two 400G NICs and half of the GB200 cluster's
--   one-NIC figure (45 GB/s), while the same cluster's 2-rack all-reduce
--   runs at the full rate of NCCL's 16 channels (738 GB/s, +1.6%).  The
--   data fit one mechanism: a cross-rack capacity of a quarter of the
--   rack's NIC rate (64 x 100 GB/s / 4 = 1.6 TB/s), which binds an
--   all-to-all (every NIC at once) but not a ring or tree collective
--   (16 channels x 24 GB/s = 384 GB/s per rack, core/coll.c leaf_use).
--   The OCI fabric between racks is not published (the README gives the
--   NICs, NCCL_IB_HCA with 8 HCAs per 4 GPUs, NCCL_IB_QPS_PER_CONNECTION=4,
--   NCCL_IB_SPLIT_DATA_ON_QPS=0, NCCL_BUFFSIZE=16 MiB, RoCE (GID index 3,
--   traffic class 41), and no topology), so podsim's default
--   (non-blocking) stays the prediction and the miss stays.  NCCL's own
--   NIC choice is ruled out (2.28.7 ae7aed19, the same code in 2.28.9,
--   which runs the B300 2-node row at both NICs' rate, 96.5 GB/s per
--   GPU): a network peer gets max(netCountByBw, 2 halved while
--   2 x n > 4 x p2pnChannels) channels (src/graph/paths.cc
--   ncclTopoGetNchannels), netCountByBw = 2 when one 50 GB/s port is
--   below the GPU's bandwidth; a message above one step takes both
--   (src/enqueue.cc addP2pToPlan); channel c sends on the GPU's NIC
--   c mod 2 (src/graph/topo.cc ncclTopoGetLocalNet), PXN on the GPU of
--   the peer's index (src/graph/search.cc ncclTopoGetNetDev): both ports,
--   rail-aligned.  Were netCountByBw 1, a peer's one channel would be
--   reverseBits(round / 8, the round's epoch) (src/include/channel.h),
--   even for every epoch below p2pnChannels / 2, and one port would carry
--   all of a GPU's network traffic: half the rate (93 GB/s), still not a
--   quarter.  NCCL's default NIC fusion (NCCL_NET_MERGE_LEVEL = PORT,
--   src/graph/topo.cc) may instead show a ConnectX-8's two ports as one
--   800G device whose connections stripe over both: both ports either way.  Searched
--   before: OCI's Acceleron multiplanar network (OCI blogs, 2025-26) fans
--   each NIC out into several
--   independent planes, the NIC choosing the plane per flow and an
--   in-order RDMA flow staying on one; a flow pinned to one of four planes
--   of an 800G NIC would run at a quarter of it, but which clusters use
--   it, with how many planes, is not published.
--   Searched (issue 11): per-QP static ECMP on RoCE.  The GB300 and B300
--   shapes are RoCE (README shape table "RDMA (ROCe) NICs", GID index 3,
--   traffic class 41; the systems below say so, transport = "roce", a
--   label), and RoCE ECMP hashes every QP (its UDP source port) onto an
--   uplink independently.  Model: F flows per 400G port, each asking c/F;
--   L uplinks per leaf (non-blocking); the round's flows hashed uniformly;
--   the synchronised p2p round runs at the pace of the most loaded of the
--   B hashed links it crosses, slowdown E[max_j X_j] / F with X_j ~
--   Bin(F L, 1/L) (balls into bins: Raab and Steger, RANDOM 1998, m/n +
--   sqrt(2 (m/n) ln n) for m >> n, ln n / ln ln n at m = n; computed as
--   sum_k 1 - P(X <= k)^B, bins treated as independent: 4.35 at F = 1,
--   L = B = 128 against the exact multinomial 4.38).  Slowdowns for L, B =
--   64, 64 / 64, 256 / 64, 512 / 128, 128 / 128, 512:
--     F = 1: 3.91 4.70 5.08 4.35 5.12     F = 8:  1.91 2.12 2.22 2.02 2.23
--     F = 2: 2.96 3.46 3.70 3.23 3.72     F = 16: 1.63 1.77 1.83 1.70 1.84
--     F = 4: 2.33 2.65 2.80 2.50 2.82     F = 32: 1.43 1.53 1.57 1.49 1.58
--   The row needs 3.40-4.60 (podsim's busbw is 186.2 / slowdown: 1.485
--   gives 125.5), so F = 1, or F = 2 with 256+ links.  NCCL's flows per
--   port: 8 peers in flight (NCCL_MAX_DEV_WORK_P2P_PER_BATCH, device.h),
--   2 channels per peer, one on each port, 4 QPs per connection, and with
--   NCCL_IB_SPLIT_DATA_ON_QPS=0 each request on one QP, the QPs in turn
--   (5067397c src/transport/net_ib/common.h, ncclIbCommBaseGetNqpsPerRequest;
--   NCCL_STEPS requests in flight keep all four busy): F = 32, 1.43-1.58,
--   busbw 118-130 (+147..+173%).  One channel per peer gives F = 16
--   (+112..+140%), one request per connection F = 8 (+75..+105%); newer
--   NCCL runs more peers at once (5067397c src/enqueue.cc: p2pnChannels /
--   channels per peer x 8 tasks), F larger still.  Per-QP hashing cannot
--   bring a 4x loss with NCCL's flow count, so no model change: a ring or
--   tree collective would lose nothing either (16 channels at 24 GB/s on
--   a 50 GB/s port: a link is oversubscribed only with 3 of them), and
--   the B300 two-node rows stay under one leaf (no hashed uplink).
--   Searched (issue 11, sixth): NCCL's p2p schedule per channel at each
--   row's release.  The hypothesis: 24 GB/s per GPU is one p2p channel's
--   rate (net_channel_GBps), all network peers in flight on one channel.
--   Worked from NVIDIA/nccl 2.28.7 ae7aed19 (file:line there unless said),
--   2.28.9 dbc86fd0, 2.27.3 72d24320.  An MNNVL clique is one node (nodes
--   by the ring graph's first rank, src/init.cc:1101): 64 local ranks.
--   Rounds: 2.28 cuts each node into groups of 8 (P2P_SCHEDULE_GROUP_SIZE,
--   init.cc:766-776), takes group deltas in quadratic order (16 groups: 0
--   1 3 6 10 15 5 12 4 13 7 2 14 11 9 8), 8 rounds per delta, sending to
--   group g + delta and receiving from g - delta (init.cc:806-828); 2.27.3
--   takes node deltas, the 64 rounds inside the clique first (72d24320
--   init.cc:1119-1138).  Channels: round i's base is reverseBits(i / 8,
--   log2 p2pnChannels) in 2.28 (src/include/channel.h:19-31), 8 (i / 64) +
--   (i mod 64) / 8 in 2.27.3 (72d24320 channel.h:19-29); part p runs on
--   base + p (src/include/device.h:270).  A channel's batch holds at most
--   8 ops of one 8-round epoch (src/enqueue.cc:130-139); each channel is
--   one CTA of one kernel and all 128 rounds fit one plan (budget
--   enqueue.cc:1094, 1461-1463), so the epochs run at once, one per
--   channel: NCCL's own count is p2pnChannels / channels per peer x 8
--   peers in flight (enqueue.cc:961-965).  p2pnChannels = pow2Up of the
--   ring's channels doubled by ncclTopoPostset, 32 or 64 (paths.cc:863-883,
--   src/graph/connect.cc:452); per peer max(netCountByBw, 2 halved while
--   2n > 4 p2pnChannels) (paths.cc:846-849), a large message on all of
--   them (enqueue.cc:894-901).  GB300 2 racks (2.28.7, 2 per peer): a
--   rank's network sends fall in 8 of the 16 epochs (group 0: 4 5 7 9 12
--   13 14 15), its network receives in 8, each epoch on its own pair of
--   channels: 16 channel-parts on the network at once, 8 peers each, 1.5
--   GB/s each as measured.  GB200 (2.27.3, 1 per peer): 2 racks, rounds
--   64-127 on channels 8-15 (8 at once, 5.6 GB/s each); 3 racks, rounds
--   64-191 on 8-23 (16, 2.6 GB/s each).  B300 2 nodes (2.28.9, 2 per peer):
--   the 8 network rounds are epoch 1, channels 16 and 17 (p2pnChannels
--   32): 2 channel-parts carry 96.5 GB/s, 48 GB/s each, a 400G port's line
--   rate.  A p2p CTA gives each of its 8 ops one send and one receive warp
--   of 20 (src/device/sendrecv.h:104-106) and, with PXN (pxnUsed,
--   enqueue.cc:856: no buffer registration), copies into NCCL's shared
--   staging, 16 chunks of 128 KiB per channel, min(8, 16 / ops) per peer
--   (src/transport/net.cc:628, 1237): B300 shows one such channel at 48
--   GB/s, so no 24 GB/s channel cap binds p2p, and the GB300 GPU has 16
--   channel-parts on the network, not one (16 x 24 = 384 GB/s, above its
--   two ports' 93).  The hypothesis would also put B300 at 2 x 24 = 48
--   GB/s per GPU (busbw about 90, -50%).  2.28.9 changes only a single
--   node's group size (dbc86fd0 init.cc:771).  No model change: podsim's
--   all-to-all at the NICs' rate is what NCCL's schedule gives, and the
--   24 GB/s stays unexplained by NCCL.  The same schedule puts all of a
--   GPU's network peers in flight at once, not 8: the flow counts of the
--   per-QP ECMP search above (F = 32) and of the receiver-contention
--   reading above (8 per port) are lower bounds, and more flows lose less,
--   so neither reading comes closer to its row.  Epochs would share
--   channels and run in turn only with p2pnChannels / channels per peer
--   below 16 (here a ring graph of at most 8 channels), and this row
--   would then also need one port per GPU (a rack's first and last groups
--   have 15 epochs with a network direction, 1 GiB each at one port's
--   46.5 GB/s: 348 ms against 357.6 measured).  NCCL's code gives neither
--   here; the run's NCCL_DEBUG=INFO line "p2p channels, p2p channels per
--   peer" (init.cc:1358) would settle it.  NCCL 2.29.2 (ebd1e929,
--   src/graph/paths.cc:823, 852) sizes a network peer's channels at 14 GB/s
--   each (NCCL_P2P_PER_CHANNEL_NET_BW), a per-peer rate; this row runs
--   0.19 GB/s per peer and channel-part.
--   The rows below fit `oversub = 4` with
--   one rack per leaf on the all-to-all (C12) and check that the same
--   fabric leaves the all-reduce where it was (C11).
-- Tolerance: busbw within 15%.
local src = "oracle-quickstart/oci-gpu-quickstarts (6a0abdc) nvidia/%s/README-%s.md"
local GiB = 2 ^ 30
local oci = {
  GB200 = podsim.systems.gb200_nvl72,
  GB300 = podsim.system{base = "gb300_nvl72", nics_per_gpu = 2, nic_gbps = 400,
    net_channel_GBps = 24, transport = "roce"},
  B300 = podsim.system{base = "hgx_b300", nics_per_gpu = 2, nic_gbps = 400,
    net_channel_GBps = 24, transport = "roce"},
}
-- sys, op, ranks, ranks per domain, GiB, published busbw, fit or known miss, forced algo
local rows = {
  {"GB300", "all_to_all", 64, 64, 16, 666.92, "fit"},
  {"GB300", "all_to_all", 4, 4, 16, 627.69},
  {"GB300", "all_to_all", 8, 8, 16, 685.06},
  {"GB200", "all_to_all", 4, 4, 8, 615.30},
  {"GB200", "all_to_all", 8, 8, 16, 662.27},
  {"GB200", "all_to_all", 64, 64, 8, 622.92},
  {"B300", "all_to_all", 8, 8, 8, 675.55},
  {"GB300", "all_reduce", 8, 8, 16, 841.63},
  {"GB300", "all_reduce", 64, 64, 16, 930.48},
  {"GB200", "all_reduce", 8, 8, 8, 891.64},
  {"B300", "all_reduce", 8, 8, 8, 834.84},
  {"GB300", "all_reduce", 4, 4, 16, 685.19},
  {"GB200", "all_reduce", 4, 4, 8, 663.34},
  {"GB300", "all_reduce", 128, 64, 16, 738.39},
  {"GB200", "all_reduce", 128, 64, 8, 799.79},
  {"B300", "all_reduce", 16, 8, 16, 766.84},
  {"GB200", "all_reduce", 192, 64, 8, 748.93},
  {"GB200", "all_to_all", 128, 64, 8, 89.70},
  {"B300", "all_to_all", 16, 8, 8, 180.98},
  {"GB200", "all_to_all", 192, 64, 8, 62.49,
    "static-ECMP collisions on InfiniBand (no hashing there; the term holds C6 and T16 H100); see c11_oci_nvl72_mnnvl.lua"},
  {"GB300", "all_to_all", 128, 64, 16, 47.67,
    "a quarter of the two-NIC rate, NCCL p2p uses both NICs: fits a 4:1 cross-rack tier (C12), fabric not published; see c11_oci_nvl72_mnnvl.lua"},
}

for _, c in ipairs(rows) do
  local name, op, n, r, gib, pub, tag, algo = table.unpack(c, 1, 8)
  local res = podsim.collective(oci[name], op, {ranks = n, ranks_per_domain = r,
    bytes = gib * GiB, algo = algo})
  local where = n == r and string.format("%d ranks in one domain", n)
    or string.format("%d domains of %d", n // r, r)
  podsim.check{id = tag == "fit" and "C12" or "C11",
    name = string.format("OCI %s %s %s%s busbw %d GiB", name, op, where,
      algo and (" (" .. algo .. " forced)") or "", gib),
    published = pub, value = res.busbw_GBps, unit = "GB/s", tol_rel = 0.15,
    fit = tag == "fit", known_miss = tag ~= "fit" and tag or nil,
    source = string.format(src, name, name), note = "podsim algorithm: " .. res.algo}
end

-- The algorithm NCCL's tuner picks (see above): in one domain the ring at
-- 4 ranks and NVLS from 8 (2.28.7); across two and three GB200 racks
-- NVLSTree (2.27.3).
for _, c in ipairs{{"GB300", 4, "ring"}, {"GB200", 4, "ring"}, {"GB300", 8, "nvls"},
    {"GB200", 8, "nvls"}, {"GB300", 64, "nvls"}, {"GB200", 128, "nvls_tree", 64},
    {"GB200", 192, "nvls_tree", 64}} do
  local name, n, algo, r = table.unpack(c)
  local res = podsim.collective(oci[name], "all_reduce", {ranks = n, ranks_per_domain = r,
    bytes = 8 * GiB})
  local where = r and string.format("%d domains of %d", n // r, r)
    or string.format("%d ranks in one domain", n)
  podsim.check{id = "C11", name = string.format("OCI %s all_reduce %s 8 GiB: auto picks NCCL's %s",
      name, where, algo),
    published = 1, value = res.algo == algo and 1 or 0, unit = "match", tol_abs = 0, fit = false,
    source = r and "NVIDIA/nccl src/graph/search.cc, tuning.cc (72d24320, 2.27.3)"
      or "NVIDIA/nccl src/graph/search.cc, tuning.cc (ae7aed19, 2.28.7)",
    note = "podsim algorithm: " .. res.algo}
end

-- Two B300 nodes (NCCL 2.28.9, dbc86fd0), traced by hand as above and
-- computed by podsim's model of the search (core/coll_tune.c): the NVLS
-- graph has 8 heads at bwIntra = bwInter 48 GB/s (one GPU each; 96
-- exceeds a 400G port), rated 8 x min(48 x 0.74 x 7/8 x 2, 48 x 2,
-- perChMaxNVLSTreeBw 96) = 497 busbw, 265 algbw; the ring graph 16
-- channels x 45.1 GB/s (15 x 48 by hand: the same 720) on 16 NICs, 721.6 x
-- 16/30 = 385 algbw; the tree at most 0.5 x 16 x 42.8 = 342.  auto picks
-- as NCCL's tuner rates (the ring), and the ring's 16 channels send at
-- their NICs' rate (16 x 47 GB/s), so its measured 767 GB/s busbw is in
-- reach (the row above; it was a known miss while podsim ran NVLS-tree
-- here, its ring channels at 24 GB/s).
do
  local res = podsim.collective(oci.B300, "all_reduce", {ranks = 16, ranks_per_domain = 8,
    bytes = 16 * GiB})
  podsim.check{id = "C11", name = "OCI B300 all_reduce 2 domains of 8 16 GiB: auto picks NCCL's ring",
    published = 1, value = res.algo == "ring" and 1 or 0, unit = "match", tol_abs = 0,
    fit = false, source = "NVIDIA/nccl src/graph/search.cc, tuning.cc (dbc86fd0, 2.28.9)",
    note = "podsim algorithm: " .. res.algo}
end

-- GB300 2 racks under a cross-rack capacity of a quarter of the NICs
-- (see above): the fit (C12) and what it predicts for the all-reduce.
local tiered = podsim.system{base = "gb300_nvl72", nics_per_gpu = 2, nic_gbps = 400,
  net_channel_GBps = 24, transport = "roce", leaf_gpus = 64, oversub = 4}
for _, c in ipairs{{"all_to_all", 47.67, true}, {"all_reduce", 738.39, false}} do
  local op, pub, fit = table.unpack(c)
  local res = podsim.collective(tiered, op, {ranks = 128, ranks_per_domain = 64, bytes = 16 * GiB})
  podsim.check{id = fit and "C12" or "C11",
    name = string.format("OCI GB300 %s 2 domains of 64, one rack per leaf at 4:1, busbw 16 GiB", op),
    published = pub, value = res.busbw_GBps, unit = "GB/s", tol_rel = 0.15, fit = fit,
    source = string.format(src, "GB300", "GB300"),
    note = "oversub 4 fitted on the all-to-all; podsim algorithm: " .. res.algo}
end
