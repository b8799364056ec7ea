local sys = podsim.system{base = "hgx_h100", up_GBps = 450, nvls = false}
local r = podsim.collective(sys, "all_reduce", {ranks = 64, bytes = 1 << 24, algo = "ring"})
local t = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512,
  parallel = {tp = 8, pp = 1}}
local c = podsim.cost{usd_per_gpu_hour = 2.5, tokens_per_s_per_gpu = t.tokens_per_s_per_gpu, gpus = 64, tokens = 1e12}
local rel = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100",
  spares = "none", repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young"}}
local m = podsim.model{base = "mixtral_8x7b", layers = 16}
local d = podsim.dist.lognormal{median = 2, p90 = 3}
podsim.write_csv("x.csv", {"a", "b"}, {{a = 1, b = r.time_s}, {2, c.usd_total}})
podsim.write_json("x.json", {r = r, rel = rel, q = d:quantile(0.3)})
podsim.write_text("x.txt", podsim.fmt_bytes(1 << 30))
podsim.check{id = "T", name = "t", published = r.time_s, value = r.time_s, tol_rel = 0.1, fit = false}
for k, v in pairs(podsim.systems) do local _ = v.up_GBps end
local co = coroutine.wrap(function(a) coroutine.yield(a + 1) end)
print(co(1), string.format("%q", podsim.version), load("return 1")())
