-- scale_case.lua: the scenario of the shard and MPI tests (tests/cli/
-- shard.sh, mpi.sh): a Lua evaluator with kept samples and exact
-- quantiles, a Sobol kernel study in sketch mode (run with
-- --max-samples-mb 1), run together, then a study that depends on their
-- results and stops on a target, and prints.
local nvl = podsim.systems.gb200_nvl72
local a = podsim.study{
  name = "lua_eval", samples = 6000, seed = 11, keep_samples = true, chunk_size = 500,
  params = {up_eff = podsim.dist.uniform{0.70, 0.90},
            bytes = podsim.dist.loguniform{1 << 20, 1 << 32},
            kind = podsim.dist.choice{"a", "b"}},
  grid = {ranks = {16, 64}},
  eval = function(p)
    local r = podsim.collective(podsim.system{base = nvl, up_eff = p.up_eff}, "all_to_all",
      {ranks = p.ranks, bytes = p.bytes})
    return {t = r.time_s, is_a = p.kind == "a" and 1 or 0}
  end,
}
local k = podsim.study{
  name = "sobol", samples = 40000, seed = 5, sensitivity = "sobol", chunk_size = 2000,
  params = {["system.up_eff"] = podsim.dist.uniform{0.7, 0.9},
            bytes = podsim.dist.loguniform{1 << 20, 1 << 30}},
  grid = {ranks = {16, 64}},
  eval = podsim.kernel.collective{system = "gb200_nvl72", op = "all_to_all", ranks = 8, bytes = 1},
}
local r = podsim.all{a:start(), k:start()}
podsim.write(r[1])
podsim.write(r[2])
assert(r[2].quantiles_exact == false, "the Sobol study runs in sketch mode")
-- the next study depends on the results: the same path on every process
local best = r[1].stats.t[1].mean > r[1].stats.t[2].mean and 1 or 2
local s = podsim.study{name = "stop" .. best, samples = 2000000, seed = 3, chunk_size = 1000,
  params = {x = podsim.dist.normal{10, 1}}, target = {metric = "y", rel_ci95 = 0.002},
  eval = function(p) return {y = p.x * best} end}
local rs = s:run()
podsim.write(rs)
print(string.format("stop: %d samples, mean %.6f", rs.samples_done, rs.stats.y[1].mean))
