-- cost_api.lua: podsim.cost results and identities (DESIGN.md 4.4).
local function near(a, b, rel) return math.abs(a - b) <= (rel or 1e-12) * math.abs(b) end

-- Rental price, spares excluded and charged.
local c = podsim.cost{train = {tokens_per_s_per_gpu = 4000, gpus = 64, step_s = 6},
                      usd_per_gpu_hour = 2.0, spares = 8, tokens = 1e12}
assert(near(c.usd_per_m_tokens, 2.0 / (4000 * 3600 / 1e6)))
assert(c.usd_per_m_tokens_excluded == c.usd_per_m_tokens)
assert(near(c.usd_per_m_tokens_charged / c.usd_per_m_tokens, 72 / 64))
-- cost per Mtok x tokens = total, both ways
assert(near(c.usd_per_m_tokens * 1e12 / 1e6, c.usd_total, 1e-9))
assert(near(c.usd_per_m_tokens_charged * 1e12 / 1e6, c.usd_total_charged, 1e-9))
assert(near(c.train_h, 1e12 / (4000 * 64) / 3600))
assert(near(c.gpu_hours_charged / c.gpu_hours, 72 / 64))
assert(near(c.usd_per_step, 2.0 * 64 * 6 / 3600))
assert(c.gpus == 64 and c.spare_gpus == 8)
assert(near(c.spare_fraction, 8 / 72))
assert(c.usd_per_gpu_hour == 2.0 and c.usd_per_gpu_hour_parts.capital_usd == 0)

-- Active GPUs from the job's tokens/s; flat fields instead of train=.
local d = podsim.cost{train = {tokens_per_s_per_gpu = 1000, tokens_per_s = 512000},
                      usd_per_gpu_hour = 1, tokens = 1e9}
assert(d.gpus == 512)
local e = podsim.cost{tokens_per_s_per_gpu = 1000, gpus = 512, usd_per_gpu_hour = 1, tokens = 1e9}
assert(near(e.usd_total, d.usd_total))
-- No tokens: per-token figures only; gpus may be omitted.
local f = podsim.cost{tokens_per_s_per_gpu = 1000, usd_per_gpu_hour = 1}
assert(f.usd_total == 0 and f.train_h == 0 and f.gpus == 1)

-- TCO parts: capital recovery factor, energy, hosting, operations.
local tco = {capex_usd_per_gpu = 40000, amort_years = 5, capital_rate = 0.08,
             power_kw_per_gpu = 1.4, pue = 1.3, usd_per_kwh = 0.08,
             hosting_usd_per_kw_month = 150, ops_usd_per_gpu_year = 1000}
local t = podsim.cost{tokens_per_s_per_gpu = 1000, tco = tco}
local crf = 0.08 * 1.08 ^ 5 / (1.08 ^ 5 - 1)
local p = t.usd_per_gpu_hour_parts
assert(near(p.capital_usd, 40000 * crf / 8760))
assert(near(p.energy_usd, 1.4 * 1.3 * 0.08))
assert(near(p.hosting_usd, 1.4 * 150 * 12 / 8760))
assert(near(p.ops_usd, 1000 / 8760))
assert(near(t.usd_per_gpu_hour, p.capital_usd + p.energy_usd + p.hosting_usd + p.ops_usd))
-- zero cost of capital is straight-line depreciation
tco.capital_rate = 0
local s = podsim.cost{tokens_per_s_per_gpu = 1000, tco = tco}
assert(near(s.usd_per_gpu_hour_parts.capital_usd, 40000 / 5 / 8760))

-- The system's rental price when none is given.
local g = podsim.cost{tokens_per_s_per_gpu = 1000, system = "hgx_h100"}
assert(g.usd_per_gpu_hour == podsim.systems.hgx_h100.usd_per_gpu_hour)

-- Goodput and spares from a reliability result.
local r = podsim.reliability{system = "gb200_nvl72", gpus = 16384, failures = "gb200_nvl72",
  spares = {per_domain = 8, pool = 2, pool_scope = "domain", swap_s = 300}, repair_h = 24,
  checkpoint = {write_s = 20}, restart_s = 300, hours = 1000}
local h = podsim.cost{tokens_per_s_per_gpu = 10000, usd_per_gpu_hour = 2.36,
                      reliability = r, tokens = 1e13}
assert(h.gpus == 16384 and h.spare_gpus == r.spare_gpus and h.goodput == r.goodput)
assert(near(h.usd_per_m_tokens, 2.36 / (10000 * r.goodput * 3600 / 1e6)))
assert(near(h.usd_per_m_tokens_charged / h.usd_per_m_tokens, (16384 + r.spare_gpus) / 16384))
-- spares= overrides the reliability result's spares
local h2 = podsim.cost{tokens_per_s_per_gpu = 10000, usd_per_gpu_hour = 2.36,
                       reliability = r, spares = 0, tokens = 1e13}
assert(h2.usd_per_m_tokens_charged == h2.usd_per_m_tokens)
-- spares= may be a table with spare_gpus
local h3 = podsim.cost{tokens_per_s_per_gpu = 10000, usd_per_gpu_hour = 2.36,
                       gpus = 16384, spares = r}
assert(h3.spare_gpus == r.spare_gpus)
print("cost_api: ok")
