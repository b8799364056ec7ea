-- weak_scaling.lua: how per-GPU throughput holds as the job grows, podsim
-- beside the published weak-scaling points of public.md T2-T5 and T7.
-- Writes weak_scaling.csv (podsim), weak_scaling_published.csv and
-- plots/weak_scaling.svg.  The declines come from the model's mechanisms
-- (straggler: expected maximum of per-GPU jitter over more GPUs; DP
-- traffic across more domains; fewer micro-batches per pipeline when the
-- batch is fixed), not from per-case factors.  Each series runs the
-- software release of the validation case it mirrors: NeMo 2.0 defaults
-- ("none") for the 2025 H100 and Maverick runs (T2-T5), Megatron-Bridge
-- 26.06 with the GB300 recipe's fp8 attention for DeepSeek-V3 (T6, T7).
local nemo25 = "none"
local mb26_06_gb300 = {base = "megatron_bridge_26_06", fp8_attention = true}
local series = {
  {name = "llama70b_h100_bf16", sys = "hgx_h100", model = "llama3_70b", seq = 8192, dtype = "bf16",
   gpus = {64, 128, 256, 512, 1024, 2048}, gbs = function(g) return 2 * g end, full = true,
   sw = nemo25, par = {tp = 4, pp = 4, vp = 5, cp = 2}, pub = {[64] = {54.5, 1121}, [2048] = {53.7, 1104}}},
  {name = "llama70b_h100_fp8", sys = "hgx_h100", model = "llama3_70b", seq = 8192, dtype = "fp8",
   gpus = {64, 128, 256, 512, 1024, 2048}, gbs = function(g) return 2 * g end, full = true,
   sw = nemo25, par = {tp = 4, pp = 4, vp = 5, cp = 2}, pub = {[64] = {38.1, 1567}, [2048] = {36.2, 1462}}},
  {name = "llama405b_h100_bf16", sys = "hgx_h100", model = "llama3_405b", seq = 8192, dtype = "bf16",
   gpus = {512, 1024, 2048}, gbs = function(g) return g // 2 end, full = true,
   sw = nemo25, par = {tp = 8, pp = 8, vp = 8, cp = 2, uneven = true},
   pub = {[512] = {55.5}, [1024] = {55.3}, [2048] = {55.2}}},
  {name = "llama405b_h100_fp8", sys = "hgx_h100", model = "llama3_405b", seq = 8192, dtype = "fp8",
   gpus = {512, 1024, 2048}, gbs = function(g) return g // 2 end, full = true,
   sw = nemo25, par = {tp = 8, pp = 8, vp = 8, cp = 2, uneven = true},
   pub = {[512] = {44.4}, [1024] = {44.2}, [2048] = {43.7}}},
  {name = "maverick_gb200_fp8", sys = "gb200_nvl72", model = "llama4_maverick", seq = 8192,
   dtype = "fp8", gpus = {128, 256, 512}, gbs = function(g) return 8 * g end, sw = nemo25,
   par = {tp = 1, pp = 2, vp = 12, ep = 64},
   pub = {[128] = {nil, 10757}, [256] = {nil, 10530}, [512] = {nil, 10365}}},
  {name = "deepseek_v3_gb300_fp8", sys = "gb300_nvl72", model = "deepseek_v3", seq = 4096,
   dtype = "fp8", recipe = "block", gpus = {256, 512, 1024}, gbs = function(g) return 16 * g end,
   sw = mb26_06_gb300, par = {tp = 1, pp = 2, vp = 8, ep = 32, uneven = true},
   pub = {[256] = {100 * 1648 / 5000, 6338}, [1024] = {100 * 1648 / 5000 * 0.985, 6338 * 0.985}}},
}
local rows, pubrows, table_rows, names = {}, {}, {}, {}
for i, s in ipairs(series) do
  names[#names + 1] = s.name
  local first
  for _, g in ipairs(s.gpus) do
    local r = podsim.train{system = s.sys, model = s.model, gpus = g, seq = s.seq,
      global_batch = s.gbs(g), dtype = s.dtype, mfu_full_attn = s.full or false,
      software = s.sw, fp8_recipe = s.recipe, parallel = s.par}
    first = first or r
    rows[#rows + 1] = {series_id = i, series = s.name, gpus = g, mfu_pct = 100 * r.mfu,
      tokens_per_s_per_gpu = r.tokens_per_s_per_gpu}
    local p = s.pub[g]
    if p then
      pubrows[#pubrows + 1] = {series_id = i, series = s.name, gpus = g,
        mfu_pct = p[1] or 0 / 0, tokens_per_s_per_gpu = p[2] or 0 / 0}
    end
    table_rows[#table_rows + 1] = {s.name, g, 100 * r.mfu, p and p[1] or "",
      r.tokens_per_s_per_gpu, p and p[2] or "",
      100 * (r.tokens_per_s_per_gpu / first.tokens_per_s_per_gpu - 1),
      r.breakdown.straggler / r.step_s * 100, r.breakdown.dp / r.step_s * 100}
  end
end
podsim.print_table({"series", "GPUs", "MFU %", "published", "tok/s/GPU", "published",
  "change %", "straggler %", "dp %"}, table_rows)
local header = {"series_id", "series", "gpus", "mfu_pct", "tokens_per_s_per_gpu"}
local data = podsim.write_csv("weak_scaling.csv", header, rows)
local pub = podsim.write_csv("weak_scaling_published.csv", header, pubrows)
print("wrote " .. data)
print("wrote " .. pub)
local svg, why = podsim.gnuplot("weak_scaling", {datafile = data, pubfile = pub,
  nseries = #series, names = table.concat(names, " ")})
print(svg and ("wrote " .. svg) or ("no plot: " .. tostring(why)))
