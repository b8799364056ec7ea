-- cost_errors.lua: every bad input of podsim.cost names file:line and the field.
local function expect(pattern, t)
  local ok, msg = pcall(podsim.cost, t) -- located at this line (innermost script frame)
  assert(not ok, "expected an error matching " .. pattern)
  msg = tostring(msg)
  if not msg:find("^[^:]*cost_errors%.lua:%d+: podsim%.cost: " .. pattern) then
    error("unexpected message: " .. msg .. "\n  wanted: " .. pattern, 2)
  end
end
local base = {tokens_per_s_per_gpu = 1000, usd_per_gpu_hour = 2}
local function with(over)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(over) do t[k] = v end
  return t
end

assert(not pcall(podsim.cost, "x"))
expect("expected a table", nil)
expect("usd_per_gpu_hours: unknown field %(did you mean 'usd_per_gpu_hour'%?%)",
       with{usd_per_gpu_hours = 1})
expect("train: give train=", {usd_per_gpu_hour = 1})
expect("train: expected a podsim.train result", with{train = 5})
expect("train.tokens_per_s_per_gpu: required field is missing", with{train = {step_s = 1}})
expect("train.tokens_per_s_per_gpu: ", with{train = {tokens_per_s_per_gpu = "fast"}})
expect("tokens_per_s_per_gpu: must be in %(0, 1e%+12%] %(got 0%)", with{tokens_per_s_per_gpu = 0})
expect("tokens_per_s_per_gpu: ", with{tokens_per_s_per_gpu = 0 / 0})
expect("tokens: must be in", with{tokens = -1})
expect("gpus: required field is missing", with{tokens = 1e9})
expect("gpus: must be an integer", with{gpus = 1.5})
expect("train: active GPUs from train", {train = {tokens_per_s_per_gpu = 1000, tokens_per_s = 100},
                                          usd_per_gpu_hour = 1})
expect("goodput: must be in %(0, 1%]", with{goodput = 0})
expect("goodput: must be in", with{goodput = 1.5})
expect("spares: must be an integer %(got 2.5%)", with{spares = 2.5})
expect("spares: must be in", with{spares = -1})
expect("spares.spare_gpus: required field is missing", with{spares = {}})
expect("spares: expected a number of spare GPUs", with{spares = "8"})
expect("reliability: expected a podsim.reliability", with{reliability = 1})
expect("reliability.gpus: the reliability result is for 100 GPUs, the job runs on 64",
       with{gpus = 64, reliability = {gpus = 100, goodput = 0.9, spare_gpus = 0}})
expect("usd_per_gpu_hour: must be > 0", with{usd_per_gpu_hour = 0})
expect("usd_per_gpu_hour: give usd_per_gpu_hour=, tco=", {tokens_per_s_per_gpu = 1})
expect("usd_per_gpu_hour: give usd_per_gpu_hour=", {tokens_per_s_per_gpu = 1,
       system = podsim.system{base = "hgx_h100", usd_per_gpu_hour = 0}})
-- (the system reader names its own constructor)
local ok, msg = pcall(podsim.cost, {tokens_per_s_per_gpu = 1, system = "hgx_h1000"})
assert(not ok and msg:find("cost_errors%.lua:%d+: podsim%.system: system: unknown system preset 'hgx_h1000'"), msg)
expect("tco: give usd_per_gpu_hour or tco, not both", with{tco = {}})
local tco = {capex_usd_per_gpu = 30000, amort_years = 4, power_kw_per_gpu = 1.2,
             pue = 1.25, usd_per_kwh = 0.1}
local function bad_tco(k, v, pattern)
  local t = {}
  for kk, vv in pairs(tco) do t[kk] = vv end
  t[k] = v
  expect(pattern, {tokens_per_s_per_gpu = 1, tco = t})
end
bad_tco("amort_years", 0, "tco.amort_years: must be in %(0, 100%]")
bad_tco("pue", 0.5, "tco.pue: must be in %[1, 10%]")
bad_tco("capital_rate", 2, "tco.capital_rate: must be in")
bad_tco("usd_per_kwh", -1, "tco.usd_per_kwh: must be in")
bad_tco("capex_usd_per_gpu", 0 / 0, "tco.capex_usd_per_gpu: ")
bad_tco("power_kw_gpu", 1, "tco.power_kw_gpu: unknown field %(did you mean 'power_kw_per_gpu'%?%)")
-- a TCO with nothing in it gives no price
expect("tco: gives no positive finite price", {tokens_per_s_per_gpu = 1,
       tco = {amort_years = 1, pue = 1}})
print("cost_errors: ok")
