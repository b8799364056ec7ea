#!/usr/bin/env bash
# format.sh: --format json|csv puts exactly one document on stdout for the
# whole run (before: one JSON/CSV block per study, interleaved with the
# scenario's prints, so `| jq .` failed on any scenario with two studies or
# a print); `podsim presets --format json`; `presets foo` is a usage error;
# preset listings fit in 100 columns.
. "$(dirname "$0")/lib.bash"

scenario two.lua <<'LUA'
print("hello from the scenario")
io.write("and io.write\n")
io.stdout:write("and io.stdout\n")
local a = podsim.study{name = "a", samples = 200, params = {x = podsim.dist.uniform{0, 1}},
  grid = {n = {1, 2}}, eval = function(p) return {y = p.x * p.n} end}:run()
local b = podsim.study{name = "b", samples = 100, params = {x = podsim.dist.uniform{0, 1}},
  grid = {m = {"u", "v"}}, eval = function(p) print("in eval") return {z = p.x} end}:run()
podsim.print_summary(a) -- already in the document: not twice
podsim.print_table({"k"}, {{1}})
podsim.check{id = "X1", name = "demo check", published = 1, value = 1.01, tol_rel = 0.05, fit = false}
LUA
cd "$OUT"

run "$PODSIM" run two.lua --format json --out o --threads 2
expect_rc 0 "json run"
python3 - "$OUT/stdout" <<'PY' && ok || bad "stdout is one JSON document with both studies and the check"
import json, sys
d = json.load(open(sys.argv[1]))          # fails on a second document or stray text
assert [s["name"] for s in d["studies"]] == ["a", "b"], d["studies"]
a = d["studies"][0]
assert len(a["summary"]) == 2 and a["summary"][0]["grid.n"] == "1" and a["summary"][0]["n"] == 200
assert d["studies"][1]["summary"][1]["m"] == "v"
assert d["checks"][0]["id"] == "X1" and d["checks"][0]["pass"] is True
PY
python3 -m json.tool "$OUT/stdout" >/dev/null && ok || bad "json.tool parses stdout"
if command -v jq >/dev/null; then
  jq -e '.studies | length == 2' "$OUT/stdout" >/dev/null && ok || bad "jq reads the document"
fi
expect_err '^hello from the scenario$' "print goes to stderr"
expect_err '^and io.write$' "io.write goes to stderr"
expect_err '^and io.stdout$' "io.stdout goes to stderr"
expect_err '^in eval$' "prints in evaluators go to stderr"
expect_err '^X1 +demo check' "check line on stderr"

run "$PODSIM" run two.lua --format csv --out o
expect_rc 0 "csv run"
python3 - "$OUT/stdout" <<'PY' && ok || bad "stdout is one CSV table"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
assert h[:4] == ["study", "metric", "grid.n", "m"], h
assert len(rows) == 1 + 2 + 2, rows                 # one header, 4 summary rows
assert all(len(r) == len(h) for r in rows)
assert [r[0] for r in rows[1:]] == ["a", "a", "b", "b"]
assert rows[1][h.index("n")] == "200" and rows[1][h.index("grid.n")] == "1"
PY

# a failing run writes no half document
scenario fail.lua <<'LUA'
podsim.study{name = "a", samples = 10, eval = function() return 1 end}:run()
error("late failure")
LUA
run "$PODSIM" run fail.lua --format json --out o
expect_rc 1 "failing run"
[ ! -s "$OUT/stdout" ] && ok || bad "no document from a failed run"

run "$PODSIM" presets --format json
expect_rc 0 "presets json"
python3 - "$OUT/stdout" <<'PY' && ok || bad "presets JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"gpus", "systems", "models", "failures", "software"}
assert d["gpus"]["h100"]["hbm_gb"] == 80 and "source" in d["gpus"]["h100"]
assert d["systems"]["gb200_nvl72"]["gpu"] == "gb200"
assert len(d["failures"]["gb200_nvl72"]["causes"]) > 5
PY
run "$PODSIM" presets systems --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert list(d) == ["systems"]' "$OUT/stdout" && ok || bad "one kind"
run "$PODSIM" presets foo
expect_rc 2 "presets foo is a usage error"
expect_err "unknown preset kind 'foo'" "explained"
run "$PODSIM" presets --format xml
expect_rc 2 "bad presets format"
run "$PODSIM" presets
expect_rc 0 "presets"
long=$(awk 'length($0) >= 100' "$OUT/stdout" | wc -l)
[ "$long" -eq 0 ] && ok || bad "$long preset lines of 100 columns or more"
run "$PODSIM" presets
cp "$OUT/stdout" "$OUT/p1"
run "$PODSIM" presets
cmp -s "$OUT/stdout" "$OUT/p1" && ok || bad "presets print in a stable order"
finish
