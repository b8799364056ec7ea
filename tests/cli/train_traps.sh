#!/usr/bin/env bash
# train_traps.sh: a training layout that does not fit in memory is loud
# (before: podsim.train returned a throughput with fits=false and printed
# nothing; print_table showed it like any other row); podsim.search
# explains an empty result; its items pass straight to `parallel`.
. "$(dirname "$0")/lib.bash"

scenario t.lua <<'LUA'
local big = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 8, seq = 8192,
  global_batch = 128, parallel = {tp = 8, pp = 1}}
local ok = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
podsim.print_table({"gpus", "tokens_per_s_per_gpu", "memory_gb"},
  {{gpus = 8, tokens_per_s_per_gpu = big.tokens_per_s_per_gpu, memory_gb = big.memory_gb, fits = big.fits},
   {gpus = 64, tokens_per_s_per_gpu = ok.tokens_per_s_per_gpu, memory_gb = ok.memory_gb, fits = ok.fits}})
local none = podsim.search{system = "hgx_h100", model = "llama3_70b", gpus = 8, seq = 8192,
  global_batch = 128}
print("empty=" .. #none .. " why=" .. tostring(none.why))
local top = podsim.search{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, top = 2}
local again = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, parallel = top[1].parallel}
print(string.format("same=%s", tostring(math.abs(again.step_s - top[1].step_s) <= 1e-9 * top[1].step_s)))
LUA
cd "$OUT"
run "$PODSIM" run t.lua --out o
expect_rc 0 "runs"
expect_err '^t\.lua:1: warning: podsim\.train: the layout does not fit in memory: 168\.[0-9] GB per GPU > 80 GB HBM \(tp=8 pp=1' "non-fitting train warns with the numbers"
expect_lines_err 2 "one warning per non-fitting train call and one for the empty search"
expect_out '^ +8 +[0-9.]+ +168\.[0-9]+  <- does not fit in memory$' "print_table marks the row"
expect_out '^ +64 +[0-9.]+ +61\.[0-9]+$' "a fitting row is not marked"
expect_out '^empty=0 why=[0-9]+ layouts pass the divisibility rules, but none of their [0-9]+ ZeRO/recompute variants fits in 80 GB HBM per GPU' "empty search explained"
expect_err '^t\.lua:8: warning: podsim\.search: no layout: ' "empty search warns"
expect_out '^same=true$' "search item .parallel passes straight to podsim.train"
finish
