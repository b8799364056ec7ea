# podsim plot DIR renders the recipes a run wrote beside its SVGs; plots
# are written atomically; a folder without recipes is an error.
source "$(dirname "$0")/lib.bash"
set -e
run "$PODSIM" run "$SRC/scenarios/alltoall_64gpu.lua" --quiet --out "$OUT/run"
expect_rc 0 "scenario"
[ -f "$OUT/run/plots/sweep.plot" ] && ok || bad "recipe written"
if command -v gnuplot >/dev/null; then
  [ -s "$OUT/run/plots/sweep.svg" ] && ok || bad "svg rendered"
  rm -f "$OUT/run/plots/sweep.svg"
  run "$PODSIM" plot "$OUT/run"
  expect_rc 0 "podsim plot"; expect_out 'sweep\.svg' "lists the SVG"
  grep -q '<svg' "$OUT/run/plots/sweep.svg" && ok || bad "svg rendered again"
  ls "$OUT/run/plots" | grep -q tmp && bad "temporary files left" || ok
else
  echo "gnuplot not installed: rendering not checked"
fi
mkdir -p "$OUT/empty"
run "$PODSIM" plot "$OUT/empty"
expect_rc 1 "no recipes"; expect_err 'no plot recipes' "explained"
run "$PODSIM" plot
expect_rc 2 "plot without a folder"
run "$PODSIM" presets nonsense
expect_rc 2 "unknown preset kind is a usage error"; expect_err "unknown preset kind 'nonsense'" "explained"
run "$PODSIM" presets gpus
expect_rc 0 "presets gpus"; expect_out 'h100' "lists GPUs"; expect_out 'source:' "with sources"
# --samples overrides a study's sample count, not the one-point
# re-evaluations behind the swing tornado: the swing table is the same
# whatever --samples says (the eval draws math.random, so a swing taken over
# N samples would change with N).
cat >"$OUT/swing.lua" <<'LUA'
local s = podsim.study{name = "sw", samples = 500, seed = 3,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = p.x + math.random()} end}
podsim.plot(s:run())
LUA
for n in 400 4000; do
  run "$PODSIM" run "$OUT/swing.lua" --quiet --samples $n --out "$OUT/sw$n"
  expect_rc 0 "swing study with --samples $n"
done
cmp -s "$OUT/sw400/sw/swing_y.csv" "$OUT/sw4000/sw/swing_y.csv" && ok || bad "swing independent of --samples"

# podsim.gnuplot's output argument, as lua/README.md documents it: nil
# (plots/<template>.svg), a name ending in .svg relative to the output
# folder (folders created), or an absolute one below the output folder;
# the recipe <output without .svg>.plot beside it.  Anything else is an
# error naming the scenario line and the field.
i=0
for o in 'nil' '"a.svg"' '"sub/dir/b.svg"' 'podsim.out_dir() .. "/abs.svg"'; do
  i=$((i + 1))
  cat >"$OUT/gpo$i.lua" <<LUA
local csv = podsim.write_csv("t.csv", {"param", "spearman"}, {{"a", 0.5}})
podsim.gnuplot("tornado", {datafile = csv, metric = "m", point = "p"}, $o)
LUA
  run "$PODSIM" run "$OUT/gpo$i.lua" --out "$OUT/gpo$i"
  expect_rc 0 "output $o"
done
[ -f "$OUT/gpo1/plots/tornado.plot" ] && ok || bad "default output plots/tornado.svg"
[ -f "$OUT/gpo2/a.plot" ] && ok || bad "relative output a.svg"
[ -f "$OUT/gpo3/sub/dir/b.plot" ] && ok || bad "relative output in new folders"
[ -f "$OUT/gpo4/abs.plot" ] && ok || bad "absolute output below the output folder"
if command -v gnuplot >/dev/null; then
  grep -q '<svg' "$OUT/gpo3/sub/dir/b.svg" && ok || bad "svg at the given name"
fi
while IFS='|' read -r o msg; do
  cat >"$OUT/gpbad.lua" <<LUA
local csv = podsim.write_csv("t.csv", {"param", "spearman"}, {{"a", 0.5}})
podsim.gnuplot("tornado", {datafile = csv, metric = "m", point = "p"}, $o)
LUA
  run "$PODSIM" run "$OUT/gpbad.lua" --out "$OUT/gpbad"
  expect_rc 1 "output $o"
  expect_err "gpbad\.lua:2: podsim\.gnuplot: output: $msg" "output $o explained"
done <<'CASES'
5|expected a file name ending in \.svg \(relative to the output folder\), got number
{}|expected a file name ending in \.svg \(relative to the output folder\), got table
false|expected a file name ending in \.svg \(relative to the output folder\), got boolean
"x.png"|expected a file name ending in \.svg, got 'x\.png'
"sub/.svg"|expected a file name ending in \.svg, got 'sub/\.svg'
"../x.svg"|'.*/gpbad/\.\./x\.svg' is outside the output folder
"/etc/x.svg"|'/etc/x\.svg' is outside the output folder
CASES
ls "$OUT/gpbad" | grep -q '\.plot$' && bad "a bad output wrote a recipe" || ok
# podsim.plot renders its plots in one gnuplot run (`reset session` between
# them): every SVG is byte for byte the one its recipe renders alone
# (`podsim plot DIR` runs one gnuplot per recipe), and a plot gnuplot fails
# on (a constant metric's empty tornado) or only warns on (a metric without
# one finite value) has the outcome of its own run: left out of the list,
# or rendered.
if command -v gnuplot >/dev/null; then
  cat >"$OUT/batch.lua" <<'LUA'
local r = podsim.study{name = "b", samples = 400, seed = 2,
  params = {x = podsim.dist.uniform{0, 1}, z = podsim.dist.uniform{0, 1}},
  grid = {a = {0, 1}, b = {1, 2}}, sensitivity = "spearman",
  metrics = {y = {wins_above = 1.5}, c = {}},
  eval = function(p) return {y = p.b * p.x + p.a + p.z, c = 1} end}:run()
for _, s in ipairs(podsim.plot(r)) do print("SVG " .. s) end
local q = podsim.study{name = "q", samples = 50, params = {x = podsim.dist.uniform{0, 1}},
  metrics = {n = {}}, eval = function(p) return {n = 0 / 0} end}:run()
for _, s in ipairs(podsim.plot(q)) do print("SVG " .. s) end
LUA
  run "$PODSIM" run "$OUT/batch.lua" --quiet --out "$OUT/batch"
  expect_rc 0 "podsim.plot of plots that fail, warn and render"
  expect_out "^SVG .*/q/plots/cdf_n\.svg$" "a plot gnuplot only warns on is rendered"
  grep -q "tornado_c" "$OUT/stdout" && bad "a plot gnuplot fails on is listed" || ok
  [ "$(grep -c '^SVG ' "$OUT/stdout")" -eq 17 ] && ok || bad "17 of the 22 plots listed"
  for s in $(sed -n 's/^SVG //p' "$OUT/stdout"); do [ -s "$s" ] && ok || bad "listed $s exists"; done
  find "$OUT/batch" -name '*tmp*' | grep -q . && bad "temporary files left by the batch" || ok
  cp -r "$OUT/batch" "$OUT/alone"
  find "$OUT/alone" -name '*.svg' -delete
  run "$PODSIM" plot "$OUT/alone"
  expect_rc 1 "the failing plots fail alone too"; expect_err "5 plots failed" "the same five"
  expect_err "tornado_c_a-0_b-1\.plot: " "names the recipe"
  expect_err "all points y value undefined" "gnuplot's own message"
  n=0
  for p in "$OUT"/batch/*/plots/*.plot; do
    s=${p%.plot}.svg a=$OUT/alone/${p#"$OUT"/batch/}
    a=${a%.plot}.svg
    if [ -f "$s" ]; then
      n=$((n + 1))
      cmp -s "$s" "$a" && ok || bad "${s#"$OUT"/} differs from its lone rendering"
    else
      [ ! -e "$a" ] && ok || bad "${s#"$OUT"/} renders alone but not in the batch"
    fi
  done
  [ $n -eq 17 ] && ok || bad "17 SVGs compared, not $n"

  # a stop (SIGINT) while the batch runs ends the plot being drawn; the
  # others are still rendered (as when each had its own gnuplot)
  cat >"$OUT/many.lua" <<'LUA'
local m, names = {}, {"m1", "m2", "m3", "m4", "m5", "m6"}
for _, k in ipairs(names) do m[k] = {} end
local r = podsim.study{name = "many", samples = 300, seed = 4,
  params = {x = podsim.dist.uniform{0, 1}, z = podsim.dist.uniform{0, 1}},
  grid = {a = {0, 1}, b = {1, 2}}, sensitivity = "spearman", metrics = m,
  eval = function(p)
    local o = {}
    for i, k in ipairs(names) do o[k] = p.b * p.x + i * p.z + p.a end
    return o
  end}:run()
print("listed", #podsim.plot(r))
LUA
  if command -v pgrep >/dev/null; then
    "$PODSIM" run "$OUT/many.lua" --quiet --out "$OUT/many" >"$OUT/stdout" 2>"$OUT/stderr" &
    pid=$!
    for _ in $(seq 1 3000); do pgrep -P $pid gnuplot >/dev/null && break; sleep 0.01; done
    kill -INT $pid
    set +e; wait $pid; RC=$?; set -e
    expect_rc 130 "SIGINT during the batch"
    recipes=$(ls "$OUT"/many/many/plots/*.plot | wc -l)
    svgs=$(ls "$OUT"/many/many/plots/*.svg | wc -l)
    [ "$recipes" -eq 60 ] && ok || bad "60 recipes, not $recipes"
    [ "$svgs" -ge 59 ] && ok || bad "all but the plot being drawn rendered ($svgs of $recipes)"
    expect_out "^listed	$svgs$" "podsim.plot lists what was rendered"
    find "$OUT/many" -name '*tmp*' | grep -q . && bad "temporary files left after SIGINT" || ok
  fi
fi
finish
