# scenarios/where_nvl72_wins.lua runs as shipped (at a few samples per
# cell): the map, both heatmap CSVs, and a probability per cell.
source "$(dirname "$0")/lib.bash"
set -e
run "$PODSIM" run "$SRC/scenarios/where_nvl72_wins.lua" --samples 300 --quiet --out "$OUT/run"
expect_rc 0 "scenario"
expect_out 'P\(GB200 NVL72 cheaper' "prints the map"
expect_out '^kimi_k2_1t +rl_partial +8192 +[01]\.[0-9][0-9]' "every cell has a probability"
[ -f "$OUT/run/map.csv" ] && ok || bad "map.csv written"
[ "$(wc -l < "$OUT/run/map.csv")" -eq 37 ] && ok || bad "36 cells and a header"
[ -f "$OUT/run/heatmap_b200.csv" ] && [ -f "$OUT/run/heatmap_h100.csv" ] && ok || bad "heatmap data"
grep -q "^kimi_k2_1t,rl,512,b200,1," "$OUT/run/drivers.csv" && ok || bad "drivers per cell"
if command -v gnuplot >/dev/null; then
  grep -q '<svg' "$OUT/run/plots/map_b200.svg" && ok || bad "heatmap rendered"
fi
finish
