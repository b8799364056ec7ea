#!/usr/bin/env bash
# args.sh: --set keys the scenario never reads are an error after its top
# level ran (before: silently ignored, exit 0 with the default's table);
# podsim.arg declarations, their checks and `podsim run FILE --help`.
. "$(dirname "$0")/lib.bash"

scenario a.lua <<'LUA'
local model = podsim.arg{"model", default = "both", choices = {"both", "h100", "gb200"},
  help = "which systems to compare"}
local n = podsim.arg{"n", default = 64, help = "samples per point"}
local extra = podsim.args.extra
local r = podsim.study{name = "a", samples = n, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = p.x + (podsim.args.bias or 0)} end}:run()
print("model=" .. model .. " n=" .. n .. " y=" .. math.tointeger(r.stats.y[1].n))
LUA
cd "$OUT"

run "$PODSIM" run a.lua --quiet --out o
expect_rc 0 "defaults"
expect_out "^model=both n=64 y=64$" "defaults used"

run "$PODSIM" run a.lua --quiet --out o --set model=gb200 --set n=32 --set extra=1
expect_rc 0 "declared and read keys"
expect_out "^model=gb200 n=32 y=32$" "values used"

# the trap: a misspelt key used to run with the default and exit 0
run "$PODSIM" run a.lua --quiet --out o --set modle=gb200
expect_rc 1 "misspelt --set key"
expect_err '^a\.lua: --set modle: the scenario never read podsim\.args\.modle \(it read: extra, model, n\)' "names the keys it read"
expect_out '^model=both' "the top level ran first"

# a key read only inside eval (in worker states) counts as read
run "$PODSIM" run a.lua --quiet --out o --threads 2 --set bias=1
expect_rc 0 "key read in the evaluator's worker states"

# every run writes <out>/meta.json, even when the scenario writes nothing
python3 - "$OUT/o/meta.json" <<'PY' && ok || bad "run meta.json"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["scenario"] == "a.lua" and m["args"]["bias"] == 1 and len(m["scenario_sha256"]) == 64
assert [d["name"] for d in m["declared_args"]] == ["model", "n"]
assert m["studies"][0]["name"] == "a" and m["studies"][0]["complete"] is True
PY

run "$PODSIM" run a.lua --quiet --out o --set model=h200
expect_rc 1 "value outside choices"
expect_err '^a\.lua:1: podsim\.arg: model: --set model=h200: expected one of both, h100, gb200' "choices checked"

run "$PODSIM" run a.lua --quiet --out o --set n=many
expect_rc 1 "type checked"
expect_err '^a\.lua:3: podsim\.arg: n: --set n=many: expected a number' "number expected"

run "$PODSIM" run a.lua --help
expect_rc 0 "run FILE --help"
expect_out '^  model +string +both +both\|h100\|gb200 +which systems to compare' "model listed"
expect_out '^  n +number +64 +samples per point' "n listed"
[ ! -d out/a/a ] && ok || bad "--help ran no study"

# what the top level prints before its first study is not part of the help
scenario h.lua <<'LUA'
print("layout: tp8 pp4")
io.write("partial line\n")
podsim.print_table({"input", "basis"}, {{"prices", "ASSUMED"}})
io.stderr:write("a warning\n")
local k = podsim.arg{"k", default = 2, help = "what k is"}
podsim.study{name = "h", samples = 4, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = p.x * k} end}:run()
print("after the study")
LUA
run "$PODSIM" run h.lua --help
expect_rc 0 "--help with prints before the study"
expect_out '^  k +number +2 +what k is' "k listed"
expect_out '^usage: podsim run h\.lua' "usage first"
[ "$(head -n 1 "$OUT/stdout")" = "usage: podsim run h.lua [--set NAME=VALUE ...] [OPTIONS]" ] && ok || bad "--help: stdout starts with the usage"
grep -qE 'layout|partial line|prices|after the study' "$OUT/stdout" && bad "--help printed the scenario's own output" || ok
expect_err '^a warning' "stderr still reaches the user"

scenario b.lua <<'LUA'
podsim.arg{"x", default = 1}
podsim.arg{"x", default = 2}
LUA
run "$PODSIM" run b.lua --quiet --out o
expect_rc 1 "declared twice"
expect_err '^b\.lua:2: podsim\.arg: x: declared twice' "declared twice named"

scenario c.lua <<'LUA'
podsim.arg{"y", default = 1, choices = {"a"}}
LUA
run "$PODSIM" run c.lua --quiet --out o
expect_rc 1 "choices of another type"
expect_err 'podsim\.arg: choices\[1\]: expected a number' "choice type"
# --max-samples-mb takes core's bound for the study spec (>= 0; 0 keeps no
# samples: quantiles from the sketch)
run "$PODSIM" run "$SRC/tests/bench/peers/kernel_a2a.lua" --quiet --samples 2000 --max-samples-mb -1 --out "$OUT/msm"
expect_rc 2 "negative --max-samples-mb"; expect_err 'max-samples-mb needs a number >= 0' "explained"
run "$PODSIM" run "$SRC/tests/bench/peers/kernel_a2a.lua" --quiet --samples 2000 --max-samples-mb 0 --out "$OUT/msm0"
expect_rc 0 "--max-samples-mb 0"
grep -q '"max_samples_mb": 0' "$OUT/msm0/kernel_a2a/meta.json" && ok || bad "recorded in meta.json"
finish
