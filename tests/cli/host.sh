# CLI end-to-end tests of the executable and the scenario host: exit codes,
# usage errors, the sandbox, located errors, --set, atomic output.
source "$(dirname "$0")/lib.bash"
set -e

run "$PODSIM" --version
expect_rc 0 "--version"; expect_out '^podsim [0-9]+\.[0-9]+\.[0-9]+$' "version line"

run "$PODSIM" --help
expect_rc 0 "--help"; expect_out 'usage: podsim' "usage"; expect_out '--threads' "run options listed"

run "$PODSIM"
expect_rc 2 "no command"
run "$PODSIM" frobnicate
expect_rc 2 "unknown command"; expect_err "unknown command 'frobnicate'" "names it"
run "$PODSIM" run
expect_rc 2 "run without file"
run "$PODSIM" run x.lua --threads zero
expect_rc 2 "bad --threads"; expect_err "threads" "names the option"
run "$PODSIM" run x.lua --set novalue
expect_rc 2 "bad --set"
run "$PODSIM" run x.lua --bogus
expect_rc 2 "unknown option"
run "$PODSIM" run "$OUT/missing.lua"
expect_rc 1 "missing file"; expect_err "cannot read" "says why"

# --set values reach podsim.args, numbers parsed, read-only
scenario args.lua <<'LUA'
assert(podsim.args.n == 42 and math.type(podsim.args.n) == "integer", "n")
assert(podsim.args.x == 0.5, "x")
assert(podsim.args.name == "h100", "name")
assert(podsim.args.flag == true, "flag")
local ok, err = pcall(function() podsim.args.n = 1 end)
assert(not ok and err:find("read%-only"), err)
print("args ok")
LUA
run "$PODSIM" run "$OUT/args.lua" --set n=42 --set x=0.5 --set name=h100 --set flag=true
expect_rc 0 "args scenario"; expect_out '^args ok$' "args printed"; expect_no_err "args"

# the sandbox refuses os.execute, io.popen, loadfile, binary chunks,
# C modules and files outside the allowed folders; --unsafe lifts it
for snippet in 'os.execute("true")' 'io.popen("ls")' 'loadfile("/etc/passwd")' \
               'load(string.dump(function() end))' 'require("socket")' \
               'io.open("/etc/passwd")' 'io.open("/tmp/podsim-escape.txt", "w")' \
               'os.remove("x")' 'package.loadlib("libc.so.6", "puts")'; do
  printf '%s\n' "$snippet" >"$OUT/escape.lua"
  run "$PODSIM" run "$OUT/escape.lua"
  expect_rc 1 "sandbox: $snippet"
  expect_err 'escape.lua:1:' "sandbox error located: $snippet"
done
[ ! -e /tmp/podsim-escape.txt ] && ok || bad "file written outside the sandbox"
printf 'local f = io.open("%s/inside.txt", "w"); f:write("x"); f:close(); print("inside ok")\n' "$OUT" >"$OUT/inside.lua"
run "$PODSIM" run "$OUT/inside.lua" --out "$OUT/inside_out"
expect_rc 1 "writing beside the scenario (only the output folder is writable)"
expect_err 'is outside the output folder' "explained"
printf 'local f = io.open("%s/inside.txt"); print(f and "read ok" or "no file")\n' "$OUT" >"$OUT/inside_read.lua"
echo x >"$OUT/inside.txt"
run "$PODSIM" run "$OUT/inside_read.lua" --out "$OUT/inside_out"
expect_rc 0 "reading beside the scenario"; expect_out 'read ok' "read inside"
printf 'local p = io.popen("echo unsafe-ok"); print(p:read("a")); p:close()\n' >"$OUT/unsafe.lua"
run "$PODSIM" run "$OUT/unsafe.lua" --unsafe
expect_rc 0 "--unsafe"; expect_out 'unsafe-ok' "popen ran"

# a runtime error shows the message and a traceback of scenario frames only
scenario rt.lua <<'LUA'
local function inner(t) return t.x.y end
local function outer() return inner({}) end
outer()
LUA
run "$PODSIM" run "$OUT/rt.lua"
expect_rc 1 "runtime error"
expect_err 'rt.lua:1: attempt to index' "message located"
expect_err 'traceback:' "traceback shown"
expect_err "rt.lua:3: in main chunk" "main chunk frame"
grep -q '\[C\]\|\[podsim\]' "$OUT/stderr" && bad "traceback shows non-scenario frames" || ok

# an input error raised by podsim stands alone: one line, no traceback
scenario input.lua <<'LUA'
podsim.check{id = "X", name = "n", published = 1, value = 1, tol_rel = 0.1}
LUA
run "$PODSIM" run "$OUT/input.lua"
expect_rc 1 "input error"; expect_err '^.*input.lua:1: podsim.check: fit: ' "located, names field"
expect_lines_err 1 "single line"

# atomic writes: the final name appears complete, no temporary files remain
scenario write.lua <<'LUA'
local rows = {}
for i = 1, 1000 do rows[i] = {i = i, sq = i * i} end
podsim.write_csv("table.csv", {"i", "sq"}, rows)
podsim.write_json("meta.json", {complete = true, n = 1000, list = {1, 2}})
LUA
run "$PODSIM" run "$OUT/write.lua" --out "$OUT/w"
expect_rc 0 "writers"
[ "$(wc -l <"$OUT/w/table.csv")" -eq 1001 ] && ok || bad "table.csv rows"
grep -q '"complete": true' "$OUT/w/meta.json" && ok || bad "meta.json content"
ls "$OUT/w" | grep -q tmp && bad "temporary file left" || ok

# a coroutine.yield at top level is an error, not a hang
printf 'coroutine.yield()\n' >"$OUT/yield.lua"
run "$PODSIM" run "$OUT/yield.lua"
expect_rc 1 "stray yield"; expect_err 'yielded outside a podsim call' "explained"

# the instruction/time budget stops an endless loop
printf 'while true do end\n' >"$OUT/loop.lua"
run "$PODSIM" run "$OUT/loop.lua" --timeout 0.5
expect_rc 1 "timeout"; expect_err 'time budget' "explained"

# the memory budget stops unbounded allocation
printf 'local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end\n' >"$OUT/mem.lua"
run "$PODSIM" run "$OUT/mem.lua" --max-memory 64
expect_rc 1 "memory budget"; expect_err 'memory budget' "explained"

finish
