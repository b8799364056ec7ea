-- serve_api.lua: podsim.serve, podsim.ep_time and the "serve" kernel:
-- result fields, derived quantities, the concurrency alias, errors named
-- by field and located at the scenario line.
local function fails(pattern, fn, ...)
  local ok, msg = pcall(fn, ...)
  assert(not ok, "expected an error matching " .. pattern)
  msg = tostring(msg)
  assert(msg:find("serve_api%.lua:%d+: "), "not located: " .. msg)
  assert(msg:find(pattern), "want '" .. pattern .. "', got: " .. msg)
end
local S = podsim.serve
local r = S{system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8},
  batch = 64, input_tokens = 2000, output_tokens = 500}
assert(r.batch == 64 and r.max_batch >= 64)
assert(math.abs(r.decode_tokens_per_s - 64 / r.tpot_s) < 1e-6 * r.decode_tokens_per_s)
assert(math.abs(r.decode_tokens_per_s_per_gpu * 8 - r.decode_tokens_per_s) < 1e-6)
-- GQA KV cache: 2 (K, V) x 8 heads x 128 x 80 layers x 2 bytes per token
assert(r.kv_bytes_per_token == 2 * 8 * 128 * 80 * 2)
assert(math.abs(r.kv_gb_per_seq - r.kv_bytes_per_token * 2500 / 1e9) < 1e-12)
local m = r.memory
assert(math.abs(m.total_gb - (m.weights_gb + m.kv_gb + m.reserve_gb)) < 1e-9)
local s = r.step
assert(math.abs(s.total - (s.attn + s.dense + s.expert + s.tp + s.ep + s.pp + s.overhead + s.act + s.draft)) < 1e-12)
assert(r.pass.total > 0 and r.ttft_s >= r.pass.total)
assert(r.usd_per_m_output > 0)
-- concurrency is batch
local c = S{system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8},
  concurrency = 64, input_tokens = 2000, output_tokens = 500}
assert(c.tpot_s == r.tpot_s)
-- the config round-trips as a base
local again = S{base = r.config}
assert(again.tpot_s == r.tpot_s)
-- MoE: experts touched grow with batch; NVL72 expert dispatch beats IB
local function moe(sys, b)
  return S{system = sys, model = "deepseek_v3", gpus = 72, redundant_experts = 32,
    batch = b, input_tokens = 2000, output_tokens = 100}
end
assert(moe("hgx_b200", 72).experts_touched < moe("hgx_b200", 72 * 64).experts_touched)
assert(moe("gb200_nvl72", 72 * 64).step.ep < moe("hgx_b200", 72 * 64).step.ep)
-- disaggregated: KV transfer joins the time to first token
local d = S{system = "hgx_h100", model = "deepseek_v3", gpus = 72, redundant_experts = 32,
  batch = 72 * 64, prefill = {gpus = 32}}
assert(d.kv_transfer_s > 0 and math.abs(d.ttft_s - d.prefill_pass_s - d.kv_transfer_s) < 1e-12)
-- ep_time: one LL dispatch, zero for one rank
local t = podsim.ep_time{system = "hgx_h800", ranks = 32, tokens = 128, hidden = 7168, top_k = 8,
  bytes_per_elem = 1}
assert(t > 34e-6 and t < 1e-3)
assert(podsim.ep_time{system = "hgx_h800", ranks = 1, tokens = 128, hidden = 7168, top_k = 8} == 0)
-- the row's factors take core's bounds (pod_serve_ep_row_args)
fails("podsim%.ep_time: hidden: must be in %[1, 1000000000%] %(got 0%.5%)", podsim.ep_time,
  {system = "hgx_h800", ranks = 8, tokens = 128, hidden = 0.5, top_k = 8})
fails("podsim%.ep_time: bytes_per_elem: must be in %[0%.01, 16%] %(got 32%)", podsim.ep_time,
  {system = "hgx_h800", ranks = 8, tokens = 128, hidden = 7168, top_k = 8, bytes_per_elem = 32})
-- ll_up_us is the fixed cost when every peer is on NVLink (EP8 in one node)
local e8 = {system = "hgx_h800", ranks = 8, tokens = 128, hidden = 7168, top_k = 8}
local base8 = podsim.ep_time(e8)
e8.ll_up_us = 19 + 10
assert(math.abs(podsim.ep_time(e8) - base8 - 10e-6) < 1e-9)
-- cast_us: per token on its sending block; 288 experts on 132 Hopper SMs
-- are 3 warp groups per block, 96 blocks: 128 tokens are 2 per block
e8.ll_up_us = nil
e8.cast_us = 5
assert(math.abs(podsim.ep_time(e8) - base8 - 2 * 5e-6) < 1e-9)
e8.experts = 128 -- one group per block, 128 blocks: one token each
assert(math.abs(podsim.ep_time(e8) - base8 - 5e-6) < 1e-9)
e8.experts, e8.cast_us = nil, nil
fails("podsim%.ep_time: cast_us: must be in %[0, 1000000%] %(got %-1%)", podsim.ep_time,
  {system = "hgx_h800", ranks = 8, tokens = 128, hidden = 7168, top_k = 8, cast_us = -1})
fails("podsim%.ep_time: experts: ", podsim.ep_time,
  {system = "hgx_h800", ranks = 8, tokens = 128, hidden = 7168, top_k = 8, experts = 0})
-- the serving default: NVFP4 dispatch only
do
  local cfg = {system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = 48 * 256, redundant_experts = 32, dtype = "fp4"}
  local with = podsim.serve(cfg)
  assert(with.config.ep_cast_us > 0)
  cfg.ep_cast_us = 0
  assert(podsim.serve(cfg).step.ep < with.step.ep)
  fails("ep_cast_us", podsim.serve, {system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = 48, ep_cast_us = -1})
end
-- the kernel boundaries: counted (layer_us < 0) x kernel_us, whatever the batch
do
  local cfg = {system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = 48 * 256, redundant_experts = 32, dtype = "fp4",
    dense_dtype = "fp8"}
  local d = podsim.serve(cfg)
  assert(d.config.layer_us < 0 and d.config.kernel_us == 0.8)
  assert(math.abs(d.step.overhead - 1631 * 0.8e-6) < 1e-12, d.step.overhead)
  cfg.kernel_us = 2
  local k2 = podsim.serve(cfg)
  assert(math.abs(k2.step.overhead - 1631 * 2e-6) < 1e-12)
  cfg.layer_us = 8
  assert(math.abs(podsim.serve(cfg).step.overhead - 61 * 8e-6) < 1e-12)
  fails("kernel_us", podsim.serve, {system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = 48, kernel_us = -1})
  fails("layer_us", podsim.serve, {system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = 48, layer_us = -2})
end
-- kernel in a study: no Lua per sample
local st = podsim.study{name = "serve_kernel", samples = 200, seed = 1,
  params = {eff_hbm = podsim.dist.uniform{0.7, 0.9}},
  eval = podsim.kernel.serve{base = r.config}}
local res = st:run()
local tp = res.stats.decode_tokens_per_s_per_gpu[1]
assert(tp.n == 200 and tp.min > 0 and tp.max > tp.min)
-- errors
fails("podsim%.serve: parallel%.tp: 16 is above the model's 8 KV heads",
  S, {system = "hgx_h100", model = "llama3_70b", gpus = 16, parallel = {tp = 16}})
fails("podsim%.serve: batch: 100000 sequences need", S,
  {system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8}, batch = 100000})
fails("podsim%.serve: gpus: required field is missing", S, {system = "hgx_h100", model = "llama3_70b"})
fails("podsim%.serve: concurrency: give batch or concurrency, not both", S,
  {system = "hgx_h100", model = "llama3_70b", gpus = 8, batch = 1, concurrency = 2})
fails("podsim%.serve: prefix_hit: must be in", S,
  {system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8}, prefix_hit = 1})
fails("podsim%.serve: gpus: weights need", S, {system = "hgx_h100", model = "deepseek_v3", gpus = 8})
fails("podsim%.ep_time: ranks: ", podsim.ep_time, {system = "hgx_h800", ranks = 0, tokens = 1,
  hidden = 1, top_k = 1})
print("serve_api: ok")
-- the pass sums its parts; two-batch overlap on an MoE prefill hides the
-- all-to-all up to the compute and charges DeepEP's SMs (ep_sms of 132)
do
  local function P(tbo, sms)
    return S{system = "hgx_h100", model = "deepseek_v3", gpus = 72, parallel = {ep = 72},
      redundant_experts = 32, batch = 72, input_tokens = 2000, output_tokens = 1,
      two_batch_overlap = tbo, ep_sms = sms, prefill = {gpus = 32, ep = 32}}.pass
  end
  local a, b = P(false, 20), P(true, 20)
  assert(a.ep_sm == 0 and b.comm == 0)
  local t = a.gemm + a.attn + a.overhead + a.act
  assert(math.abs(a.total - (t + a.comm)) < 1e-12)
  -- two micro-batches: each GEMM has half the rows (gemm_m_half)
  local tb = b.gemm + b.attn + b.overhead + b.act
  assert(b.gemm > a.gemm)
  assert(math.abs(b.ep_sm - tb * 20 / 112) < 1e-12)
  assert(math.abs(P(true, 0).total - tb) < 1e-12)
  assert(b.act > 0)
end
-- weight streaming, single-batch overlap and prefill attention precision:
-- defaults, the roofline at gemm_w_overlap = 1, the combine hidden under
-- the down GEMM, bf16 prefill attention with an fp8 KV cache
do
  local base = {system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {ep = 48}, redundant_experts = 32, batch = 48 * 512, input_tokens = 2000,
    output_tokens = 100, kv_dtype = "fp8"}
  local function with(t)
    local c = {}
    for k, v in pairs(base) do c[k] = v end
    for k, v in pairs(t) do c[k] = v end
    return S(c)
  end
  local d = with{}
  assert(d.config.gemm_w_overlap == 0 and d.config.single_batch_overlap == false)
  assert(d.config.fp8_prefill_attn == false)
  local roofline = with{gemm_w_overlap = 1}
  assert(roofline.step.dense < d.step.dense and roofline.step.expert < d.step.expert)
  local sbo = with{single_batch_overlap = true}
  assert(sbo.step.ep < d.step.ep and sbo.step.attn == d.step.attn)
  assert(math.abs((d.step.total - sbo.step.total) - (d.step.ep - sbo.step.ep)) < 1e-12)
  local fp8pre = with{fp8_prefill_attn = true}
  assert(math.abs(fp8pre.pass.attn * 2 - d.pass.attn) < 1e-12 * d.pass.attn)
  assert(fp8pre.step.attn == d.step.attn)
  fails("podsim%.serve: gemm_w_overlap: ", S, {system = "hgx_h100", model = "llama3_70b",
    gpus = 8, parallel = {tp = 8}, batch = 8, gemm_w_overlap = 2})
end
print("serve_api: new fields ok")
