# Signals and stuck runs (DESIGN.md 10): SIGTERM and SIGHUP stop a run like
# SIGINT (partial results written and marked incomplete, exit 128 + the
# signal), and a run stuck where no Lua hook reaches (a worker inside a
# long C call, an endless finalizer at exit, which Lua runs with hooks
# off) is ended by the watchdog instead of living on.
source "$(dirname "$0")/lib.bash"
set -e

scenario slow.lua <<'LUA'
local s = podsim.study{name = "slow", samples = 1e8, chunk_size = 2000, seed = 3,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) local a = 0 for i = 1, 200 do a = a + i * p.x end return {y = a} end}
local r = s:run()
podsim.write(r)
print("complete=" .. tostring(r.complete) .. " done=" .. r.samples_done)
LUA
for sig in TERM:143 HUP:129 INT:130; do
  name=${sig%%:*} want=${sig##*:}
  set +e
  "$PODSIM" run "$OUT/slow.lua" --threads 2 --quiet --out "$OUT/s$name" >"$OUT/stdout" 2>"$OUT/stderr" &
  pid=$!
  # wait until the study is running (its first chunks are done)
  for _ in $(seq 50); do sleep 0.1; [ -d "$OUT/s$name" ] && break; done
  sleep 0.5
  kill -"$name" "$pid"
  wait "$pid"
  RC=$?
  set -e
  expect_rc "$want" "SIG$name exits $want"
  expect_out 'complete=false done=[1-9]' "SIG$name: the study returned partial results"
  grep -q '"complete": false' "$OUT/s$name/slow/meta.json" 2>/dev/null && ok || bad "SIG$name: meta.json marked incomplete"
  grep -q '"interrupted": true' "$OUT/s$name/slow/meta.json" 2>/dev/null && ok || bad "SIG$name: meta.json says interrupted"
  find "$OUT/s$name" -name '*.tmp.*' | grep -q . && bad "SIG$name: temporary files left" || ok
done

# --- a worker stuck in a long C call (a pattern with nested lazy
# repetitions over a long subject) does not keep the process alive past
# --timeout: the watchdog ends it after the grace period ---
scenario stuck.lua <<'LUA'
local s = podsim.study{name = "stuck", samples = 100, threads = 1,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) local a = ("a"):rep(20000) return {y = #tostring(a:find(".-.-.-.-b"))} end}
s:run()
LUA
start=$(date +%s)
run timeout -s KILL 90 "$PODSIM" run "$OUT/stuck.lua" --quiet --timeout 1 --out "$OUT/st"
took=$(( $(date +%s) - start ))
expect_rc 1 "a stuck worker: exit 1, not killed"
expect_err 'time budget \(--timeout\) ran out and the run did not stop in time; exiting' "the watchdog explains"
[ "$took" -lt 40 ] && ok || bad "ended soon after timeout + grace (took $took s)"

# --- an endless finalizer at exit: the exit budget ends it ---
scenario gcloop.lua <<'LUA'
setmetatable({}, {__gc = function() while true do end end})
print("done")
LUA
run timeout -s KILL 60 "$PODSIM" run "$OUT/gcloop.lua" --quiet --out "$OUT/gc"
expect_rc 1 "an endless finalizer at exit: exit 1, not killed"
expect_out '^done$' "the scenario ran"
expect_err 'finalizers \(__gc\) at exit did not finish in time' "explained"

# --- SIGTERM while a finalizer loops during the run: the watchdog ends
# it after the grace period (a single SIGTERM used to be ignored) ---
scenario gcrun.lua <<'LUA'
setmetatable({}, {__gc = function() while true do end end})
collectgarbage()
LUA
set +e
"$PODSIM" run "$OUT/gcrun.lua" --quiet --out "$OUT/gr" >"$OUT/stdout" 2>"$OUT/stderr" &
pid=$!
sleep 1
kill -TERM "$pid"
start=$(date +%s)
( sleep 40; kill -KILL "$pid" 2>/dev/null ) &
killer=$!
wait "$pid"
RC=$?
kill "$killer" 2>/dev/null
wait "$killer" 2>/dev/null
set -e
took=$(( $(date +%s) - start ))
expect_rc 1 "SIGTERM during a stuck finalizer: exit 1 from the watchdog"
expect_err 'interrupted and did not stop in time' "explained"
[ "$took" -lt 30 ] && ok || bad "ended within the grace period (took $took s)"
finish
