-- rel_api.lua: failure presets and podsim.reliability (DESIGN.md 4.5).
local function near(a, b, rel) return math.abs(a - b) <= (rel or 1e-9) * math.abs(b) end

-- Presets are lists of causes with their source.
local l3 = podsim.failures.llama3_h100
assert(l3.name == "llama3_h100" and #l3 == 18)
local total = 0
for _, c in ipairs(l3) do
  assert(type(c.cause) == "string" and c.rate_per_h > 0)
  local units = c.unit == "gpu" and 16384 or c.unit == "node" and 2048 or 1
  total = total + c.rate_per_h * units * 54 * 24
end
assert(near(total, 419))  -- Table 5 adds up to 419
assert(podsim.sources.failures.llama3_h100:find("Llama 3"))
local nvl = podsim.failures.gb200_nvl72
assert(#nvl == 21 and nvl[19].blast == "domain" and nvl[21].unit == "domain")
-- each preset cause says whether its rate is sourced or assumed, and where from
for i, c in ipairs(nvl) do
  assert(c.basis == (i > 18 and "assumed" or "sourced") and type(c.source) == "string")
end
assert(l3[1].basis == "sourced" and l3[1].source:find("Table 5"))
assert(nvl[21].source:find("assumed") and nvl[21].source:find("DGX GB200"))

-- podsim.failure_set and podsim.failure_list round-trip.
local fs = podsim.failure_set(l3)
assert(fs.name == "llama3_h100" and fs.kind == "failure set")
local back = podsim.failure_list(fs)
assert(#back == 18 and back[1].cause == l3[1].cause and back[1].rate_per_h == l3[1].rate_per_h)
-- the basis survives a round trip (the source text is informational)
assert(back[1].basis == "sourced" and back[1].source == nil)
assert(podsim.failure_list(podsim.failure_set(nvl))[20].basis == "assumed")
assert(#podsim.failure_list("gb200_nvl72") == 21)
local custom = podsim.failure_set{name = "two", {cause = "gpu", rate_per_h = 1e-5, unit = "gpu", blast = "node"},
                                   {cause = "sw", rate_per_h = 0.01, unit = "job", blast = "job"}}
assert(custom.name == "two" and #podsim.failure_list(custom) == 2)
assert(podsim.failure_list(custom)[1].basis == "given")
assert(podsim.failure_list(podsim.failure_set{}).name == "custom")

-- R1/R3 on the published configuration, computed from the preset.
local base = {system = "hgx_h100", gpus = 16384, failures = "llama3_h100",
              spares = {pool = 32, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20},
              restart_s = 300, hours = 54 * 24}
local r = podsim.reliability(base)
assert(near(r.interruptions_per_day * 54, 419))
assert(math.abs(r.job_mtbf_h - 3.09) < 0.01)
assert(math.abs(r.per_gpu_hour - 1.97e-5) < 0.01e-5)
assert(r.nodes == 2048 and r.domains == 2048 and r.gpus == 16384)
assert(r.spare_gpus == 256 and near(r.spare_fraction, 256 / (16384 + 256)))
assert(r.goodput > 0.9 and r.goodput < 1 and near(r.goodput + r.waste, 1, 1e-12))
assert(near(r.checkpoint_interval_s / 3600, math.sqrt(2 * 20 / 3600 * r.job_mtbf_h)))
assert(r.waste_model == "renewal")
assert(near(r.gpu_hours, 16384 * r.wall_h) and near(r.gpu_hours_charged, (16384 + 256) * r.wall_h))

-- Options: waste model, Daly interval, fixed interval, tokens, rate_scale.
local function with(over, drop)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(over) do t[k] = v end
  if drop then t[drop] = nil end
  return t
end
local first = podsim.reliability(with{waste = "first"})
assert(first.waste_model == "first" and first.goodput < r.goodput)
local daly = podsim.reliability(with{checkpoint = {write_s = 20, interval = "daly"}})
assert(daly.checkpoint_interval_s < r.checkpoint_interval_s * 1.1)
local fixed = podsim.reliability(with{checkpoint = {write_s = 20, interval_s = 1800}})
assert(fixed.checkpoint_interval_s == 1800 and fixed.goodput < r.goodput)
local tok = podsim.reliability(with({tokens = 3.6e9 * 1296, tokens_per_s = 1e6}, "hours"))
assert(near(tok.work_h, 1296) and near(tok.wall_h, r.wall_h))
local tr = podsim.reliability(with({tokens = 3.6e9 * 1296, train = {tokens_per_s = 1e6}}, "hours"))
assert(near(tr.wall_h, r.wall_h))
local x10 = podsim.reliability(with{rate_scale = {gpu = 10}})
assert(near(x10.interruptions_per_day * 54, 310 * 10 + 46 + 63))
local half = podsim.reliability(with{rate_scale = 0.5})
assert(near(half.interruptions_per_day * 54, 419 / 2))

-- Custom failure list; no failures at all.
local none = podsim.reliability(with{failures = {}})
assert(none.interruptions == 0 and near(none.wall_h, 1296) and none.job_mtbf_h == math.huge)

-- NVL72: 64 of 72 per rack; rack-wide failures need a spare rack.
local n = podsim.reliability{system = "gb200_nvl72", gpus = 16384, failures = "gb200_nvl72",
  spares = {per_domain = 8, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300,
  hours = 1000}
assert(n.domains == 256 and n.nodes == 4096 and n.spare_gpus == 2048)
assert(near(n.spare_fraction, 8 / 72))
local n2 = podsim.reliability{system = "gb200_nvl72", gpus = 16384, failures = "gb200_nvl72",
  spares = {per_domain = 8, pool = 2, pool_scope = "domain", swap_s = 600}, repair_h = 48,
  checkpoint = {write_s = 20}, restart_s = 300, hours = 1000}
assert(n2.goodput > n.goodput and n2.wait_h < n.wait_h and n2.spare_gpus == 2048 + 144)
-- Shrinking instead of waiting.
local n3 = podsim.reliability{system = "gb200_nvl72", gpus = 16384, failures = "gb200_nvl72",
  spares = {per_domain = 8, swap_s = 0}, shrink = true, repair_h = 48, checkpoint = {write_s = 20},
  restart_s = 300, hours = 1000}
assert(n3.wait_h == 0 and n3.goodput > n.goodput)
-- node_gpus defaults: the domain for 8-GPU systems, 4-GPU trays on NVL72
local t4 = podsim.reliability{domain_gpus = 72, node_gpus = 8, gpus = 144, failures = "gb200_nvl72",
  spares = "none", repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300, hours = 10}
assert(t4.nodes == 18)
-- spares = "none" states no spares: the same as an empty pool with no swap time.
local sn = podsim.reliability(with{spares = "none"})
local s0 = podsim.reliability(with{spares = {pool = 0, swap_s = 0}})
assert(sn.spare_gpus == 0 and sn.goodput == s0.goodput and sn.wait_h > 0)
-- the swap time is paid by every hardware interruption
local sw = podsim.reliability(with{spares = {pool = 32, swap_s = 600}})
assert(sw.goodput < r.goodput and near(sw.down_s - r.down_s, 600 * r.hw_fraction, 1e-4))
print("rel_api: ok")
