# CLI tests of the compiled eval: the once-only note when a study falls
# back to Lua (with the line that stopped the trace), --quiet silencing
# it, --no-trace forcing the per-sample path with identical output files.
source "$(dirname "$0")/lib.bash"
set -e

scenario branch.lua <<'LUA'
local s = podsim.study{name = "branchy", samples = 3000, seed = 2,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p)
    if p.x > 0.5 then return {y = p.x} end
    return {y = 1 - p.x}
  end}
podsim.write(s:run())
LUA
run "$PODSIM" run "$OUT/branch.lua" --out "$OUT/o1" --threads 2
expect_rc 0 "a branching eval still runs"
expect_out "branch.lua:1: study 'branchy': eval runs in Lua per sample: .*branch.lua:4: comparison of a traced value" "the note names the study and the line"
[ "$(grep -c 'eval runs in Lua per sample' "$OUT/stdout")" -eq 1 ] && ok || bad "the note is said once"
expect_no_err "a fallback is not an error"
grep -q '"evaluator": "lua"' "$OUT/o1/branchy/meta.json" && ok || bad "meta.json says lua"
run "$PODSIM" run "$OUT/branch.lua" --out "$OUT/o2" --quiet
expect_rc 0 "quiet"
if grep -q 'eval runs in Lua' "$OUT/stdout"; then bad "--quiet silences the note"; else ok; fi

scenario traced.lua <<'LUA'
local s = podsim.study{name = "coll", samples = 20000, seed = 4, keep_samples = true,
  params = {e = podsim.dist.uniform{0.6, 0.9}, b = podsim.dist.loguniform{1 << 20, 1 << 30}},
  grid = {ranks = {8, 64}},
  eval = function(p)
    local a = podsim.collective(podsim.system{base = "gb200_nvl72", up_eff = p.e}, "all_reduce",
      {ranks = p.ranks, bytes = p.b})
    return {us = a.time_s * 1e6, bw = a.busbw_GBps}
  end}
local r = s:run()
podsim.write(r)
LUA
run "$PODSIM" run "$OUT/traced.lua" --out "$OUT/t" --threads 2
expect_rc 0 "traced run"
if grep -q 'eval runs in Lua' "$OUT/stdout"; then bad "a traceable eval gives no note"; else ok; fi
grep -q '"evaluator": "traced"' "$OUT/t/coll/meta.json" && ok || bad "meta.json says traced"
run "$PODSIM" run "$OUT/traced.lua" --out "$OUT/l" --threads 2 --no-trace
expect_rc 0 "--no-trace run"
grep -q '"evaluator": "lua"' "$OUT/l/coll/meta.json" && ok || bad "--no-trace: meta.json says lua"
for f in samples.csv summary.csv sensitivity.csv; do
  cmp -s "$OUT/t/coll/$f" "$OUT/l/coll/$f" && ok || bad "$f identical traced and with --no-trace"
done
run "$PODSIM" help
expect_out "--no-trace" "--no-trace is documented in the usage"
finish
