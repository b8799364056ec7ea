-- rel_study.lua: the reliability, simulate_run and cost kernels inside
-- studies (built-in evaluators), and simulate_run from a Lua evaluator.
local D = podsim.dist
local cfg = {base = "default", failures = "llama3_h100", node_gpus = 8, domain_gpus = 8,
             active_gpus = 16384, pool_units = 32, pool_scope = "node", repair_h = 48,
             ckpt_s = 20, restart_s = 300, interval_rule = "young", work_h = 54 * 24}

-- Simulated runs: u_seed ~ uniform gives independent runs per sample.
local sim = podsim.study{name = "relsim", samples = 2000, seed = 3,
  params = {u_seed = D.uniform{0, 1}}, eval = podsim.kernel.simulate_run(cfg)}
local r = sim:run()
local g = r.stats.goodput[1]
local an = podsim.reliability{system = "hgx_h100", gpus = 16384, failures = "llama3_h100",
  spares = {pool = 32, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300, hours = 54 * 24}
assert(g.n == 2000 and g.sd > 0)
assert(math.abs(g.mean - an.goodput) < 4 * g.se + 1e-4,
       string.format("study mean %.5f +- %.5f vs analytic %.5f", g.mean, g.se, an.goodput))
local i = r.stats.interruptions[1]
assert(math.abs(i.mean - an.interruptions) < 0.01 * an.interruptions)
-- the same study twice gives the same numbers
local r2 = podsim.study{name = "relsim2", samples = 2000, seed = 3,
  params = {u_seed = D.uniform{0, 1}}, eval = podsim.kernel.simulate_run(cfg)}:run()
assert(r2.stats.wall_h[1].mean == r.stats.wall_h[1].mean)

-- Analytic kernel over uncertain rates and repair times, on a grid of
-- in-domain spares (NVL72): rack-level rates drive the goodput.
local nvl = {base = "default", failures = "gb200_nvl72", node_gpus = 4, domain_gpus = 72,
             active_gpus = 16384, repair_h = 48, ckpt_s = 20, restart_s = 300,
             interval_rule = "young", work_h = 1000, pool_scope = "domain"}
local a = podsim.study{name = "rel", samples = 500, seed = 5,
  params = {domain_rate_log10 = D.uniform{-1, 1}, repair_h = D.uniform{12, 72}},
  grid = {pool_units = {0, 4}, spare_per_domain = {8}},
  eval = podsim.kernel.reliability(nvl)}:run()
local p0 = a:summary("goodput", {pool_units = 0})
local p4 = a:summary("goodput", {pool_units = 4})
assert(p4.mean > p0.mean)
assert(a.sens.goodput[1].domain_rate_log10.spearman < -0.5)

-- Cost kernel over prices and goodput.
local c = podsim.study{name = "cost", samples = 200, seed = 1,
  params = {usd_per_gpu_hour = D.uniform{2, 3}, goodput = D.uniform{0.8, 1}},
  eval = podsim.kernel.cost{base = "default", usd_per_gpu_hour = 2, tokens_per_s_per_gpu = 10757, active_gpus = 16384,
                            spare_gpus = 2048, tokens = 1e13}}:run()
local m = c.stats.usd_per_m_tokens_charged[1]
assert(m.min > 2 / (10757 * 0.0036) * 72 / 64 and m.max < 3 / (10757 * 0.8 * 0.0036) * 72 / 64)

-- A Lua evaluator calling podsim.simulate_run with a seed per sample.
local l = podsim.study{name = "lua_sim", samples = 50, seed = 2,
  params = {seed = D.uniform{0, 2 ^ 31}},
  metrics = {"goodput"},
  eval = function(p)
    local s = podsim.simulate_run{system = "hgx_h100", gpus = 1024, failures = "llama3_h100",
      spares = {pool = 4, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300,
      hours = 500, seed = math.floor(p.seed)}
    return {goodput = s.goodput}
  end}:run()
assert(l.stats.goodput[1].n == 50 and l.stats.goodput[1].mean > 0.9)
print("rel_study: ok")
