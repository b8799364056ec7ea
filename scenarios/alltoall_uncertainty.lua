-- alltoall_uncertainty.lua: how sure can we be of the NVL72 all-to-all
-- advantage?  The 64-GPU all-to-all ratio of alltoall_64gpu.lua (GB200
-- NVL72 against HGX H100 on InfiniBand) as a distribution over achieved
-- efficiencies, latencies, scale-out routing and message sizes, for
-- communicators of 16, 64 and 256 ranks.
--
--   podsim run scenarios/alltoall_uncertainty.lua [--samples N] [--threads N]
--
-- Prints p5/p50/p95 of the ratio per communicator size and a tornado of
-- Spearman rank correlations; writes summary/sensitivity/histogram CSVs,
-- meta.json and CDF and tornado plots under out/alltoall_uncertainty/.
local nvl = podsim.systems.gb200_nvl72
local hgx = podsim.systems.hgx_h100

local s = podsim.study{
  name = "a2a_ratio",
  samples = 200000,
  seed = 7,
  params = {
    -- achieved fraction of NVLink5 line rate (preset: nvl.up_eff)
    nvlink_eff = podsim.dist.triangular{0.70, nvl.up_eff, 0.90},
    -- achieved fraction of the 400G NIC line rate (preset: hgx.out_eff)
    nic_eff = podsim.dist.triangular{0.80, hgx.out_eff, 0.96},
    -- per-hop latencies, us
    nvlink_lat_us = podsim.dist.lognormal{median = nvl.up_latency_us, p90 = 2 * nvl.up_latency_us},
    ib_lat_us = podsim.dist.lognormal{median = hgx.out_latency_us, p90 = 2 * hgx.out_latency_us},
    -- scale-out routing of the H100 fabric: static ECMP (InfiniBand's default, path
    -- collisions) or adaptive routing (none); NVL72's all-to-all here stays in NVLink
    routing = podsim.dist.choice{"static_ecmp", "adaptive"},
    -- all-to-all buffer per rank, bytes: MoE dispatch sizes span this range
    bytes = podsim.dist.loguniform{1 << 20, 1 << 32},
  },
  grid = {ranks = {16, 64, 256}},
  eval = function(p)
    local a = podsim.collective(
      podsim.system{base = nvl, up_eff = p.nvlink_eff, up_latency_us = p.nvlink_lat_us,
                    out_eff = p.nic_eff, out_latency_us = p.ib_lat_us, routing = p.routing},
      -- 64 of 72 GPUs per rack carry the job (8 spares), as deployed
      "all_to_all", {ranks = p.ranks, bytes = p.bytes, ranks_per_domain = math.min(p.ranks, 64)})
    local b = podsim.collective(
      podsim.system{base = hgx, out_eff = p.nic_eff, out_latency_us = p.ib_lat_us,
                    routing = p.routing},
      "all_to_all", {ranks = p.ranks, bytes = p.bytes})
    return {ratio = b.time_s / a.time_s, t_nvl72_us = a.time_s * 1e6, t_h100_us = b.time_s * 1e6}
  end,
}

local r = s:run()

print()
print("NVL72 / H100 all-to-all speed ratio (time on H100 over time on NVL72)")
local rows = {}
for g, point in ipairs(r.grid) do
  local st = r.stats.ratio[g]
  rows[#rows + 1] = {point.ranks, st.p5, st.p50, st.p95, st.mean}
end
podsim.print_table({"ranks", "p5", "p50", "p95", "mean"}, rows)

for g, point in ipairs(r.grid) do
  print()
  print(string.format("what drives the ratio at %d ranks (Spearman rank correlation)", point.ranks))
  local sens = {}
  for name, v in pairs(r.sens.ratio[g]) do sens[#sens + 1] = {name, v.spearman} end
  table.sort(sens, function(a, b) return math.abs(a[2]) > math.abs(b[2]) end)
  for _, e in ipairs(sens) do
    local bar = string.rep(e[2] < 0 and "-" or "+", math.floor(math.abs(e[2]) * 40 + 0.5))
    print(string.format("  %-14s %+6.3f %s", e[1], e[2], bar))
  end
end

local dir = podsim.write(r)
podsim.plot(r)
print()
print("results in " .. dir)
