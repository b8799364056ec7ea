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

-- 2. studies: four sampled parameters, built-in C evaluator and Lua eval,
-- on 1 and 2 threads (wall time of the run)
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
local function lua_study(threads, samples)
  return podsim.study{name = "bench_lua", samples = samples, seed = 1, threads = threads,
    sensitivity = "none", params = lua_params,
    eval = function(p)
      local r = podsim.collective(nvl, "all_to_all", {ranks = 64, bytes = p.bytes})
      return {time_s = r.time_s * p.up_eff + p.out_eff * 1e-9 + p.lat * 1e-12}
    end}
end

local rates = {}
for _, kind in ipairs{"kernel", "lua"} do
  for _, threads in ipairs{1, 2} do
    local samples = kind == "kernel" and 4000000 or 1000000
    local s = (kind == "kernel" and kernel_study or lua_study)(threads, samples)
    local r = s:run()
    rates[kind .. threads] = r.samples_done / r.wall_s
    print(string.format("study_%s_eval: %.2f M samples/s on %d thread%s (%d samples, %.2f s)",
      kind, rates[kind .. threads] / 1e6, threads, threads > 1 and "s" or "", r.samples_done,
      r.wall_s))
  end
  print(string.format("study_%s_speedup_1_to_2_threads: %.2fx", kind,
    rates[kind .. "2"] / rates[kind .. "1"]))
end
