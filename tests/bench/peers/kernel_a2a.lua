-- kernel_a2a.lua: the built-in-evaluator study of the NumPy peer
-- (tests/bench/bench_peers.sh, peers/a2a_numpy.py kernel): one 64-rank
-- all-to-all on GB200 NVL72 per sample, four sampled parameters.
local s = podsim.study{name = "kernel_a2a", samples = 1000000, seed = 1,
  params = {
    ["system.up_eff"] = podsim.dist.uniform{0.70, 0.90},
    ["system.out_eff"] = podsim.dist.triangular{0.80, 0.92, 0.96},
    ["system.up_latency_us"] = podsim.dist.lognormal{median = 3, p90 = 6},
    bytes = podsim.dist.loguniform{1 << 20, 1 << 32},
  },
  eval = podsim.kernel.collective{system = "gb200_nvl72", op = "all_to_all", ranks = 64, bytes = 1}}
podsim.write(s:run())
