# Output that cannot be lost or mixed (DESIGN.md 7, 10): closed standard
# streams, /dev/full and a broken pipe are output errors (message, files
# still written, non-zero exit); a short write (file size limit) is an
# error naming the file, with no temporary left; an output folder belongs
# to one run at a time; meta.json is replaced first by an "in progress"
# state and written last.
source "$(dirname "$0")/lib.bash"
set -e

scenario talk.lua <<'LUA'
for i = 1, 2000 do print(("line %d of the scenario's output"):format(i)) end
podsim.write_csv("t.csv", {"a"}, {{a = 1}})
LUA
# --- stdout on /dev/full ---
set +e
"$PODSIM" run "$OUT/talk.lua" --quiet --out "$OUT/full" >/dev/full 2>"$OUT/stderr"
RC=$?
set -e
expect_rc 1 "stdout on /dev/full: exit 1"
expect_err 'podsim: cannot write standard output' "/dev/full explained"
[ -f "$OUT/full/t.csv" ] && ok || bad "files still written (/dev/full)"

# --- stdout closed: nothing may land in a file opened on fd 1 ---
set +e
"$PODSIM" run "$OUT/talk.lua" --quiet --out "$OUT/closed" >&- 2>"$OUT/stderr"
RC=$?
set -e
expect_rc 1 "closed stdout with output: exit 1"
expect_err 'podsim: standard output is closed' "closed stdout explained"
[ "$(cat "$OUT/closed/t.csv" 2>/dev/null)" = "$(printf 'a\n1')" ] && ok || bad "t.csv intact (closed stdout)"

scenario quiet.lua <<'LUA'
podsim.write_csv("q.csv", {"a"}, {{a = 2}})
local f = assert(io.open(podsim.out_path("q.csv")))
assert(f:read("l") == "a")
f:close()
LUA
# --- --help and --version on /dev/full report the loss too ---
set +e
"$PODSIM" --help >/dev/full 2>/dev/null
RC=$?
set -e
expect_rc 1 "--help on /dev/full: exit 1"

# --- a closed stdout that nothing is printed to loses nothing: exit 0 ---
set +e
"$PODSIM" run "$OUT/quiet.lua" --quiet --out "$OUT/q0" >&- 2>"$OUT/stderr"
RC=$?
set -e
expect_rc 0 "closed stdout, no output: exit 0"
expect_no_err "closed stdout, no output: no message"

# --- closed stdin and stderr do not disturb a run ---
set +e
"$PODSIM" run "$OUT/quiet.lua" --quiet --out "$OUT/q" <&- 2>&- >"$OUT/stdout"
RC=$?
set -e
expect_rc 0 "closed stdin and stderr: a quiet run still succeeds"
[ -f "$OUT/q/q.csv" ] && ok || bad "q.csv written"

# --- broken pipe: the scenario goes on, its files are written, exit 1 ---
set +e
"$PODSIM" run "$OUT/talk.lua" --quiet --out "$OUT/pipe" 2>"$OUT/stderr" | head -c 10 >/dev/null
RC=${PIPESTATUS[0]}
set -e
expect_rc 1 "broken pipe: exit 1 (not killed by SIGPIPE)"
expect_err 'podsim: cannot write standard output' "broken pipe explained"
[ -f "$OUT/pipe/t.csv" ] && ok || bad "files still written (broken pipe)"

# --- a short write (file size limit; SIGXFSZ ignored so writes fail with
# EFBIG, as on a full disk): error with the path, no temporary left ---
scenario big.lua <<'LUA'
local rows = {}
for i = 1, 20000 do rows[i] = {a = i, b = "some text to make the file long"} end
podsim.write_csv("big.csv", {"a", "b"}, rows)
LUA
set +e
(trap '' XFSZ; ulimit -f 64; exec "$PODSIM" run "$OUT/big.lua" --quiet --out "$OUT/fs") >"$OUT/stdout" 2>"$OUT/stderr"
RC=$?
set -e
expect_rc 1 "short write: exit 1"
expect_err "big\.lua:3: podsim\.write_csv: cannot write '[^']*/fs/big\.csv': File too large" "short write names the file"
[ ! -e "$OUT/fs/big.csv" ] && ok || bad "no big.csv under its final name"
find "$OUT/fs" -name '*.tmp.*' | grep -q . && bad "temporary file left (short write)" || ok

# --- the same for samples.csv (written in C), and meta.json: a first run
# completes; a second one fails in samples.csv: the folder must not keep
# claiming "complete" beside the second run's summary.csv ---
scenario kept.lua <<'LUA'
local s = podsim.study{name = "k", samples = podsim.args.n, seed = podsim.args.seed, keep_samples = true,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"}, eval = function(p) return {y = 2 * p.x} end}
podsim.write(s:run())
LUA
run "$PODSIM" run "$OUT/kept.lua" --quiet --set n=1000 --set seed=1 --out "$OUT/k"
expect_rc 0 "first run"
grep -q '"state": "complete"' "$OUT/k/k/meta.json" && ok || bad "meta.json says complete"
set +e
(trap '' XFSZ; ulimit -f 256; exec "$PODSIM" run "$OUT/kept.lua" --quiet --set n=100000 --set seed=2 --out "$OUT/k") >"$OUT/stdout" 2>"$OUT/stderr"
RC=$?
set -e
expect_rc 1 "samples.csv short write: exit 1"
expect_err "podsim\.write: cannot write '[^']*/k/k/samples\.csv': File too large" "samples.csv short write named"
grep -q '"complete": true' "$OUT/k/k/meta.json" && bad "meta.json still claims complete beside the new files" || ok
grep -q '"state": "in progress"' "$OUT/k/k/meta.json" && ok || bad "meta.json says in progress"
find "$OUT/k" -name '*.tmp.*' | grep -q . && bad "temporary file left (samples)" || ok

# --- one run per output folder: a second run on a busy folder is refused;
# a stale lock (its pid gone) is taken over ---
scenario long.lua <<'LUA'
local s = podsim.study{name = "l", samples = 1e8, chunk_size = 2000,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) local a = 0 for i = 1, 200 do a = a + i * p.x end return {y = a} end}
podsim.write(s:run())
LUA
"$PODSIM" run "$OUT/long.lua" --quiet --threads 1 --timeout 3 --out "$OUT/busy" >/dev/null 2>&1 &
first=$!
for _ in $(seq 50); do sleep 0.1; [ -f "$OUT/busy/.podsim.lock" ] && break; done
run "$PODSIM" run "$OUT/talk.lua" --quiet --out "$OUT/busy"
expect_rc 1 "a busy output folder is refused"
expect_err "podsim: the output folder '[^']*/busy' is in use by another run \(pid $first" "the owner is named"
[ ! -e "$OUT/busy/t.csv" ] && ok || bad "the refused run wrote nothing"
wait "$first" || true
[ ! -e "$OUT/busy/.podsim.lock" ] && ok || bad "the lock is removed when the run ends"
sh -c 'exit 0' & dead=$!
wait "$dead"
echo "$dead" >"$OUT/busy/.podsim.lock"
run "$PODSIM" run "$OUT/talk.lua" --quiet --out "$OUT/busy"
expect_rc 0 "a stale lock is taken over"
[ ! -e "$OUT/busy/.podsim.lock" ] && ok || bad "the stale lock is gone afterwards"

# --- podsim plot and presets run under the same budgets as a run ---
run "$PODSIM" plot "$OUT/k" --timeout 5 --max-memory 64
expect_rc 1 "plot with budgets: not a usage error (no recipes here)"
expect_err 'no plot recipes' "plot ran"
run "$PODSIM" presets gpus --timeout 5 --max-memory 64
expect_rc 0 "presets with budgets"
run "$PODSIM" plot "$OUT/k" --seed 3
expect_rc 2 "plot takes only the budgets"
finish
