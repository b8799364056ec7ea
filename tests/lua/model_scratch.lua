-- Lua API tests: a model built from scratch (no base=) has sane MoE
-- defaults (before: moe_interval and imbalance started at 0, so an MoE
-- model from the documented fields failed with "moe_interval: must be in
-- [1, ...] (got 0)").
local T = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*)/") .. "/util/expect.lua")
local spec = {name = "scratch_moe", layers = 32, hidden = 4096, ffn = 14336, heads = 32,
  kv_heads = 8, attn = "gqa", vocab = 32000, gated_mlp = true,
  experts = 8, top_k = 2, expert_ffn = 14336}
local m = podsim.model(spec)
T.eq(m.moe_interval, 1, "every layer MoE")
T.eq(m.imbalance, 1, "even routing")
T.eq(m.capacity_factor, 0, "dropless")
T.eq(m.dense_layers, 0, "no dense layers")
-- the same shape as the Mixtral 8x7B preset: the same parameter count
local mix = podsim.model_params("mixtral_8x7b")
local mine = podsim.model_params(m)
T.eq(mine.total, mix.total, "scratch MoE = the preset's parameters")
T.eq(mine.active, mix.active, "active parameters")
-- and it trains
local r = podsim.train{system = "hgx_h100", model = m, gpus = 64, seq = 4096, global_batch = 256,
  parallel = {tp = 2, ep = 8, pp = 1}}
T.truthy(r.step_s > 0 and r.fits, "trains")
-- what has no sane default stays required
spec.top_k = nil
T.error("podsim.model: top_k: must be in %[1, experts=8%] %(got 0%)", podsim.model, spec)
-- a dense model from scratch is unaffected
local d = podsim.model{name = "scratch_dense", layers = 2, hidden = 256, ffn = 1024, heads = 4, kv_heads = 4, vocab = 1000}
T.eq(d.experts, 0, "dense")
T.done("model_scratch")
