# The sandbox holds (issue 10, "The sandbox"): text a scenario controls
# never reaches gnuplot as code, `podsim plot DIR` treats recipes as data,
# podsim's internals are out of reach, replacing globals cannot change what
# the host does, eval/probe states are sandboxed, paths are checked
# physically (symlink plus ".."), writes go only to the output folder, and
# Lua evaluators are deterministic whatever they keep.  Every case here
# failed on the code before these fixes.
source "$(dirname "$0")/lib.bash"
set -e
P=$OUT/pwned   # the file an attack would create
has_gnuplot=0
command -v gnuplot >/dev/null && has_gnuplot=1
pwned() { [ -e "$P" ] && { bad "$1: a command ran"; rm -f "$P"; } || ok; }

# --- gnuplot: backquotes in a string variable are text ----------------
scenario gp_backquote.lua <<LUA
local csv = podsim.write_csv("d.csv", {"point", "label", "value", "cdf"},
  {{1, "a", 1, 0}, {1, "a", 2, 1}})
local svg, why = podsim.gnuplot("cdf", {datafile = csv, npoints = 1, labels = "a",
  metric = "\`touch $P\`"})
print(svg or why)
LUA
run "$PODSIM" run "$OUT/gp_backquote.lua" --out "$OUT/o1"
expect_rc 0 "backquote metric renders"; pwned "backquote in a metric"
if [ $has_gnuplot = 1 ]; then
  grep -q 'touch' "$OUT/o1/plots/cdf.svg" && ok || bad "the metric is drawn as text"
fi

# --- the same through a study's metric name and podsim.plot ------------
scenario gp_metric.lua <<LUA
local r = podsim.study{name = "s", samples = 200, seed = 1,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {["\`touch $P\`"] = p.x} end}:run()
podsim.plot(r)
LUA
run "$PODSIM" run "$OUT/gp_metric.lua" --quiet --out "$OUT/o2"
pwned "backquote in a study metric (podsim.plot)"

# --- gnuplot: string escapes cannot be broken by replacing string.gsub -
scenario gp_gsub.lua <<LUA
string.gsub = function(s) return s end
LUA
run "$PODSIM" run "$OUT/gp_gsub.lua" --out "$OUT/o3"
expect_rc 1 "string library read-only"; expect_err 'string: gsub: the standard library is read-only' "explained"
scenario gp_quote.lua <<LUA
pcall(function() string.gsub = function(s) return s end end) -- the host's escaping
local csv = podsim.write_csv("d.csv", {"point", "label", "value", "cdf"}, {{1, "a", 1, 0}})
podsim.gnuplot("cdf", {datafile = csv, npoints = 1, labels = "a",
  metric = 'a" . system("touch $P") . "b'})
LUA
run "$PODSIM" run "$OUT/gp_quote.lua" --out "$OUT/o3"
pwned "a double quote in a metric"

# --- gnuplot reads no init file (~/.gnuplot runs commands) --------------
if [ $has_gnuplot = 1 ]; then
  mkdir -p "$OUT/home"
  echo "system('touch $P')" >"$OUT/home/.gnuplot"
  scenario gp_plain.lua <<'LUA'
local csv = podsim.write_csv("d.csv", {"point", "label", "value", "cdf"}, {{1, "a", 1, 0}, {1, "a", 2, 1}})
print(podsim.gnuplot("cdf", {datafile = csv, npoints = 1, labels = "a", metric = "m"}))
LUA
  run env HOME="$OUT/home" "$PODSIM" run "$OUT/gp_plain.lua" --out "$OUT/o1h"
  expect_rc 0 "plot with a ~/.gnuplot"; pwned "gnuplot ran ~/.gnuplot"
fi

# --- gnuplot: variable names are declared identifiers -------------------
scenario gp_name.lua <<LUA
local csv = podsim.write_csv("d.csv", {"point", "label", "value", "cdf"}, {{1, "a", 1, 0}})
podsim.gnuplot("cdf", {datafile = csv, npoints = 1, labels = "a", metric = "m",
  ["x = 1\nsystem('touch $P')\ny"] = 1})
LUA
run "$PODSIM" run "$OUT/gp_name.lua" --out "$OUT/o4"
expect_rc 1 "undeclared variable"; expect_err "podsim.gnuplot: vars.x = 1" "named"
expect_err "has no such variable" "explained"; pwned "a variable name with code"

# --- gnuplot: data files go through the path check ---------------------
scenario gp_pipe.lua <<LUA
podsim.gnuplot("cdf", {datafile = "< touch $P", npoints = 1, labels = "a", metric = "m"})
LUA
run "$PODSIM" run "$OUT/gp_pipe.lua" --out "$OUT/o5"
expect_rc 1 "piped data file"; expect_err "vars.datafile" "named"; pwned "a '< cmd' data file"
scenario gp_outside.lua <<'LUA'
podsim.gnuplot("cdf", {datafile = "/etc/passwd", npoints = 1, labels = "a", metric = "m"})
LUA
run "$PODSIM" run "$OUT/gp_outside.lua" --out "$OUT/o5"
expect_rc 1 "data file outside the sandbox"; expect_err "vars.datafile: '/etc/passwd' is outside" "explained"
[ ! -e "$OUT/o5/plots/cdf.svg" ] && ok || bad "nothing rendered from /etc/passwd"

# --- podsim plot DIR: recipes are data --------------------------------
mkdir -p "$OUT/foreign/plots"
printf 'point,label,value,cdf\n1,a,1,0\n1,a,2,1\n' >"$OUT/foreign/d.csv"
cat >"$OUT/foreign/plots/code.plot" <<'LUA'
return (function() while true do end end)()
LUA
run timeout 20 "$PODSIM" plot "$OUT/foreign"
[ "$RC" -ne 124 ] && ok || bad "a Lua recipe runs (hangs)"
expect_rc 1 "Lua recipe refused"; expect_err "code.plot: line 1: expected 'key = value'" "explained"
rm "$OUT/foreign/plots/code.plot"
cat >"$OUT/foreign/plots/cdf.plot" <<EOF
format = 1
template = "cdf"
var.datafile = "../d.csv"
var.labels = "a"
var.npoints = 1
var.metric = "\`touch $P\`"
EOF
run "$PODSIM" plot "$OUT/foreign"
pwned "backquote in a recipe"
if [ $has_gnuplot = 1 ]; then expect_rc 0 "data recipe renders"; fi
cat >"$OUT/foreign/plots/cdf.plot" <<'EOF'
format = 1
template = "cdf"
var.datafile = "../../../../../../../../etc/passwd"
var.labels = "a"
var.npoints = 1
var.metric = "m"
EOF
run "$PODSIM" plot "$OUT/foreign"
expect_rc 1 "recipe data file outside"; expect_err "datafile: '.*' is outside the folder being plotted" "explained"
ln -s /etc "$OUT/foreign/plots/etc"
sed -i 's|^var.datafile = .*|var.datafile = "etc/passwd"|' "$OUT/foreign/plots/cdf.plot"
run "$PODSIM" plot "$OUT/foreign"
expect_rc 1 "recipe data file through a symlink"; expect_err "is outside the folder being plotted" "explained"
rm "$OUT/foreign/plots/etc"
printf 'format = 1\ntemplate = "../../x"\n' >"$OUT/foreign/plots/cdf.plot"
run "$PODSIM" plot "$OUT/foreign"
expect_rc 1 "template names only embedded templates"; expect_err "template: expected the name of an embedded template" "explained"

# --- internals are out of reach -----------------------------------------
scenario internals.lua <<'LUA'
for _, k in ipairs{"_gnuplot", "_gnuplot_run", "_gnuplot_script", "_render_recipe", "_listdir",
    "_write_samples", "_results_hist", "_study_methods", "_sha256_file", "_checks", "_load"} do
  if podsim[k] ~= nil then print("reachable " .. k) end
end
for k in pairs(podsim) do if k:sub(1, 1) == "_" then print("reachable " .. k) end end
print("done")
LUA
run "$PODSIM" run "$OUT/internals.lua" --out "$OUT/o6"
expect_rc 0 "internals"; expect_out '^done' "ran"
grep -q reachable "$OUT/stdout" && bad "internal functions reachable" || ok

# --- replacing globals does not change what the host does --------------
scenario globals.lua <<'LUA'
next = function() return nil end
pairs = function() return function() return nil end end
type = function() return "number" end
tostring = function() return "x" end
local f = podsim.write_json("g.json", {a = 1})
local s = io.open(f):read("a")
print(s:find('"a": 1', 1, true) and "json ok" or "json broken: " .. s)
LUA
run "$PODSIM" run "$OUT/globals.lua" --out "$OUT/o7"
expect_rc 0 "replaced globals"; expect_out 'json ok' "host's JSON unaffected"

# --- eval and the probe run in the sandbox -----------------------------
for what in 'io.open("/tmp/podsim-eval-escape.txt", "w")' 'podsim.write_text("/tmp/podsim-eval-escape.txt", "x")' \
            'io.open("/etc/passwd"):read("a")'; do
  for metrics in 'metrics = {"v"},' ''; do
    scenario eval_io.lua <<LUA
local r = podsim.study{name = "s", samples = 100, seed = 1, $metrics
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) local _ = $what; return {v = p.x} end}:run()
LUA
    rm -f /tmp/podsim-eval-escape.txt
    run "$PODSIM" run "$OUT/eval_io.lua" --quiet --out "$OUT/o8"
    expect_rc 1 "eval: $what ${metrics:-(probe)}"; expect_err "is outside" "eval: $what explained"
    [ ! -e /tmp/podsim-eval-escape.txt ] && ok || bad "eval wrote outside"
  done
done

# --- the probe (template state) runs under the time budget --------------
scenario probe_loop.lua <<'LUA'
podsim.study{name = "s", samples = 10, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) while true do end end}
LUA
run timeout 30 "$PODSIM" run "$OUT/probe_loop.lua" --timeout 1 --out "$OUT/o10"
[ "$RC" -ne 124 ] && ok || bad "an endless probe ignores --timeout"
expect_rc 1 "endless probe stopped"; expect_err "time budget of 1 s exceeded" "explained"

# --- paths: symlink plus "..", dangling symlinks, writes only in out ---
mkdir -p "$OUT/secret/sub" "$OUT/scen"
echo "top secret" >"$OUT/secret/key.txt"
ln -s "$OUT/secret/sub" "$OUT/scen/link"
echo "mine" >"$OUT/scen/key.txt"
cat >"$OUT/scen/dotdot.lua" <<LUA
local f = io.open("$OUT/scen/link/../key.txt")
print(f and f:read("a") or "refused")
LUA
run "$PODSIM" run "$OUT/scen/dotdot.lua" --out "$OUT/scen/out"
grep -q "top secret" "$OUT/stdout" && bad "symlink/.. left the scenario's folder" || ok
expect_err "io.open: '.*/scen/link/../key.txt' is outside" "refused"
mkdir -p "$OUT/scen/out"
ln -sf "$OUT/created-by-dangling-link" "$OUT/scen/out/dangling"
cat >"$OUT/scen/dangling.lua" <<'LUA'
local f = io.open(podsim.out_path("dangling"), "w")
if f then f:write("x"); f:close() end
LUA
run "$PODSIM" run "$OUT/scen/dangling.lua" --out "$OUT/scen/out"
[ ! -e "$OUT/created-by-dangling-link" ] && ok || bad "a dangling symlink wrote outside"
expect_rc 1 "dangling symlink refused"
cat >"$OUT/scen/beside.lua" <<'LUA'
podsim.write_text(podsim.out_path("../beside.txt"), "x")
LUA
run "$PODSIM" run "$OUT/scen/beside.lua" --out "$OUT/scen/out"
expect_rc 1 "write beside the output folder"; [ ! -e "$OUT/scen/beside.txt" ] && ok || bad "wrote into the scenario's folder"

# --- userdata metatables ------------------------------------------------
scenario mt.lua <<'LUA'
local d = podsim.dist.normal{0, 1}
print(getmetatable(d), getmetatable(podsim.gpus.h100), getmetatable(podsim.gpus))
LUA
run "$PODSIM" run "$OUT/mt.lua" --out "$OUT/o9"
expect_rc 0 "metatables"; expect_out '^false	false	false' "hidden"
scenario mt_unsafe.lua <<'LUA'
local d = podsim.dist.normal{0, 1}
local ok, err = pcall(debug.getmetatable(podsim.gpus.h100).__index, io.stdout, "name")
print(ok and "read a file handle as a spec" or err)
ok, err = pcall(debug.getmetatable(d).__tostring, io.stdout)
print(ok and "read a file handle as a dist" or err)
debug.getmetatable(d).__gc(d)  -- by hand, then again by the collector
d = nil
collectgarbage()
print("gc ok")
LUA
run "$PODSIM" run "$OUT/mt_unsafe.lua" --unsafe --out "$OUT/o9"
expect_rc 0 "metamethods by hand (--unsafe)"; expect_out 'gc ok' "no double free"
expect_out "bad argument #1 to .*\\(gpu expected, got FILE\\*\\)" "spec metamethod checks its argument"
expect_out "bad argument #1 .*\\(podsim.dist expected" "dist metamethod checks its argument"

# --- determinism of Lua evaluators ---------------------------------------
scenario keep.lua <<'LUA'
local n = 0
local acc = {0}
local r = podsim.study{name = "keep", samples = 6000, seed = 3, chunk_size = 500,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p)
    n = n + 1; acc[1] = acc[1] + p.x
    p.seen = (p.seen or 0) + 1
    counter = (counter or 0) + 1
    return {up = n, tab = acc[1], p = p.seen, g = counter, r = math.random()}
  end}:run()
podsim.write(r)
LUA
for t in 1 4; do
  run "$PODSIM" run "$OUT/keep.lua" --quiet --threads $t --out "$OUT/keep$t"
  expect_rc 0 "keep.lua --threads $t"
done
cmp -s "$OUT/keep1/keep/summary.csv" "$OUT/keep4/keep/summary.csv" && ok || bad "upvalues, p, globals or math.random made results depend on threads"
run "$PODSIM" run "$OUT/keep.lua" --quiet --threads 4 --out "$OUT/keep4b"
cmp -s "$OUT/keep4/keep/summary.csv" "$OUT/keep4b/keep/summary.csv" && ok || bad "math.random in eval differs between runs"
finish
