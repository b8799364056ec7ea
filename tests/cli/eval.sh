#!/usr/bin/env bash
# eval.sh: one-line queries without a Lua file (`podsim eval collective`,
# `podsim eval train [--search]`) agree with the Lua API and print table,
# CSV or JSON.
. "$(dirname "$0")/lib.bash"
cd "$OUT"

# the reference figures from the Lua API, at run time
scenario ref.lua <<'LUA'
local c = podsim.collective("hgx_h100", "all_to_all", {ranks = 64, bytes = 1 << 30})
local t = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
local s = podsim.search{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, top = 3}
print(podsim.num(c.busbw_GBps) .. " " .. podsim.num(t.step_s) .. " " .. podsim.num(s[1].step_s) .. " " .. s[1].tp .. " " .. s[1].pp)
LUA
run "$PODSIM" run ref.lua --quiet --out o
expect_rc 0 "reference"
read -r busbw step sstep stp spp <"$OUT/stdout"

run "$PODSIM" eval collective --system hgx_h100 --op all_to_all --ranks 64 --bytes 1GiB --format json
expect_rc 0 "eval collective json"
python3 - "$OUT/stdout" "$busbw" <<'PY' && ok || bad "eval collective equals podsim.collective"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1 and rows[0]["bytes"] == 1 << 30 and rows[0]["ranks"] == 64
assert abs(rows[0]["busbw_GBps"] - float(sys.argv[2])) <= 1e-9 * float(sys.argv[2]), rows
PY
run "$PODSIM" eval collective --system hgx_h100 --op all_to_all --ranks 64 --bytes 1GiB
expect_rc 0 "eval collective table"
expect_out '^system +op +ranks +bytes +size +algo +time_us +algbw_GBps +busbw_GBps$' "table header"
expect_out '^hgx_h100 +all_to_all +64 +1073741824 +1 GiB ' "table row"

run "$PODSIM" eval collective --system gb200_nvl72 --op all_reduce --ranks 8,72 --bytes 1M,1GB --format csv
expect_rc 0 "eval collective sweep csv"
python3 - "$OUT/stdout" <<'PY' && ok || bad "sweep: ranks x sizes rows, nccl-tests and SI units"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["ranks"], r["bytes"]) for r in rows] == [("8", "1048576"), ("8", "1000000000"), ("72", "1048576"), ("72", "1000000000")], rows
PY

run "$PODSIM" eval train --system hgx_h100 --model llama3_70b --gpus 64 --seq 8192 --global-batch 128 --tp 4 --pp 4 --vp 5 --cp 2 --format json
expect_rc 0 "eval train"
python3 - "$OUT/stdout" "$step" <<'PY' && ok || bad "eval train equals podsim.train"
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert abs(r["step_s"] - float(sys.argv[2])) <= 1e-9 * float(sys.argv[2]) and r["fits"] is True, r
parts = ["compute_s", "tp_s", "cp_s", "ep_s", "pp_s", "dp_s", "bubble_s", "optimizer_s", "straggler_s"]
assert all(r[k] >= 0 for k in parts) and r["compute_s"] < r["step_s"], r
PY

run "$PODSIM" eval train --system hgx_h100 --model llama3_70b --gpus 64 --seq 8192 --global-batch 128 --search --top 3 --format csv
expect_rc 0 "eval train --search"
python3 - "$OUT/stdout" "$sstep" "$stp" "$spp" <<'PY' && ok || bad "eval train --search equals podsim.search"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3 and rows[0]["rank"] == "1"
assert rows[0]["tp"] == sys.argv[3] and rows[0]["pp"] == sys.argv[4]
assert abs(float(rows[0]["step_s"]) - float(sys.argv[2])) <= 1e-9 * float(sys.argv[2])
PY

run "$PODSIM" eval train --system hgx_h100 --model llama3_405b --gpus 8 --seq 8192 --global-batch 8 --search
expect_rc 1 "empty search fails"
expect_err 'no layout: [0-9]+ layouts pass the divisibility rules' "explained"

run "$PODSIM" eval collective --system hgx_h100 --op all_to_all --ranks 64
expect_rc 1 "missing --bytes"; expect_err -- '--bytes is required' "named"
run "$PODSIM" eval collective --system hgx_h100 --op all_to_all --ranks 64 --bytes 1XB
expect_rc 1 "bad size"; expect_err "'1XB' is not a size" "named"
run "$PODSIM" eval collective --system hgx_h100 --op all_to_all --ranks 64 --bytes 1G --sise 3
expect_rc 1 "unknown option"; expect_err 'unknown option --sise' "named"
run "$PODSIM" eval train --system hgx_h100 --model llama3_70b --gpus 64 --seq 8192 --global-batch 128 --tpp 4
expect_rc 1 "unknown train field"; expect_err 'tpp: unknown field' "named"
run "$PODSIM" eval
expect_rc 2 "eval without a kind"
run "$PODSIM" eval serve
expect_rc 2 "eval of an unknown kind"
run "$PODSIM" eval collective system
expect_rc 2 "positional argument"
finish
