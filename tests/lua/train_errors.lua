-- Error messages of podsim.model, podsim.train and podsim.search: located
-- at the scenario line, naming the API function and the field path, and
-- saying which constraint failed.
local function fails(pattern, fn, ...)
  local ok, msg = pcall(fn, ...)
  assert(not ok, "expected an error matching " .. pattern)
  msg = tostring(msg)
  assert(msg:find("train_errors%.lua:%d+: "), "not located: " .. msg)
  assert(msg:find(pattern), "want '" .. pattern .. "', got: " .. msg)
end
local base = {system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, dtype = "bf16"}
local function cfg(over, par)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(over or {}) do t[k] = v end
  t.parallel = par or {tp = 4, pp = 4, vp = 5, cp = 2}
  return t
end
local T = podsim.train
fails("podsim%.train: parallel%.tp: must divide the attention heads %(64 heads, tp 3%)",
  T, cfg(nil, {tp = 3}))
fails("podsim%.train: parallel%.tp: must divide the KV heads", T, cfg({gpus = 16}, {tp = 16}))
fails("podsim%.train: parallel%.pp: must divide layers %(80 layers, pp 3%)",
  T, cfg({gpus = 48, global_batch = 48}, {tp = 4, pp = 3}))
fails("podsim%.train: parallel%.vp: pp%*vp must divide layers", T, cfg(nil, {tp = 4, pp = 4, vp = 3, cp = 2}))
fails("podsim%.train: parallel%.vp: virtual stages", T, cfg(nil, {tp = 4, vp = 2}))
-- uneven: pp*vp may reach layers + 2 (embedding-only and loss-only virtual
-- stages), no further; without uneven it must divide the layers
local r82 = T(cfg({gpus = 64, global_batch = 64}, {tp = 4, pp = 2, vp = 41, uneven = true,
  recompute = "full"}))
assert(r82.step_s > 0 and r82.config.parallel.vp == 41)
fails("podsim%.train: parallel%.vp: pp%*vp = 84 exceeds layers %(80%) %+ 2", T,
  cfg({gpus = 32, global_batch = 64}, {tp = 4, pp = 2, vp = 42, uneven = true}))
fails("podsim%.train: parallel%.vp: pp%*vp = 82 exceeds layers %(80%)$", T,
  cfg({gpus = 32, global_batch = 64}, {tp = 4, pp = 2, vp = 41}))
fails("podsim%.train: parallel%.cp: seq %(8190%) must be divisible by 2%*cp",
  T, cfg({seq = 8190}, {tp = 4, cp = 2}))
fails("podsim%.train: gpus: must be a multiple of tp%*pp%*cp = 32", T, cfg({gpus = 65}))
fails("podsim%.train: parallel%.dp: tp%*pp%*cp%*dp = 96 must equal gpus %(64%)",
  T, cfg(nil, {tp = 4, pp = 4, vp = 5, cp = 2, dp = 3}))
fails("podsim%.train: global_batch: must be divisible by dp%*microbatch = 4",
  T, cfg({global_batch = 126}, {tp = 4, pp = 4, vp = 5, cp = 2, microbatch = 2}))
fails("podsim%.train: parallel%.ep: must be 1 for a dense model", T, cfg(nil, {tp = 4, ep = 2}))
fails("podsim%.train: parallel%.ep: must divide the routed experts",
  T, cfg({model = "llama4_maverick", gpus = 512, global_batch = 1024}, {tp = 4, ep = 3}))
fails("podsim%.train: parallel%.ep: ep%*etp = 1024 must divide tp%*cp%*dp = 512 %(MoE parallel folding%)",
  T, cfg({model = "llama4_maverick", gpus = 512, global_batch = 1024}, {tp = 4, ep = 128, etp = 8}))
fails("podsim%.train: parallel%.zero: must be in %[0, 3%]", T, cfg(nil, {zero = 4}))
fails("podsim%.train: parallel%.recompute: ", T, cfg(nil, {recompute = "some"}))
fails("podsim%.train: parallel%.tpp: unknown field %(did you mean 'tp'%?%)", T, cfg(nil, {tpp = 4}))
fails("podsim%.train: overlap_tp: must be in %[0, 1%] %(got 1%.5%)", T, cfg({overlap_tp = 1.5}))
fails("podsim%.train: dtype: ", T, cfg({dtype = "fp16"}))
fails("podsim%.train: dtype: GPU 'a100' has no fp8 peak", T, cfg({system = "dgx_a100", dtype = "fp8"}))
fails("podsim%.train: gpus: required field is missing", T, {system = "hgx_h100", model = "llama3_70b",
  seq = 8192, global_batch = 128})
fails("podsim%.train: model%.layers: must be in %[1, ", T, cfg({model = {base = "llama3_70b", layers = 0}}))
fails("podsim%.train: system: unknown system preset 'hgx_h999' %(did you mean 'hgx_h100'%?%)", T, cfg({system = "hgx_h999"}))
fails("podsim%.train: expected a table", T, 3)
fails("podsim%.model: kv_heads: must divide heads", podsim.model, {base = "llama3_70b", kv_heads = 7})
fails("podsim%.model: top_k: must be in %[1, experts=128%]", podsim.model, {base = "llama4_maverick", top_k = 0})
fails("podsim%.model: attn: ", podsim.model, {base = "llama3_70b", attn = "flash"})
fails("podsim%.model_params: model: required argument is missing", podsim.model_params)
local S = podsim.search
fails("podsim%.search: parallel: the search chooses the layout", S, cfg())
fails("podsim%.search: fix%.tp: must be in %[1, 65536%] %(got 0%)", S, {system = "hgx_h100", model = "llama3_70b", gpus = 64,
  seq = 8192, global_batch = 128, fix = {tp = 0}})
fails("podsim%.search: fix%.tq: unknown field", S, {system = "hgx_h100", model = "llama3_70b", gpus = 64,
  seq = 8192, global_batch = 128, fix = {tq = 2}})
fails("podsim%.search: top: ", S, {system = "hgx_h100", model = "llama3_70b", gpus = 64,
  seq = 8192, global_batch = 128, top = 0})
