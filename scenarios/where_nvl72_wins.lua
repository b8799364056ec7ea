-- where_nvl72_wins.lua: where does a GB200 NVL72 rack beat 8-GPU HGX
-- nodes on cost per unit of work?  A Monte Carlo map over model (dense
-- 70B and 405B, DeepSeek-V3, a Kimi-K2-like 1T/32B ultra-sparse MoE),
-- workload (pre-training; on-policy RL post-training: rollouts on the
-- serving model, training, weight sync) and scale (512, 2048, 8192 GPUs),
-- against HGX B200 (same Blackwell silicon) and HGX H100.  Failures and
-- spares are charged: NVL72 runs 64 of 72 GPUs per rack with 8 hot
-- spares, HGX keeps a 2% pool of spare nodes.
--
--   build/podsim run scenarios/where_nvl72_wins.lua [--samples N] [--threads N]
--
-- The seeds' claim: as models grow or RL matters more, NVL72 pulls ahead;
-- for moderate-scale pre-training an 8-GPU B200 node looks better.
--
-- Output: per cell the probability that NVL72 is cheaper per million
-- tokens (trained tokens for pre-training, generated tokens for RL), the
-- median cost ratio and the input that decides the cell most (largest
-- |Spearman| with the cost ratio; every input's in drivers.csv, the
-- tornado of each cell); out/where_nvl72_wins/map.csv and the
-- heatmaps plots/map_b200.svg, plots/map_h100.svg.  Every sample runs the
-- built-in "rl_pair" evaluator (no Lua per sample): both systems on the
-- same sampled workload, so each sample is one paired comparison.
local P = podsim
local D = P.dist
local SAMPLES = P.options.samples or 100000

-- Kimi-K2-like ultra-sparse MoE from moonshotai/Kimi-K2-Instruct
-- config.json: DeepSeek-V3's MLA and expert width, 64 heads, 384 routed
-- experts (top-8) + 1 shared, first layer dense, vocab 163840; 1.03T
-- total, 32B active.
local kimi = P.model{base = "deepseek_v3", name = "kimi_k2", heads = 64, kv_heads = 64,
  experts = 384, dense_layers = 1, vocab = 163840, mtp_layers = 0}
local models = {
  {key = "dense_70b", model = "llama3_70b", seq = 8192, moe = false},
  {key = "dense_405b", model = "llama3_405b", seq = 8192, moe = false},
  {key = "deepseek_v3", model = "deepseek_v3", seq = 4096, moe = true, redundant = 64},
  {key = "kimi_k2_1t", model = kimi, seq = 4096, moe = true, redundant = 0},
}
local scales = {512, 2048, 8192}

-- Systems: reliability footprint and spares (failure sets of podsim.rel).
local systems = {
  nvl72 = {system = "gb200_nvl72", failures = "gb200_nvl72", node_gpus = 4, domain_gpus = 72,
    -- 8 hot spares per rack (sampled below) and the 2% pool policy of HGX
    spares = function(g)
      return {spare_per_domain = 8, pool_units = math.max(1, math.ceil(g / 64 * 0.02)), pool_scope = "domain"}
    end,
    host_GBps = 200},  -- Grace memory over NVLink-C2C (see core/rl.c)
  b200 = {system = "hgx_b200", failures = "llama3_h100", node_gpus = 8, domain_gpus = 8,
    spares = function(g) return {pool_units = math.max(1, math.ceil(g / 8 * 0.02)), pool_scope = "node"} end,
    host_GBps = 64},
  h100 = {system = "hgx_h100", failures = "llama3_h100", node_gpus = 8, domain_gpus = 8,
    spares = function(g) return {pool_units = math.max(1, math.ceil(g / 8 * 0.02)), pool_scope = "node"} end,
    host_GBps = 64},
}

-- RL workload (reasoning RL, DAPO-like; see tests/validation/l2): prompts
-- grow with the pool, 16 responses each, long-tailed lengths.
local RL = {samples = 16, input = 1024, response = D.lognormal{median = 4000, p90 = 12000},
  max_response = 32768}
local RESP_MAX = 1.8 -- largest sampled response-length multiplier
local function prompts_for(g) return 2 * g end -- 32 responses per GPU per step

local function quiet_print(...) if not P.options.quiet then print(...) end end

local function layout_of(l)
  return {tp = l.tp, pp = l.pp, vp = l.vp, ep = l.ep, etp = l.etp, cp = l.cp,
    microbatch = l.microbatch, zero = l.zero, recompute = l.recompute, uneven = l.uneven}
end

-- The best training layout at the nominal parameters (podsim.search),
-- sized for the worst sampled routing imbalance (MoE memory grows with it).
local function best_layout(sys, m, gpus, seq, gbs)
  local model = m.moe and P.model{base = m.model, imbalance = 1.4} or m.model
  local ok, best = pcall(P.search, {system = sys, model = model, gpus = gpus, seq = seq,
    global_batch = gbs, dtype = "fp8", top = 1, max_pp = 16, max_vp = 4, max_cp = 4, max_mb = 2})
  if ok and best[1] then return layout_of(best[1]) end
  return nil
end

local function rel_of(s, g)
  local r = {failures = s.failures, node_gpus = s.node_gpus, domain_gpus = s.domain_gpus,
    swap_s = 300, restart_s = 600, repair_h = 24}
  for k, v in pairs(s.spares(g)) do r[k] = v end
  return r
end

-- Rollout instance candidates: the cheapest that fits at nominal.  MoE
-- instances with and without two-batch overlap: each micro-batch reads
-- the GEMM weights (serve.c, gemm_w_overlap), and an NVLink-only EP group
-- needs no overlap to hide its dispatch (LMSYS 2025-06-16, GB200 part I:
-- the NVLink domain "allows two-batch overlap to be disabled").
local function rollout_candidates(m)
  if not m.moe then
    return {{gpus = 8, parallel = {tp = 8}}, {gpus = 4, parallel = {tp = 4}},
      {gpus = 2, parallel = {tp = 2}}, {gpus = 16, parallel = {tp = 8, pp = 2}}}
  end
  local c = {}
  for _, n in ipairs{8, 16, 32, 64} do
    for _, tbo in ipairs{true, false} do
      c[#c + 1] = {gpus = n, parallel = {tp = 1, ep = n}, redundant_experts = m.redundant,
        two_batch_overlap = tbo}
    end
  end
  return c
end

-- Workloads: pre-training; synchronous RL (the step waits for its longest
-- response); RL with partial rollouts (long responses carry over, no tail
-- wait: generation throughput decides).
local WORKLOADS = {"pretrain", "rl", "rl_partial"}

local function rl_opts(s, m, g, train_layout, rollout, partial)
  local r = {gpus = rollout.gpus, parallel = rollout.parallel, dtype = "fp8",
    redundant_experts = rollout.redundant_experts, two_batch_overlap = rollout.two_batch_overlap}
  return {system = s.system, model = m.model, placement = "colocated",
    rollout = r, train = {gpus = g, dtype = "fp8", parallel = train_layout},
    prompts = prompts_for(g), samples = RL.samples, input_tokens = RL.input,
    response = RL.response, max_response = RL.max_response, host_GBps = s.host_GBps,
    hours = 200, reliability = rel_of(s, g), partial = partial}
end

-- Build every cell's two or three configs at nominal parameters.
local cells = {}
for _, m in ipairs(models) do
  for _, g in ipairs(scales) do
    for _, work in ipairs(WORKLOADS) do
      local cell = {model = m.key, workload = work, gpus = g, cfg = {}}
      for key, s in pairs(systems) do
        local cfg
        if work == "pretrain" then
          local l = best_layout(s.system, m, g, m.seq, g)
          if l then
            cfg = P.rl_config{system = s.system, model = m.model, rollout = {gpus = 1},
              train = {gpus = g, seq = m.seq, global_batch = g, dtype = "fp8", parallel = l},
              hours = 720, reliability = rel_of(s, g)}
          end
        else
          -- layout sized for the longest sampled responses
          local long = P.dist.lognormal{median = 4000 * RESP_MAX, p90 = 12000 * RESP_MAX}
          local mean = P.expected_max(long, 1, RL.max_response)
          local seq = math.ceil((RL.input + mean) / 512) * 512
          local l = best_layout(s.system, m, g, seq, prompts_for(g) * RL.samples)
          local best, best_cost
          for _, cand in ipairs(l and rollout_candidates(m) or {}) do
            if g % cand.gpus == 0 then
              local opts = rl_opts(s, m, g, l, cand, work == "rl_partial")
              local ok, res = pcall(P.rl, opts)
              if ok and (not best_cost or res.usd_per_m_tokens_charged < best_cost) then
                best, best_cost = res.config, res.usd_per_m_tokens_charged
                cell.rollout = cell.rollout or {}
                cell.rollout[key] = cand.gpus
              end
            end
          end
          cfg = best
        end
        cell.cfg[key] = cfg
      end
      cells[#cells + 1] = cell
    end
  end
end

-- Uncertain inputs.  Shared by both sides of a pair (one workload, one
-- software stack): software maturity, serving overlap, MoE imbalance,
-- response length.  Per side: fabric efficiencies, prices, failure rates.
local B200, NVL, H100 = P.systems.hgx_b200, P.systems.gb200_nvl72, P.systems.hgx_h100
local function params(other)
  local o = P.systems[systems[other].system]
  return {
    eff_scale = D.triangular{0.85, 1.0, 1.10},   -- training efficiency vs the calibrated table
    overlap = D.uniform{0.6, 1.0},               -- serving: share hidden by two-batch overlap (S2 fit 0.95)
    imbalance = D.triangular{1.0, 1.1, 1.4},     -- MoE routing max/mean (trainers; serving: expert_cv)
    resp_scale = D.triangular{0.6, 1.0, RESP_MAX},   -- response lengths
    up_eff_a = D.triangular{0.70, NVL.up_eff, 0.90},   -- NVLink5 inside the rack
    -- fixed cost of a DeepEP low-latency dispatch on NVLink alone: from the
    -- H20 fit (19 us, S1) up to the InfiniBand one (34 us); S4 (SGLang's
    -- GB200 decode) passes at the nominal 19 us
    ["a.rollout.ep_ll_up_us"] = D.uniform{15, 34},
    out_eff_b = D.triangular{0.80, o.out_eff, 0.96},   -- 400G NICs between nodes
    up_eff_b = D.triangular{0.70, o.up_eff, 0.90},
    -- USD per GPU-hour: presets as modes (public.md K1), -20% / +25%
    price_a = D.triangular{0.8 * NVL.usd_per_gpu_hour, NVL.usd_per_gpu_hour, 1.25 * NVL.usd_per_gpu_hour},
    price_b = D.triangular{0.8 * o.usd_per_gpu_hour, o.usd_per_gpu_hour, 1.25 * o.usd_per_gpu_hour},
    -- failure rates: per-GPU/tray near the sets, NVL72 rack-level wide
    -- hot spares kept per NVL72 rack (charged to the job): 0 to 8
    ["a.reliability.spare_per_domain"] = D.uniform{-0.49, 8.49},
    ["a.reliability.gpu_rate_log10"] = D.normal{0, 0.15},
    ["a.reliability.domain_rate_log10"] = D.uniform{-1, 1},
    ["b.reliability.gpu_rate_log10"] = D.normal{0, 0.1},
  }
end

local studies, index = {}, {}
for i, cell in ipairs(cells) do
  for _, other in ipairs{"b200", "h100"} do
    local a, b = cell.cfg.nvl72, cell.cfg[other]
    if a and b then
      local s = P.study{
        name = string.format("%s_%s_%d_vs_%s", cell.model, cell.workload, cell.gpus, other),
        samples = SAMPLES, seed = 2026 + i,
        params = params(other),
        eval = P.kernel.rl_pair{a = a, b = b, pretrain = cell.workload == "pretrain"},
      }
      studies[#studies + 1] = s:start()
      index[#studies] = {cell = cell, other = other}
    end
  end
end
local results = P.all(studies)

-- The map.
local rows, csv = {}, {}
local function driver(r)
  local best, bv = "-", 0
  for name, v in pairs(r.sens.ratio[1]) do
    if math.abs(v.spearman) > math.abs(bv) then best, bv = name, v.spearman end
  end
  return best, bv
end
local byc, drivers = {}, {}
for k, r in ipairs(results) do
  local ix = index[k]
  local key = ix.cell.model .. "/" .. ix.cell.workload .. "/" .. ix.cell.gpus
  byc[key] = byc[key] or {cell = ix.cell}
  local d, dv = driver(r)
  -- the whole tornado of the cost ratio, largest |Spearman| first
  local sens = {}
  for name, v in pairs(r.sens.ratio[1]) do sens[#sens + 1] = {name, v.spearman} end
  table.sort(sens, function(x, y) return math.abs(x[2]) > math.abs(y[2]) end)
  for rank, e in ipairs(sens) do
    drivers[#drivers + 1] = {model = ix.cell.model, workload = ix.cell.workload,
      gpus = ix.cell.gpus, versus = ix.other, rank = rank, param = e[1], spearman = e[2]}
  end
  byc[key][ix.other] = {p = r.stats.a_cheaper[1].mean, ratio = r.stats.ratio[1].p50,
    lo = r.stats.ratio[1].p5, hi = r.stats.ratio[1].p95, driver = d, dv = dv,
    n = r.stats.ratio[1].n}
end
for _, cell in ipairs(cells) do
  local key = cell.model .. "/" .. cell.workload .. "/" .. cell.gpus
  local e = byc[key] or {}
  local b, h = e.b200 or {}, e.h100 or {}
  local function pf(x) return x and string.format("%.2f", x) or "n/a" end
  rows[#rows + 1] = {cell.model, cell.workload, tostring(cell.gpus), pf(b.p), pf(b.ratio),
    b.driver and string.format("%s %+.2f", b.driver, b.dv) or "-", pf(h.p), pf(h.ratio)}
  csv[#csv + 1] = {model = cell.model, workload = cell.workload, gpus = cell.gpus,
    p_nvl72_cheaper_vs_b200 = b.p or "", ratio_p50_vs_b200 = b.ratio or "",
    ratio_p5_vs_b200 = b.lo or "", ratio_p95_vs_b200 = b.hi or "", driver_vs_b200 = b.driver or "",
    p_nvl72_cheaper_vs_h100 = h.p or "", ratio_p50_vs_h100 = h.ratio or "",
    driver_vs_h100 = h.driver or "", samples = b.n or ""}
end
print(string.format("P(GB200 NVL72 cheaper per million tokens), %d samples per cell; ratio = NVL72 cost / HGX cost (p50)", SAMPLES))
P.print_table({"model", "workload", "GPUs", "P vs B200", "ratio", "decides (Spearman)", "P vs H100", "ratio"}, rows)
local path = P.write_csv("map.csv", {"model", "workload", "gpus", "p_nvl72_cheaper_vs_b200",
  "ratio_p50_vs_b200", "ratio_p5_vs_b200", "ratio_p95_vs_b200", "driver_vs_b200",
  "p_nvl72_cheaper_vs_h100", "ratio_p50_vs_h100", "driver_vs_h100", "samples"}, csv)
P.write_csv("drivers.csv", {"model", "workload", "gpus", "versus", "rank", "param", "spearman"},
  drivers)
-- the maps: one row per model/workload, one column per scale
for _, other in ipairs{"b200", "h100"} do
  local hm = {}
  for _, m in ipairs(models) do
    for _, work in ipairs(WORKLOADS) do
      for _, g in ipairs(scales) do
        local e = byc[m.key .. "/" .. work .. "/" .. g]
        hm[#hm + 1] = {row = m.key .. " " .. work, col = g, value = e and e[other] and e[other].p}
      end
    end
  end
  P.plot_heatmap{cells = hm, title = "P(GB200 NVL72 cheaper than HGX " .. other:upper() .. ")",
    xname = "GPUs", cbname = "probability", output = "plots/map_" .. other .. ".svg",
    data = "heatmap_" .. other .. ".csv"}
end
print("map in " .. path)
