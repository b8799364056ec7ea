-- rel_errors.lua: bad inputs of the failures and reliability API name
-- file:line, the function and the field path.
local function expect(fn, name, pattern, t)
  local ok, msg = pcall(fn, t) -- located at this line (innermost script frame)
  assert(not ok, "expected an error matching " .. pattern)
  msg = tostring(msg)
  if not msg:find("^[^:]*rel_errors%.lua:%d+: " .. name:gsub("%.", "%%.") .. ": " .. pattern) then
    error("unexpected message: " .. msg .. "\n  wanted: " .. pattern, 2)
  end
end
local base = {system = "hgx_h100", gpus = 1024, failures = "llama3_h100", spares = {pool = 4, swap_s = 0},
              repair_h = 24, checkpoint = {write_s = 30}, restart_s = 600, hours = 100}
local function with(over, drop)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(over) do t[k] = v end
  if drop then t[drop] = nil end
  return t
end
local R, S = podsim.reliability, podsim.simulate_run
local function rel(p, t) expect(R, "podsim.reliability", p, t) end

assert(pcall(R, base))
rel("expected a table of fields", "x")
rel("gpu: unknown field %(did you mean 'gpus'%?%)", with{gpu = 1})
rel("domain_gpus: required field is missing", with({}, "system"))
rel("gpus: required field is missing", with({}, "gpus"))
rel("gpus: must be in", with{gpus = 0})
rel("gpus: must be an integer", with{gpus = 1.5})
rel("node_gpus: must be in", with{node_gpus = 0})
rel("domain_gpus: must be a multiple of node_gpus %(8%), got 12", with({domain_gpus = 12, node_gpus = 8}, "system"))
rel("failures: required field is missing", with({}, "failures"))
rel("failures: expected a preset name", with{failures = 3})
rel("failures%[1%]: expected a cause", with{failures = {"gpu"}})
rel("failures%[1%].cause: required field is missing", with{failures = {{rate_per_h = 1, unit = "gpu", blast = "gpu"}}})
rel("failures%[1%].cause: expected a string", with{failures = {{cause = 1, rate_per_h = 1, unit = "gpu", blast = "gpu"}}})
rel("failures%[2%].rate_per_h: required field is missing", with{failures = {
  {cause = "a", rate_per_h = 1, unit = "gpu", blast = "gpu"}, {cause = "b", unit = "gpu", blast = "gpu"}}})
rel("failures%[1%].rate_per_h: must be in", with{failures = {{cause = "a", rate_per_h = -1, unit = "gpu", blast = "gpu"}}})
rel("failures%[1%].unit: unknown value 'rack'", with{failures = {{cause = "a", rate_per_h = 1, unit = "rack", blast = "gpu"}}})
rel("failures%[1%].blast: required field is missing", with{failures = {{cause = "a", rate_per_h = 1, unit = "gpu"}}})
rel("failures%[1%].rate_per_hr: unknown field %(did you mean 'rate_per_h'%?%)", with{failures = {{cause = "a", rate_per_hr = 1, unit = "gpu", blast = "gpu"}}})
rel("failures%[1%].cause: must be a name of 1%-31 characters", with{failures = {{cause = "", rate_per_h = 1, unit = "gpu", blast = "gpu"}}})
rel("failures.label: unknown field", with{failures = {label = "x"}})
rel("failures%[1%].basis: unknown value 'guessed'", with{failures = {{cause = "a", rate_per_h = 1, unit = "gpu", blast = "gpu", basis = "guessed"}}})
rel("failures%[1%].source: expected a string", with{failures = {{cause = "a", rate_per_h = 1, unit = "gpu", blast = "gpu", source = 1}}})
rel("failures.name: expected a string", with{failures = {name = 5}})
local many = {}
for i = 1, 33 do many[i] = {cause = "c" .. i, rate_per_h = 0, unit = "gpu", blast = "gpu"} end
rel("failures: at most 32 causes %(got 33%)", with{failures = many})
rel("failures: unknown failures preset 'llama3_h10' %(did you mean 'llama3_h100'%?%)", with{failures = "llama3_h10"})
rel("failures: unknown failures preset 'tpu' %(presets: llama3_h100, gb200_nvl72%)", with{failures = "tpu"})
rel("spares: required field is missing %(spares = \"none\"", with({}, "spares"))
rel("spares: expected \"none\" or a table", with{spares = 8})
rel("spares: expected \"none\" or a table .*, got nothing", with{spares = "nothing"})
rel("spares.swap_s: required field is missing %(seconds", with{spares = {pool = 4}})
rel("spares.swap_s: required field is missing", with{spares = {}})
rel("spares.pool: must be in", with{spares = {pool = -1}})
rel("spares.pool_scope: unknown value 'rack'", with{spares = {pool = 1, pool_scope = "rack"}})
rel("spares.swap: unknown field", with{spares = {swap = 1}})
rel("spares.swap_s: must be in", with{spares = {swap_s = -1}})
rel("spare_per_domain: must be in %[0, domain_gpus%)", with{spares = {per_domain = 8, swap_s = 0}})
rel("pool_scope: must be node or domain", with{spares = {pool = 2, pool_scope = "gpu", swap_s = 0}})
rel("repair_h: required field is missing", with({}, "repair_h"))
rel("repair_h: must be in %(0, 1000000000%] %(got 0%)", with{repair_h = 0})
rel("repair: unknown value 'weibull'", with{repair = "weibull"})
rel("repair_sigma: required field is missing", with{repair = "lognormal"})
rel("repair_sigma: must be in", with{repair = "lognormal", repair_sigma = 9})
rel("shrink: expected a boolean", with{shrink = 1})
rel("checkpoint: required field is missing", with({}, "checkpoint"))
rel("checkpoint: expected a table", with{checkpoint = 30})
rel("checkpoint.write_s: required field is missing", with{checkpoint = {}})
rel("checkpoint.write: unknown field", with{checkpoint = {write = 1}})
rel("checkpoint.interval: give interval_s or interval, not both",
    with{checkpoint = {write_s = 1, interval_s = 60, interval = "young"}})
rel("checkpoint.interval: unknown value 'fixed'", with{checkpoint = {write_s = 1, interval = "fixed"}})
rel("interval_s: must be a finite number > 0", with{checkpoint = {write_s = 1, interval_s = 0}})
rel("ckpt_s: must be > 0 for an optimal", with{checkpoint = {write_s = 0}})
rel("restart_s: required field is missing", with({}, "restart_s"))
rel("restart_s: must be in", with{restart_s = -5})
rel("waste: unknown value 'exact'", with{waste = "exact"})
rel("rate_scale: must be in", with{rate_scale = 0})
rel("rate_scale.rack: unknown field", with{rate_scale = {rack = 2}})
rel("rate_scale: expected a number or", with{rate_scale = "x"})
rel("tokens: give hours or tokens, not both", with{tokens = 1e9})
rel("hours: required: hours=", with({}, "hours"))
rel("hours: must be > 0", with{hours = 0})
rel("tokens: must be > 0", with({tokens = 0}, "hours"))
rel("tokens_per_s: required field is missing", with({tokens = 1e9}, "hours"))
rel("train.tokens_per_s: required field is missing", with({tokens = 1e9, train = {}}, "hours"))
rel("train: expected a podsim.train result", with({tokens = 1e9, train = 5}, "hours"))
rel("seed: only podsim.simulate_run takes a seed", with{seed = 1})
-- the first-order form cannot give a waste >= 1
rel("interval_s: first%-order waste", with{waste = "first", spares = "none", repair_h = 1000,
                                         checkpoint = {write_s = 30, interval_s = 3600 * 50}})
-- shrinking faster than repairs come back
rel("shrink: the job would shrink faster", with{shrink = true, spares = "none", repair_h = 1e7})

local function sim(p, t) expect(S, "podsim.simulate_run", p, t) end
sim("seed: required field is missing", base)
sim("spares: required field is missing", with({seed = 1}, "spares"))
sim("seed: expected an integer >= 0, got 1.5", with{seed = 1.5})
sim("seed: expected an integer >= 0, got %-1", with{seed = -1})
sim("failures: run did not finish within", with{failures = {{cause = "sw", rate_per_h = 1, unit = "job", blast = "job"}},
    checkpoint = {write_s = 1, interval_s = 3600 * 1000}, restart_s = 0, hours = 1000, seed = 1})

local function fs(p, t) expect(podsim.failure_set, "podsim.failure_set", p, t) end
fs("failures: expected a preset name", 5)
fs("failures%[1%]%.unit: unknown value", {{cause = "a", rate_per_h = 1, unit = "x", blast = "gpu"}})
print("rel_errors: ok")
