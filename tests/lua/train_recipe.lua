-- Lua API of the fp8 recipes' kernels (core/train_sw.c, docs/design.md
-- 6.2): MXFP8 GEMMs at 6.812 / 7.161 of per-tensor fp8 on Blackwell
-- (result.eff_gemm), the casts per recipe in breakdown.compute, the
-- step's weight cast in breakdown.optimizer.
local function near(a, b, rel, what)
  assert(math.abs(a - b) <= (rel or 1e-9) * math.abs(b),
    string.format("%s: %.10g vs %.10g", what or "value", a, b))
end

local function run(sys, recipe, extra)
  local t = {system = sys, model = "llama3_70b", gpus = 64, seq = 8192, global_batch = 128,
    dtype = "fp8", fp8_recipe = recipe, parallel = {tp = 4, pp = 4, vp = 5}}
  for k, v in pairs(extra or {}) do t[k] = v end
  return podsim.train(t)
end

-- Blackwell: MXFP8's GEMM efficiency is the per-tensor one times 0.951,
-- and the step is slower than with current scaling.
local cs = run("gb300_nvl72", "current")
local mx = run("gb300_nvl72", "block")
near(mx.eff_gemm, cs.eff_gemm * 6.812 / 7.161, 1e-9, "MXFP8 eff_gemm")
assert(mx.step_s > cs.step_s, "MXFP8 slower than current scaling on Llama")
assert(mx.breakdown.compute > cs.breakdown.compute)
-- delayed and current scaling share the kernels; current pays the amax
-- passes in its casts (compute), delayed its all-reduces (dp)
local ds = run("gb300_nvl72", "delayed")
near(ds.eff_gemm, cs.eff_gemm, 1e-12, "per-tensor recipes, one GEMM rate")
assert(cs.breakdown.compute > ds.breakdown.compute)
assert(ds.breakdown.dp > cs.breakdown.dp)

-- The weight cast: none for current scaling with fp8 primary weights,
-- still there for MXFP8 (its weights are gathered in bf16); without them
-- current scaling casts at 5 B per weight (amax pass, read, write), MXFP8
-- at 4.1875.
local sw = {software = {fp8_params = true}}
local cs8 = run("gb300_nvl72", "current", sw)
local mx8 = run("gb300_nvl72", "block", sw)
assert(cs.breakdown.optimizer > cs8.breakdown.optimizer)
near((mx8.breakdown.optimizer - cs8.breakdown.optimizer) /
  (cs.breakdown.optimizer - cs8.breakdown.optimizer), 4.1875 / 5, 1e-9, "cast bytes")

-- bf16 ignores the recipe
near(run("gb300_nvl72", "block", {dtype = "bf16"}).step_s,
  run("gb300_nvl72", "current", {dtype = "bf16"}).step_s, 1e-12, "bf16")
print("train_recipe ok")
