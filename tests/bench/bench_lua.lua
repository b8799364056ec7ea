-- bench_lua.lua: podsim speed through Lua (run by ./build.sh bench).
-- Prints one line per figure; ratios are measured in this one run.
local clock = os.clock

-- 1. podsim.collective from Lua (CPU seconds of this thread)
local nvl = podsim.systems.gb200_nvl72
local opts = {ranks = 64, bytes = 1 << 26}
local n = 2000000
local t0 = clock()
local acc = 0
for i = 1, n do
  opts.bytes = 1024 + i
  acc = acc + podsim.collective(nvl, "all_to_all", opts).time_s
end
local dt = clock() - t0
print(string.format("coll_eval_lua: %.2f M evals/s (1 core, checksum %.3g)", n / dt / 1e6, acc))

-- 2. studies: one 64-rank all-to-all on GB200 NVL72 per sample with four
-- sampled parameters (up_eff, out_eff, up_latency_us, bytes), three ways:
-- the built-in C evaluator (podsim.kernel.collective), a Lua eval that
-- derives the system per sample as the shipped scenarios do (compiled:
-- traced), and the same eval run in Lua per sample (trace = false); on 1
-- and 2 threads, wall time of the run.
local params = {
  ["system.up_eff"] = podsim.dist.uniform{0.70, 0.90},
  ["system.out_eff"] = podsim.dist.triangular{0.80, 0.92, 0.96},
  ["system.up_latency_us"] = podsim.dist.lognormal{median = 3, p90 = 6},
  bytes = podsim.dist.loguniform{1 << 20, 1 << 32},
}
local lua_params = {
  up_eff = params["system.up_eff"], out_eff = params["system.out_eff"],
  lat = params["system.up_latency_us"], bytes = params.bytes,
}
local function kernel_study(threads, samples)
  return podsim.study{name = "bench_kernel", samples = samples, seed = 1, threads = threads,
    sensitivity = "none", params = params,
    eval = podsim.kernel.collective{system = "gb200_nvl72", op = "all_to_all", ranks = 64, bytes = 1}}
end
local function lua_study(threads, samples, trace)
  return podsim.study{name = "bench_lua", samples = samples, seed = 1, threads = threads,
    sensitivity = "none", params = lua_params, trace = trace,
    eval = function(p)
      local sys = podsim.system{base = nvl, up_eff = p.up_eff, out_eff = p.out_eff,
                                up_latency_us = p.lat}
      return {time_s = podsim.collective(sys, "all_to_all", {ranks = 64, bytes = p.bytes}).time_s}
    end}
end

-- the machine's free capacity (tests/bench/bench_capacity.c), measured in
-- the same rounds as the thread-scaling figures (needs --unsafe, as
-- ./build.sh bench runs this file)
local function capacity()
  local f = io.popen and io.popen("build/bench_capacity --value 2>/dev/null")
  local v = f and tonumber(f:read("l") or "")
  if f then f:close() end
  return v and string.format("%.2f", v) or "?"
end

local rates = {}
local kinds = {
  {"kernel", 4000000, kernel_study, "podsim.kernel.collective"},
  {"lua_traced", 4000000, function(t, n) return lua_study(t, n, true) end, "Lua eval, compiled"},
  {"lua_per_sample", 500000, function(t, n) return lua_study(t, n, false) end, "Lua eval per sample"},
}
for _, k in ipairs(kinds) do
  local kind = k[1]
  local caps = {}
  for _, threads in ipairs{1, 2} do
    local r = k[3](threads, k[2]):run()
    rates[kind .. threads] = r.samples_done / r.wall_s
    print(string.format("study_%s_eval: %.2f M samples/s on %d thread%s (one all_to_all on a "
      .. "derived system per sample, %s, evaluator %s; %d samples, %.2f s)",
      kind, rates[kind .. threads] / 1e6, threads, threads > 1 and "s" or "", k[4], r.evaluator,
      r.samples_done, r.wall_s))
    caps[#caps + 1] = capacity()
  end
  print(string.format("study_%s_speedup_1_to_2_threads: %.2fx (free capacity after each run: %s of 2 cores)",
    kind, rates[kind .. "2"] / rates[kind .. "1"], table.concat(caps, ", ")))
end
print(string.format("study_traced_over_per_sample: %.1fx (1 thread)", rates.lua_traced1 / rates.lua_per_sample1))
print(string.format("study_traced_over_kernel: %.2fx (1 thread)", rates.lua_traced1 / rates.kernel1))
