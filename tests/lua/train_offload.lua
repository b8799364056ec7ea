-- Lua API of the host link and activation offload: the system fields on
-- the presets and in podsim.system{}, parallel.offload_modules in and out
-- of podsim.train, memory.host_gb, the exposed copies in breakdown.host on
-- PCIe against NVLink-C2C, the search keeping the base's modules, and the
-- errors with their field paths.
local function fails(f, want)
  local ok, err = pcall(f)
  assert(not ok and tostring(err):find(want, 1, true), tostring(err))
end
local function near(a, b, rel, what)
  assert(math.abs(a - b) <= (rel or 1e-9) * math.abs(b),
    string.format("%s: %.10g vs %.10g", what or "value", a, b))
end

-- Presets: every system has a host link and host memory.
for name, s in pairs(podsim.systems) do
  assert(s.host_link_GBps > 0 and s.host_link_eff > 0 and s.host_mem_gb > 0, name)
end
local hgx, nvl = podsim.systems.hgx_b200, podsim.systems.gb200_nvl72
assert(nvl.host_link_GBps * nvl.host_link_eff > 3 * hgx.host_link_GBps * hgx.host_link_eff)
assert(podsim.sources.systems.gb200_nvl72:find("NVLink-C2C", 1, true))
assert(podsim.sources.systems.hgx_h100:find("PCIe Gen5", 1, true))
local mine = podsim.system{base = "hgx_h100", host_link_GBps = 126, host_mem_gb = 512}
assert(mine.host_link_GBps == 126 and mine.host_mem_gb == 512)
assert(mine.host_link_eff == podsim.systems.hgx_h100.host_link_eff)

-- Llama 3 70B, TP4 PP4 VP5 fp8 on 64 GPUs, with and without every
-- attention/MLP-input module offloaded.
local all = {attn_norm = true, core_attn = true, attn_proj = true, mlp_norm = true}
local function run(sys, off, extra)
  local t = {system = sys, model = "llama3_70b", gpus = 64, seq = 8192,
    global_batch = 128, dtype = "fp8",
    parallel = {tp = 4, pp = 4, vp = 5, offload_modules = off}}
  for k, v in pairs(extra or {}) do t[k] = v end
  return podsim.train(t)
end
-- The B200 at its boost clock (power_w 1,290 W: 300 W static + 990 W
-- dynamic, train_sw.c BLACKWELL_STATIC_W): at its 1,000 W sustained clock
-- (0.707) the longer forward hides these copies over PCIe too.
local b200_boost = podsim.system{base = "hgx_b200", gpu = podsim.gpu{base = "b200", power_w = 1290}}
for _, sys in ipairs{b200_boost, "gb200_nvl72"} do
  local plain, off = run(sys, nil), run(sys, all)
  assert(plain.config.parallel.offload_modules.core_attn == false)
  assert(off.config.parallel.offload_modules.core_attn == true)
  assert(off.config.parallel.offload_modules.expert_fc1 == false)
  assert(plain.memory.host_gb == 0 and off.memory.host_gb > 1, sys)
  assert(off.memory.total_gb < plain.memory.total_gb, sys)
  -- one layer's offloaded bytes stay in HBM: the drop is below host_gb
  assert(plain.memory.activations_gb - off.memory.activations_gb < off.memory.host_gb)
  -- nothing else of the step moves but the host part (and DP's window)
  near(off.breakdown.compute, plain.breakdown.compute, 1e-12, "compute")
  if sys == b200_boost then
    assert(off.breakdown.host > plain.breakdown.host, "PCIe exposes the copies")
  else
    near(off.breakdown.host, plain.breakdown.host, 1e-12, "C2C hides them")
  end
end
-- with nothing hidden, more is exposed
local ov0 = run(b200_boost, all, {overlap_offload = 0})
assert(ov0.breakdown.host > run(b200_boost, all).breakdown.host)
assert(ov0.config.overlap_offload == 0)

-- Dense models have no expert tensors to offload.
near(run("hgx_b200", {expert_fc1 = true, moe_act = true}).memory.host_gb, 0, 0, "dense experts")

-- The search keeps the base's offload modules.
local items = podsim.search{system = "gb200_nvl72", model = "llama3_8b", gpus = 8, seq = 8192,
  global_batch = 64, offload_modules = {mlp_norm = true}, top = 3}
assert(#items > 0)
for _, it in ipairs(items) do assert(it.offload_modules.mlp_norm == true) end
local plain = podsim.search{system = "gb200_nvl72", model = "llama3_8b", gpus = 8, seq = 8192,
  global_batch = 64, top = 3}
assert(plain[1].offload_modules.mlp_norm == false, "no offload unless asked")
local fails_search = function() return podsim.search{system = "gb200_nvl72", model = "llama3_8b",
  gpus = 8, seq = 8192, global_batch = 64, offload_modules = {qkv = true}} end

-- Errors name the field.
fails(function() return run({base = "hgx_b200", host_link_GBps = 0}, all) end,
  "parallel.offload_modules: needs a host link")
fails(function() return run({base = "hgx_b200", host_mem_gb = 0}, all) end,
  "parallel.offload_modules: needs host memory")
fails(function() return run("hgx_b200", {qkv = true}) end, "qkv")
fails(fails_search, "qkv")
fails(function() return podsim.system{base = "hgx_b200", host_link_eff = 2} end, "host_link_eff")
-- more offloaded than the host holds: it does not fit
local small = run({base = "hgx_b200", host_mem_gb = 1}, all)
assert(small.fits == false and small.memory.host_gb > 1)
