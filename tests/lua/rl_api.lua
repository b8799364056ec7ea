-- rl_api.lua: podsim.rl, podsim.rl_split, podsim.rl_sync,
-- podsim.rl_config, podsim.expected_max and the "rl" / "rl_pair" kernels.
local function fails(pattern, fn, ...)
  local ok, msg = pcall(fn, ...)
  assert(not ok, "expected an error matching " .. pattern)
  msg = tostring(msg)
  assert(msg:find("rl_api%.lua:%d+: "), "not located: " .. msg)
  assert(msg:find(pattern), "want '" .. pattern .. "', got: " .. msg)
end
local D = podsim.dist
-- E[max] against closed forms
local h = 0
for i = 1, 100 do h = h + 1 / i end
assert(math.abs(podsim.expected_max(D.exponential{mean = 1}, 100) - h) < 1e-3 * h)
assert(math.abs(podsim.expected_max(D.uniform{100, 200}, 9) - 190) < 0.2)
local opts = {system = "hgx_b200", model = "llama3_70b",
  rollout = {gpus = 8, parallel = {tp = 8}},
  train = {gpus = 64, parallel = {tp = 8}, dtype = "fp8"},
  prompts = 128, samples = 16, input_tokens = 1024,
  response = D.lognormal{median = 2000, p90 = 6000}, max_response = 16384,
  reliability = {failures = "llama3_h100", pool_units = 1}}
local r = podsim.rl(opts)
assert(math.abs(r.step_s - (r.rollout_s + r.score_s + r.train_s + r.sync_s)) < 1e-9 * r.step_s)
assert(r.sequences == 128 * 16 and r.instances == 8 and r.total_gpus == 64)
assert(r.tail_s > 0 and r.tail_s < r.rollout_s)
assert(r.goodput < 1 and r.spare_gpus == 8)
assert(r.usd_per_m_tokens_charged > r.usd_per_m_tokens)
assert(r.serve.batch == r.rollout_batch and r.train.step_s > 0)
-- partial rollouts remove the tail
opts.partial = true
local p = podsim.rl(opts)
assert(p.tail_s == 0 and p.rollout_s < r.rollout_s)
opts.partial = nil
-- the config is a base; rl_config builds without evaluating
assert(podsim.rl{base = r.config}.step_s == r.step_s)
local cfg = podsim.rl_config(opts)
assert(podsim.rl{base = cfg}.step_s == r.step_s)
-- sync alone
local s = podsim.rl_sync(opts)
assert(math.abs(s.sync_s - r.sync_s) < 1e-9 and s.bytes > 1.4e11)
-- best split of 128 GPUs (disaggregated)
local split = podsim.rl_split{system = "hgx_b200", model = "llama3_70b", gpus = 128,
  rollout = {gpus = 8, parallel = {tp = 8}}, train = {parallel = {tp = 8}, dtype = "fp8"},
  prompts = 128, samples = 16}
assert(split.rollout_gpus + split.train_gpus == 128 and split.rollout_gpus % 8 == 0)
-- kernels
local st = podsim.study{name = "rl_kernel", samples = 100, seed = 3,
  params = {["response.b"] = D.uniform{0.6, 1.0}}, eval = podsim.kernel.rl{base = r.config}}
local res = st:run()
assert(res.stats.step_s[1].n == 100 and res.stats.tail_s[1].max > res.stats.tail_s[1].min)
local b = podsim.rl_config{system = "gb200_nvl72", model = "llama3_70b",
  rollout = {gpus = 8, parallel = {tp = 8}}, train = {gpus = 64, parallel = {tp = 8}, dtype = "fp8"},
  prompts = 128, samples = 16}
local pair = podsim.study{name = "rl_pair", samples = 50, seed = 4,
  params = {price_a = D.uniform{2, 3}}, eval = podsim.kernel.rl_pair{a = b, b = cfg}}
local pr = pair:run()
assert(pr.stats.a_cheaper[1].n == 50 and pr.stats.ratio[1].min > 0)
-- errors
fails("podsim%.rl: response: normal has non%-positive support", podsim.rl,
  {system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, parallel = {tp = 8}},
   train = {gpus = 64, parallel = {tp = 8}}, response = D.normal{2000, 500}})
fails("podsim%.rl: async: needs the disaggregated placement", podsim.rl,
  {system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, parallel = {tp = 8}},
   train = {gpus = 64, parallel = {tp = 8}}, async = true})
fails("podsim%.rl: rollout%.gpus: 64 rollout GPUs do not split into instances of 48", podsim.rl,
  {system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 48, parallel = {tp = 8}},
   train = {gpus = 64, parallel = {tp = 8}}})
fails("podsim%.rl: response: a discrete distribution", podsim.rl,
  {system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, parallel = {tp = 8}},
   train = {gpus = 64, parallel = {tp = 8}}, response = D.choice{1000, 2000}})
fails("podsim%.rl_split: gpus: required", podsim.rl_split, {system = "hgx_b200", model = "llama3_70b"})
-- a training layout with interleaved stages and micro-batches above tp x cp:
-- the nested check's placeholder batch (dp x microbatch x pp) satisfies
-- Megatron's rule of at least pp micro-batches per pipeline; the step's
-- own batch (prompts x samples) is checked when it is timed
local il = podsim.rl{system = "hgx_h100", model = "llama3_70b",
  rollout = {gpus = 8, parallel = {tp = 8}}, prompts = 64, samples = 8,
  train = {gpus = 64, parallel = {tp = 1, pp = 8, vp = 2, microbatch = 2, recompute = "full"}}}
assert(il.step_s > 0 and il.train_s > 0)
fails("podsim%.rl: train%.parallel%.vp: interleaved stages %(vp 2%) need at least pp %(8%) micro%-batches",
  podsim.rl, {system = "hgx_h100", model = "llama3_70b",
  rollout = {gpus = 8, parallel = {tp = 8}}, prompts = 2, samples = 4,
  train = {gpus = 64, parallel = {tp = 1, pp = 8, vp = 2, microbatch = 2, recompute = "full"}}})
-- podsim.expected_max's arguments take core's bounds (pod_rl_expected_max_args)
local ln = D.lognormal{median = 1000, p90 = 3000}
assert(podsim.expected_max(ln, 8, 4000) < podsim.expected_max(ln, 8))
fails("podsim%.expected_max: n: must be in %[1, 1e%+12%] %(got 0%.5%)", podsim.expected_max, ln, 0.5)
fails("podsim%.expected_max: n: must be in %[1, 1e%+12%]", podsim.expected_max, ln, 1e13)
fails("podsim%.expected_max: cap: must be > 0 %(got 0%)", podsim.expected_max, ln, 8, 0)
fails("podsim%.expected_max: response: normal has non%-positive support", podsim.expected_max,
  D.normal{0, 1}, 8)
fails("podsim%.expected_max: dist: expected a podsim%.dist value", podsim.expected_max, 3, 8)
print("rl_api: ok")
