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
finish
