-- Lua API tests of the compiled eval (l_trace.c): every traced operation,
-- run traced and with trace = false, must give identical statistics, bit
-- for bit.  Parameters span signs and magnitudes so Lua's integer/float
-- rules (floor division, modulo of negatives, pow by 2, integer wrap,
-- math.min/max of mixed subtypes) are all exercised.
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/")
local T = dofile(here .. "/util/expect.lua")
local W = dofile(here .. "/util/twoways.lua")
local D = podsim.dist

local params = {
  x = D.uniform{-10, 10},
  y = D.uniform{0.1, 5},
  n = D.uniform{1, 100},
  z = D.normal{0, 1},
}

-- arithmetic operators and coercions
local r = W.both({name = "ops_arith", samples = 3000, seed = 3, params = params, keep_samples = true,
  eval = function(p)
    local fx, fn = math.floor(p.x), math.floor(p.n)
    return {
      add = p.x + p.y, addi = p.x + 3, sub = 2 - p.x, mul = p.x * p.y * 1.5,
      div = p.x / p.y, idiv = p.x // p.y, idivi = fn // 7, idivneg = fx // -3,
      modi = fx % 3, modf = p.x % p.y, modneg = p.x % -2.5, modineg = fn % -7,
      pow2 = p.y ^ 2, pow = p.y ^ 3.3, pow_base = 2 ^ p.y, unm = -p.x, unmi = -fx,
      str = "2" * p.x, strf = p.x + "0.5", mixed = fn * 0.5 + 1,
      wrap = fn * 0x7fffffffffffffff, wrapadd = fn + math.maxinteger,
      shifted = p.x * (1 << 20), const = 42, pi = p.z * math.pi,
    }
  end}, "arithmetic")
T.eq(r.evaluator, "traced", "arithmetic traced")

-- the math library, type and tonumber
W.both({name = "ops_math", samples = 3000, seed = 4, params = params,
  eval = function(p)
    local fx = math.floor(p.x)
    return {
      floor = math.floor(p.x), ceil = math.ceil(p.x), abs = math.abs(p.x), absi = math.abs(fx),
      sqrt = math.sqrt(p.y), exp = math.exp(p.x / 10), log = math.log(p.y),
      log2 = math.log(p.y, 2), log10 = math.log(p.y, 10), log3 = math.log(p.y, 3),
      logb = math.log(p.n, p.y + 1), sin = math.sin(p.x), cos = math.cos(p.x), tan = math.tan(p.z),
      asin = math.asin(p.x / 10), acos = math.acos(p.x / 10), atan = math.atan(p.x),
      atan2 = math.atan(p.x, p.y), fmod = math.fmod(p.x, p.y), fmodi = math.fmod(math.floor(p.n), 7),
      fmodneg = math.fmod(fx, 3), min = math.min(p.x, p.y, 1), max = math.max(p.x, 2, p.y),
      -- the subtype chosen per sample matters downstream (integer wrap)
      minmix = math.min(fx, p.y) * 0x7fffffffffffffff,
      maxmix = math.max(fx, p.z) * 0x7fffffffffffffff,
      typed = (type(p.x) == "number" and 1 or 0) + p.x, tonum = tonumber(p.x) + 1,
      ceilwrap = math.ceil(p.n) * 0x7fffffffffffffff,
    }
  end}, "math")

-- specs, collectives, training, reliability and cost
W.both({name = "ops_kernels", samples = 2000, seed = 5, grid = {ranks = {8, 64}},
  params = {eff = D.uniform{0.6, 0.95}, lat = D.lognormal{median = 3, p90 = 6},
    bytes = D.loguniform{1 << 16, 1 << 30}, tf = D.uniform{800, 1100}, imb = D.uniform{1, 1.3},
    rate = D.normal{0, 0.2}, ckpt = D.uniform{20, 120}, repair = D.uniform{4, 48},
    price = D.uniform{1, 3}, capex = D.uniform{2e4, 4e4}},
  eval = function(p)
    local s = podsim.system{base = "gb200_nvl72", up_eff = p.eff, out_latency_us = p.lat}
    local a = podsim.collective(s, "all_to_all", {ranks = p.ranks, bytes = p.bytes,
      ranks_per_domain = math.min(p.ranks, 64)})
    local b = podsim.collective(s, "all_reduce", {ranks = p.ranks, bytes = p.bytes})
    -- a system given as a table with a traced field (checked per sample)
    local a3 = podsim.collective({base = "hgx_h100", out_eff = p.eff}, "all_gather",
      {ranks = p.ranks * 2, bytes = p.bytes})
    -- a spec nested in a spec, and a derived spec from a traced base
    local g = podsim.gpu{base = "h100", bf16_tflops = p.tf}
    local h = podsim.system{base = "hgx_h100", gpu = g, out_eff = p.eff}
    local h2 = podsim.system{base = h, up_latency_us = p.lat}
    local m = podsim.model{base = "llama3_8b", imbalance = p.imb}
    local t = podsim.train{system = h2, model = m, gpus = 64, seq = 4096, global_batch = 256,
      parallel = {tp = 2, pp = 1, dp = 32}, overlap_dp = p.eff}
    local rel = podsim.reliability{system = h2, gpus = 64, failures = "llama3_h100", spares = {pool = 2, swap_s = 300},
      repair_h = p.repair, restart_s = 600, checkpoint = {write_s = p.ckpt, interval = "young"},
      rate_scale = 10 ^ p.rate, tokens = 1e12, tokens_per_s = t.tokens_per_s}
    local rel2 = podsim.reliability{system = s, gpus = 64, failures = "gb200_nvl72",
      spares = {per_domain = 8, swap_s = 300}, repair_h = 24, restart_s = 600,
      checkpoint = {write_s = 60, interval = "daly"},
      rate_scale = {gpu = 10 ^ p.rate, domain = 2 ^ p.rate}, hours = 1000}
    local c = podsim.cost{train = t, usd_per_gpu_hour = p.price, reliability = rel, tokens = 1e12}
    local c2 = podsim.cost{train = t, tco = {capex_usd_per_gpu = p.capex, amort_years = 4,
      capital_rate = 0.08, power_kw_per_gpu = 1.2, pue = 1.3, usd_per_kwh = 0.08,
      hosting_usd_per_kw_month = 150, ops_usd_per_gpu_year = 1000}, tokens = 1e12, gpus = 64}
    return {
      a2a_us = a.time_s * 1e6, ar_busbw = b.busbw_GBps, ag_us = a3.time_s * 1e6, up = s.up_eff * 2 + s.up_GBps,
      step = t.step_s, mem = t.memory.total_gb, bd = t.breakdown.compute + t.breakdown.dp,
      dp3 = t.dp * 3 + t.microbatches, tf = h2.gpu.bf16_tflops + g.bf16_tflops,
      goodput = rel.goodput, wall = rel.wall_h, spares = rel.spare_gpus + rel2.spare_gpus,
      wall2 = rel2.wall_h, musd = c.usd_total_charged / 1e6, gpus = c.gpus,
      tco_price = c2.usd_per_gpu_hour + c2.usd_per_gpu_hour_parts.capital_usd,
      mtok = c.usd_per_m_tokens_charged,
    }
  end}, "kernels")

-- collectives prepared when traced (l_trace_calls.c coll_prepared: every
-- patch a field pod_coll_prep_varies lets vary, the bytes when the prep
-- times any bytes) beside ones that are not: a sampled field it does not
-- let vary (nic_gbps), the bytes of an all-reduce across domains (NCCL's
-- ratings read them), a forced algorithm; identical bits either way
W.both({name = "ops_coll_prep", samples = 3000, seed = 8, grid = {ranks = {16, 128}},
  params = {ue = D.uniform{0.6, 0.95}, oe = D.uniform{0.7, 0.97},
    ul = D.lognormal{median = 1, p90 = 3}, ol = D.lognormal{median = 4, p90 = 9},
    ov = D.uniform{1, 4}, bytes = D.loguniform{1 << 10, 1 << 33}, nic = D.uniform{200, 800}},
  eval = function(p)
    local s = podsim.system{base = "gb200_nvl72", up_eff = p.ue, out_eff = p.oe,
      up_latency_us = p.ul, out_latency_us = p.ol, oversub = p.ov}
    local rpd = math.min(p.ranks, 64)
    local a2a = podsim.collective(s, "all_to_all", {ranks = p.ranks, bytes = p.bytes,
      ranks_per_domain = rpd})
    local ag = podsim.collective(s, "all_gather", {ranks = p.ranks, bytes = p.bytes,
      ranks_per_domain = rpd})
    local ar = podsim.collective(s, "all_reduce", {ranks = p.ranks, bytes = p.bytes,
      ranks_per_domain = rpd})
    local ar2 = podsim.collective(s, "all_reduce", {ranks = p.ranks, bytes = 1 << 26,
      ranks_per_domain = rpd})
    local ring = podsim.collective(s, "all_reduce", {ranks = p.ranks, bytes = p.bytes,
      ranks_per_domain = rpd, algo = "ring"})
    local h = podsim.system{base = "hgx_h100", nic_gbps = p.nic, out_eff = p.oe}
    local a2h = podsim.collective(h, "all_to_all", {ranks = p.ranks, bytes = p.bytes})
    local agh = podsim.collective(h, "all_gather", {ranks = p.ranks, bytes = 1 << 26})
    local arh = podsim.collective(h, "all_reduce", {ranks = p.ranks, bytes = 1 << 26})
    return {agh = agh.time_s, arh = arh.busbw_GBps,a2a = a2a.time_s, a2a_bus = a2a.busbw_GBps, a2a_alg = a2a.algbw_GBps,
      ag = ag.busbw_GBps, ar = ar.time_s, ar2 = ar2.algbw_GBps, ring = ring.time_s,
      a2h = a2h.time_s}
  end}, "prepared collectives")

-- a prepared collective's bad bytes fail per sample as in Lua
local function bad_bytes(trace)
  return pcall(function()
    return podsim.study{name = "bad_bytes", samples = 500, seed = 2, trace = trace,
      params = {e = D.uniform{0.6, 0.9}, b = D.uniform{-1e9, 1e9}},
      eval = function(p)
        local s = podsim.system{base = "gb200_nvl72", up_eff = p.e}
        return {t = podsim.collective(s, "all_to_all", {ranks = 64, bytes = p.b}).time_s}
      end}:run()
  end)
end
local ok1, e1 = bad_bytes(nil)
local ok2, e2 = bad_bytes(false)
T.truthy(not ok1 and not ok2, "negative bytes fail both ways")
local function bytes_err(e) return tostring(e):match("bytes[^\n]*") end
T.truthy(bytes_err(e1) and bytes_err(e1) == bytes_err(e2),
  "same bytes error both ways: " .. tostring(e1) .. " / " .. tostring(e2))
T.truthy(tostring(e1):match("sample (%d+)") and tostring(e1):match("sample (%d+)") ==
  tostring(e2):match("sample (%d+)"), "same failing sample: " .. tostring(e1) .. " / " .. tostring(e2))

-- choices over labels: a graph per combination, the labels constants in
-- it (a table lookup, a comparison, an enum field by a label: all fine)
local sizes = {small = 1 << 20, large = 1 << 28}
W.both({name = "ops_labels", samples = 3000, seed = 6, grid = {ranks = {16, 64}},
  params = {e = D.uniform{0.6, 0.95}, size = D.choice{"small", "large"},
    routing = D.choice{"static_ecmp", "adaptive"}, w = D.choice{values = {"a", "b", "c"},
    weights = {1, 2, 3}}},
  eval = function(p)
    local s = podsim.system{base = "hgx_h100", out_eff = p.e, routing = p.routing}
    local a = podsim.collective(s, "all_to_all", {ranks = p.ranks, bytes = sizes[p.size]})
    local k = p.w == "a" and 1 or (p.w == "b" and 2 or 3)
    return {us = a.time_s * 1e6 * k, e = p.e * #p.w}
  end}, "labels")

T.done("trace_ops")
