#!/usr/bin/env bash
# report.sh: `podsim report DIR` writes one self-contained HTML page and
# the same as Markdown for a run; the page loads in headless Chromium with
# no console messages, every image renders, and a screenshot is not blank.
. "$(dirname "$0")/lib.bash"
cd "$OUT"

scenario s.lua <<'LUA'
local r = podsim.study{name = "demo", samples = 2000,
  params = {x = podsim.dist.normal{0, 1}, w = podsim.dist.uniform{0, 2}},
  grid = {sys = {"a", "b"}},
  eval = function(p) return {y = p.x * (p.sys == "a" and 1 or 2) + p.w, z = p.x < -2.5 and 0 / 0 or p.w} end}:run()
podsim.write(r)
podsim.plot(r)
podsim.check{id = "X1", name = "demo check", published = 1, value = 1.01, tol_rel = 0.05, fit = false}
-- the other plot kinds: Sobol tornado, histogram, win map over two keys,
-- and a figure of the run itself
local r2 = podsim.study{name = "sob", samples = 1000, sensitivity = "sobol",
  params = {x = podsim.dist.uniform{0, 1}, v = podsim.dist.uniform{0, 1}},
  grid = {k = {1, 2}, m = {"p", "q"}},
  metrics = {g = {label = "gain", wins_above = 0.5}},
  eval = function(p) return {g = p.k * p.x + 0.1 * p.v - (p.m == "p" and 0.2 or 0)} end}:run()
podsim.write(r2)
podsim.plot(r2)
podsim.plot_heatmap{cells = {{row = "r", col = 1, value = 0.3}, {row = "r", col = 2, value = 0.8}},
  title = "map", output = "plots/map_demo.svg"}
LUA
run "$PODSIM" run s.lua --quiet --out run
expect_rc 0 "scenario"
run "$PODSIM" report run
expect_rc 0 "report"
expect_out '^([0-9]+) studies, [0-9]+ plots, 1 warnings$' "counts"
[ -s run/report.html ] && [ -s run/report.md ] && ok || bad "report.html and report.md written"
grep -qE '^\| a \| y \| 19[0-9]{2} \| ' run/report.md && ok || bad "summary table in Markdown"
grep -q 'samples with a NaN or infinite z were left out' run/report.md && ok || bad "warning in the report"
grep -q '^| w | uniform{hi=2, lo=0} |' run/report.md && ok || bad "assumptions in the report"
grep -q '^| X1 | demo check | +1.0% | prediction | pass |' run/report.md && ok || bad "validation rows"
grep -qE 'src="(http|https|file):' run/report.html && bad "the page loads nothing from outside" || ok
# CDF plots: p5/p50/p95 marks per grid point equal the summary's; the
# shown range is the central 98% (tornado files named by grid values)
python3 - run/demo <<'PY' && ok || bad "CDF marks and names"
import csv, os, sys
d = sys.argv[1]
summ = {(r["sys"], r["metric"]): r for r in csv.DictReader(open(d + "/summary.csv"))}
marks = list(csv.DictReader(open(d + "/cdfmarks_y.csv")))
assert len(marks) == 6, marks
for i, sysname in enumerate(["a", "b"]):
    got = [float(m["value"]) for m in marks if m["point"] == str(i + 1)]
    want = [float(summ[(sysname, "y")][q]) for q in ("p5", "p50", "p95")]
    assert all(abs(g - w) <= 1e-9 * max(1, abs(w)) for g, w in zip(got, want)), (got, want)
rows = list(csv.DictReader(open(d + "/cdf_y.csv")))
assert len(rows) == 2 * 101, len(rows)     # 100 bins and the lower edge, per grid point
assert os.path.exists(d + "/plots/tornado_y_sys-a.svg") or not os.path.exists(d + "/plots/cdf_y.svg")
PY
# the tornado in output units: y = x * (1 or 2) + w, each input from its
# p5 to its p95 with the other at its median
python3 - run/demo <<'PY' && ok || bad "swing tornado in output units"
import csv, sys
from statistics import NormalDist
d = sys.argv[1]
z = NormalDist().inv_cdf(0.95)
for sysname, k in (("a", 1), ("b", 2)):
    rows = {r["param"]: r for r in csv.DictReader(open(f"{d}/swing_y_sys-{sysname}.csv"))}
    want = {"x": (-k * z + 1, k * z + 1), "w": (0.1, 1.9)}
    for p, (lo, hi) in want.items():
        got = (float(rows[p]["at_p5"]), float(rows[p]["at_p95"]))
        assert abs(got[0] - lo) < 1e-6 and abs(got[1] - hi) < 1e-6, (sysname, p, got, lo, hi)
        assert abs(float(rows[p]["swing"]) - (hi - lo)) < 1e-6
    assert list(rows) == ["w", "x"]  # widest last: on top of the chart
PY
if command -v gnuplot >/dev/null; then
  for f in sob/plots/sobol_g_k-1_m-p.svg sob/plots/heatmap_g.svg sob/plots/hist_g.svg demo/plots/hist_y.svg; do
    grep -qF "]($f)" run/report.md && ok || bad "report shows $f"
  done
  grep -q '^## Run plots' run/report.md && grep -qF '](./plots/map_demo.svg)' run/report.md && ok || bad "the run's own plots"
  grep -qF 'Sobol first-order and total indices' run/report.html && ok || bad "captions say what a figure shows"
fi
nsvg=$(find run -name '*.svg' | wc -l)
nimg=$(grep -o '<img ' run/report.html | wc -l)
[ "$nimg" -eq "$nsvg" ] && ok || bad "every SVG inline ($nimg of $nsvg)"

# a declared metric: label, unit and scale in the summary table and report
scenario d.lua <<'LUA'
local r = podsim.study{name = "adv", samples = 500, params = {x = podsim.dist.uniform{0.1, 0.2}},
  metrics = {advantage = {label = "GB200 cost advantage", unit = "%", scale = 100}},
  eval = function(p) return {advantage = p.x} end}:run()
podsim.write(r)
LUA
run "$PODSIM" run d.lua --out drun
expect_rc 0 "declared metric"
expect_out '^GB200 cost advantage \(%\) +500 +1[0-9]\.[0-9]+ ' "label, unit and scaled mean in the table"
run "$PODSIM" report drun
grep -qE '^\| GB200 cost advantage \(%\) \| 500 \| 1[0-9]\.[0-9]+ \|' drun/report.md && ok || bad "label and scaled values in the report"

run "$PODSIM" report
expect_rc 2 "report without a folder"
mkdir -p empty
run "$PODSIM" report empty
expect_rc 1 "empty folder"; expect_err 'no podsim results' "explained"

if command -v chromium >/dev/null && command -v python3 >/dev/null; then
  flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
         --disable-component-update --disable-sync --no-first-run)
  prof=$(mktemp -d)
  set +e
  timeout 120 chromium "${flags[@]}" --user-data-dir="$prof" --enable-logging=stderr --v=0 \
    --virtual-time-budget=5000 --dump-dom "file://$OUT/run/report.html" >dom.html 2>chrome.err
  set -e
  grep -q '<h1>podsim report' dom.html && ok || bad "Chromium loaded the page"
  if grep -q ':CONSOLE(' chrome.err; then bad "console messages: $(grep ':CONSOLE(' chrome.err | head -3)"; else ok; fi
  shown=$(grep -o 'data-images="[0-9]*/[0-9]*"' dom.html | head -1)
  [ "$shown" = "data-images=\"$nimg/$nimg\"" ] && [ "$nimg" -gt 0 -o "$nsvg" -eq 0 ] && ok || bad "every image renders ($shown of $nimg)"
  prof2=$(mktemp -d)
  set +e
  timeout 120 chromium "${flags[@]}" --user-data-dir="$prof2" --window-size=1200,1600 \
    --screenshot="$OUT/shot.png" "file://$OUT/run/report.html" >/dev/null 2>&1
  set -e
  python3 - "$OUT/shot.png" <<'PY' && ok || bad "screenshot is not blank"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = 3 if ctype == 2 else 4
stride = w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):          # undo the PNG filters to get the pixels
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
dark = sum(1 for r in rows[::4] for i in range(0, stride, bpp * 4) if r[i] < 128)
total = len(rows[::4]) * len(range(0, stride, bpp * 4))
assert dark > 0.002 * total, (dark, total)   # text and plot lines on white
assert dark < 0.5 * total, (dark, total)     # not a black page
PY
else
  echo "chromium or python3 not installed: rendering not checked"
fi
finish
