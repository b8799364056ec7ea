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
finish
