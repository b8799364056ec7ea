-- Lua API tests of traced training steps on a prepared config
-- (pod_train_prepare / pod_train_eval_prepared, core/train_prep.c): a
-- podsim.train call whose traced inputs reach only its sampled fields
-- (efficiencies, overlaps, jitter, the model's imbalance, the system's
-- up_eff and out_eff) is prepared once when traced; one that samples
-- anything else (here the memory reserve, the micro-batch) is not.  Both
-- must agree bit for bit with per-sample Lua (trace = false), at 1 and 2
-- threads, and fail on the same sample with the same message.
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/")
local T = dofile(here .. "/util/expect.lua")
local W = dofile(here .. "/util/twoways.lua")
local D = podsim.dist

local params = {
  eff = D.triangular{0.85, 1.0, 1.1},
  ov = D.uniform{0.3, 0.95},
  imb = D.triangular{1.0, 1.1, 1.4},
  up = D.uniform{0.6, 0.95},
  nic = D.uniform{0.7, 0.96},
  x = D.uniform{0, 1},
}
local layouts = {
  gb200_nvl72 = {tp = 8, cp = 2, ep = 64, etp = 2, microbatch = 2, zero = 1},
  hgx_h100 = {tp = 2, pp = 8, vp = 4, ep = 32, uneven = true, zero = 1},
}
local function step(p, base, extra)
  local s = podsim.system{base = base, up_eff = p.up, out_eff = p.nic}
  local a = {system = s, model = podsim.model{base = "deepseek_v3", imbalance = p.imb},
    gpus = 2048, seq = 4096, global_batch = 1024, dtype = "fp8",
    fp8_recipe = base == "gb200_nvl72" and "block" or "current",
    software = "megatron_bridge_26_06", parallel = layouts[base],
    eff_scale = p.eff, overlap_dp = p.ov, overlap_ep = p.x, jitter = 0.02 * p.x}
  for k, v in pairs(extra or {}) do a[k] = v end
  return podsim.train(a)
end
local function eval_with(extra)
  return function(p)
    local out = {}
    for _, base in ipairs{"gb200_nvl72", "hgx_h100"} do
      local t = step(p, base, extra and extra(p))
      out["step_" .. base] = t.step_s
      out["mem_" .. base] = t.memory_gb
      out["ep_" .. base] = t.breakdown.ep
      out["dp_" .. base] = t.breakdown.dp
      out["tok_" .. base] = t.tokens_per_s_per_gpu
    end
    return out
  end
end

-- sampled fields only: the prepared step
local r = W.both({name = "prep", samples = 1500, seed = 11, chunk_size = 100, params = params,
  eval = eval_with()}, "prepared train")
T.truthy(r.stats.step_gb200_nvl72[1].sd > 0, "the step time varies")
-- and one field more (the memory reserve; the micro-batch of a label):
-- not prepared, the same bits
W.both({name = "noprep", samples = 800, seed = 12, params = params,
  eval = eval_with(function(p) return {mem_reserve_gb = 2 + 4 * p.x} end)},
  "train with a sampled memory reserve")

-- 1 and 2 threads
local function run(threads)
  return podsim.study{name = "prep_t", samples = 2000, seed = 13, threads = threads,
    params = params, eval = eval_with()}:run()
end
local r1, r2 = run(1), run(2)
T.eq(r1.evaluator, "traced", "threads: traced")
W.same(r1, r2, "prepared train, 1 and 2 threads")

-- a sampled field out of its range on some samples (eff_scale > 2): the
-- same failure traced and in Lua
local spec = {name = "prep_fail", samples = 1000, seed = 3, params = params, metrics = {"v"},
  eval = function(p)
    return {v = step(p, "hgx_h100", {eff_scale = 2.5 * p.x}).step_s}
  end}
local ok1, e1 = pcall(function() return podsim.study(spec):run() end)
spec.trace = false
local ok2, e2 = pcall(function() return podsim.study(spec):run() end)
T.truthy(not ok1 and not ok2, "out of range: fails both ways")
local function msg(x) return (tostring(x):gsub("^.-(study ')", "%1")) end
T.eq(msg(e1), msg(e2), "out of range: the same error")
T.truthy(tostring(e1):find("eff_scale"), "names the field: " .. tostring(e1))


-- a sampled model spec (imbalance, capacity factor) is checked per sample
-- only for the imbalance rule (lpod_trace__fn_model_screened): below 1 on
-- some samples, the same failure traced and in Lua; in range, the same bits
local mspec = {name = "model_fail", samples = 1000, seed = 5, params = params, metrics = {"v"},
  eval = function(p)
    local m = podsim.model{base = "deepseek_v3", imbalance = 0.6 + p.x, capacity_factor = 2 * p.ov}
    return {v = podsim.train{system = podsim.system{base = "hgx_h100", out_eff = p.nic}, model = m,
      gpus = 2048, seq = 4096, global_batch = 1024, dtype = "fp8", fp8_recipe = "current",
      software = "megatron_bridge_26_06", parallel = layouts.hgx_h100, eff_scale = p.eff}.step_s}
  end}
local ok3, e3 = pcall(function() return podsim.study(mspec):run() end)
mspec.trace = false
local ok4, e4 = pcall(function() return podsim.study(mspec):run() end)
T.truthy(not ok3 and not ok4, "imbalance below 1: fails both ways")
T.eq(msg(e3), msg(e4), "imbalance below 1: the same error")
T.truthy(tostring(e3):find("imbalance"), "names the field: " .. tostring(e3))
W.both({name = "model_ok", samples = 600, seed = 6, params = params,
  eval = function(p)
    local m = podsim.model{base = "deepseek_v3", imbalance = 1 + p.x, capacity_factor = 2 * p.ov}
    return {v = podsim.train{system = podsim.system{base = "hgx_h100", out_eff = p.nic}, model = m,
      gpus = 2048, seq = 4096, global_batch = 1024, dtype = "fp8", fp8_recipe = "current",
      software = "megatron_bridge_26_06", parallel = layouts.hgx_h100, eff_scale = p.eff}.step_s}
  end}, "sampled model spec")

T.done("trace_train_prep")
