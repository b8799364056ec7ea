-- podsim.search{}: every result is a valid layout that fits, sorted by
-- tokens/s/GPU, fixed dimensions are respected, and the best beats the
-- published layout it was searched against.
local q = {system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192, global_batch = 128,
  dtype = "bf16", top = 15}
local s = podsim.search(q)
assert(#s == 15, #s)
assert(s.candidates > 0 and s.evaluated >= #s and s.checked >= s.fitting and s.fitting >= s.evaluated)
for i, x in ipairs(s) do
  assert(x.tp * x.pp * x.cp * x.dp == 64)
  assert(x.memory_gb <= 80)
  if i > 1 then assert(s[i - 1].tokens_per_s_per_gpu >= x.tokens_per_s_per_gpu) end
  local r = podsim.train{system = q.system, model = q.model, gpus = 64, seq = 8192,
    global_batch = 128, dtype = "bf16",
    parallel = {tp = x.tp, pp = x.pp, vp = x.vp, cp = x.cp, ep = x.ep, etp = x.etp,
      microbatch = x.microbatch, zero = x.zero, recompute = x.recompute, uneven = x.uneven}}
  assert(r.fits)
  assert(math.abs(r.tokens_per_s_per_gpu - x.tokens_per_s_per_gpu) <= 1e-9 * x.tokens_per_s_per_gpu)
end
local t3 = podsim.train{system = q.system, model = q.model, gpus = 64, seq = 8192,
  global_batch = 128, dtype = "bf16", parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
assert(s[1].tokens_per_s_per_gpu >= t3.tokens_per_s_per_gpu)
-- Fixed dimensions.
q.fix = {tp = 8, recompute = "none", zero = 1}
q.top = 5
local f = podsim.search(q)
assert(#f == 5)
for _, x in ipairs(f) do
  assert(x.tp == 8 and x.recompute == "none" and x.zero == 1)
end
-- MoE: expert dimensions follow the folding rule.
local m = podsim.search{system = "gb200_nvl72", model = "llama4_maverick", gpus = 128, seq = 8192,
  global_batch = 1024, dtype = "fp8", top = 5, max_mb = 2}
assert(#m == 5)
for _, x in ipairs(m) do
  assert(128 % x.ep == 0 and (x.tp * x.cp * x.dp) % (x.ep * x.etp) == 0)
end
-- Nothing fits: an empty list, not an error.
local none = podsim.search{system = "hgx_h100", model = "llama3_405b", gpus = 8, seq = 8192,
  global_batch = 8}
assert(#none == 0)
