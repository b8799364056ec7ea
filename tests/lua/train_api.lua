-- Lua API of the training-step model: presets, podsim.model{}, counts,
-- podsim.train{} and its fields, the "train" built-in evaluator.
local function near(a, b, rel, what)
  assert(math.abs(a - b) <= (rel or 1e-9) * math.abs(b),
    string.format("%s: %.10g vs %.10g", what or "value", a, b))
end

-- Presets: the seven models of DESIGN.md 5 and the two Qwen3 MoE models,
-- with their published sizes.
local want = {llama3_8b = 8.03e9, llama3_70b = 70.6e9, llama3_405b = 405e9,
  llama4_maverick = 400e9, deepseek_v3 = 671e9, mixtral_8x7b = 46.7e9, gpt3_175b = 175e9,
  qwen3_30b_a3b = 30.5e9, qwen3_235b_a22b = 235e9}
for name, total in pairs(want) do
  local m = podsim.models[name]
  assert(m, name)
  assert(m.name == name)
  near(podsim.model_params(m).total, total, 0.02, name)
  assert(podsim.model_params(name).total == podsim.model_params(m).total)
end
local mav = podsim.models.llama4_maverick
assert(mav.experts == 128 and mav.top_k == 1 and mav.moe_interval == 2 and mav.attn == "gqa")
near(podsim.model_params(mav).active, 17e9, 0.02, "maverick active")
assert(podsim.models.deepseek_v3.attn == "mla" and podsim.models.deepseek_v3.kv_lora == 512)
assert(podsim.models.gpt3_175b.tied_embeddings == true)
near(podsim.model_params("qwen3_30b_a3b").active, 3.3e9, 0.03, "qwen3 30b active")
near(podsim.model_params("qwen3_235b_a22b").active, 22e9, 0.03, "qwen3 235b active")

-- podsim.model{base=, ...}: overrides; from scratch.
local half = podsim.model{base = "llama3_70b", name = "llama_half", layers = 40}
assert(half.layers == 40 and half.hidden == 8192 and half.name == "llama_half")
assert(podsim.model_params(half).total < podsim.model_params("llama3_70b").total)
local tiny = podsim.model{name = "tiny", layers = 2, hidden = 64, ffn = 128, heads = 4,
  kv_heads = 2, head_dim = 16, vocab = 100, attn = "gqa", gated_mlp = true}
assert(podsim.model_params(tiny).total == 2 * (12352 + 24640) + 6400 + 6400 + 64)
local f = podsim.model_flops(tiny, 32)
assert(f.total == 442368 + 24576 + 38400)
assert(podsim.model_flops(tiny, 32, false).attn == 2 * 24576)

-- podsim.train{}: DESIGN.md 5 fields plus the breakdown.
local r = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, dtype = "bf16", parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
for _, k in ipairs{"step_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu",
  "peak_tflops", "memory_gb", "flops_per_token", "eff_gemm", "eff_attn"} do
  assert(type(r[k]) == "number" and r[k] > 0, k)
end
assert(r.fits == true and r.dp == 2 and r.microbatches == 64 and r.peak_tflops == 989)
local sum = 0
for _, k in ipairs{"compute", "tp", "cp", "ep", "pp", "dp", "bubble", "optimizer", "straggler"} do
  assert(r.breakdown[k] >= 0, k)
  sum = sum + r.breakdown[k]
end
near(sum, r.step_s, 1e-12, "breakdown sum")
assert(r.breakdown.ep == 0 and r.breakdown.tp > 0 and r.breakdown.bubble > 0)
near(r.memory.total_gb, r.memory_gb, 1e-12, "memory")
near(r.tokens_per_s_per_gpu * 64 * r.step_s, 128 * 8192, 1e-9, "tokens")
-- The config comes back as a spec, with defaults filled in.
assert(r.config.parallel.tp == 4 and r.config.parallel.zero == 1)
assert(r.config.overlap_tp > 0 and r.config.jitter > 0 and r.config.dtype == "bf16")
-- Defaults: parallel may be left out; a spec system or model works.
local r1 = podsim.train{system = podsim.systems.hgx_h100, model = tiny, gpus = 1, seq = 32,
  global_batch = 2}
assert(r1.breakdown.tp == 0 and r1.breakdown.dp == 0 and r1.breakdown.straggler == 0)
-- Sampled-parameter fields change the answer the physical way.
local slow = podsim.train{system = podsim.system{base = "hgx_h100", nic_gbps = 100},
  model = "llama3_70b", gpus = 64, seq = 8192, global_batch = 128,
  parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
assert(slow.step_s >= r.step_s)
local full = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, mfu_full_attn = true, parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
near(full.step_s, r.step_s, 1e-12, "MFU convention does not change time")
assert(full.mfu > r.mfu)

-- Built-in evaluator: per-sample configs without Lua.
local s = podsim.study{name = "train_kernel", samples = 64, seed = 7,
  params = {["system.nic_gbps"] = podsim.dist.uniform{lo = 200, hi = 400},
            jitter = podsim.dist.fixed{value = 0.0153}},
  eval = podsim.kernel.train{base = r.config}}
local res = s:run()
assert(res.evaluator == "train")
local st = res.stats.step_s[1]
assert(st.n == 64)
assert(st.min >= r.step_s * (1 - 1e-12), "lower NIC bandwidth cannot be faster")
assert(res.stats.tokens_per_s_per_gpu[1].mean > 0 and res.stats.fits[1].mean == 1)
local s2 = podsim.study{name = "train_kernel2", samples = 16, seed = 1,
  params = {overlap_ep = podsim.dist.uniform{lo = 0, hi = 1}},
  eval = podsim.kernel.train{base = "default", system = "gb200_nvl72",
    model = "llama4_maverick", gpus = 128, seq = 8192, global_batch = 1024, dtype = "fp8",
    parallel = {base = "default", pp = 2, vp = 12, ep = 64}}}
local res2 = s2:run()
assert(res2.stats.ep_s[1].max > res2.stats.ep_s[1].min)
