# CLI test of the NumPy bench peer (tests/bench/peers/, timed by
# tests/bench/bench_peers.sh): at a small sample count the peer still runs
# against this podsim (it reads the system presets and core/coll.c and core/coll_plan.h's
# constants, so a change there can break it unseen), its output has the
# grid points and statistics the comparison reads, and it agrees with
# podsim within Monte Carlo error on both studies (compare.py); the check
# itself rejects a peer that is off by 10%.  Skipped (passes, with a
# message) when python3-numpy is not installed.
source "$(dirname "$0")/lib.bash"
set -e
py=""
for c in /usr/bin/python3 python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c "import numpy" 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ]; then
  echo "peer_agree: skipped (python3-numpy is not installed; ./build.sh deps installs it)"
  exit 0
fi
peers=$SRC/tests/bench/peers
n=50000
for mode in uncertainty kernel; do
  if [ $mode = uncertainty ]; then
    scen=$SRC/scenarios/alltoall_uncertainty.lua; study=a2a_ratio; grid=3
  else
    scen=$peers/kernel_a2a.lua; study=kernel_a2a; grid=1
  fi
  run "$PODSIM" run "$scen" --threads 1 --quiet --samples $n --out "$OUT/$mode"
  expect_rc 0 "podsim runs the $mode study"
  run "$py" "$peers/a2a_numpy.py" $mode "$PODSIM" "$SRC" $n
  expect_rc 0 "the NumPy peer runs ($mode)"
  cp "$OUT/stdout" "$OUT/$mode.json"
  # the peer's shape: compute time, one entry per grid point, each metric
  # with n, mean, sd, p5/p50/p95 and a Spearman per parameter
  run "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["compute_s"] > 0
assert len(d["grid"]) == int(sys.argv[2]), len(d["grid"])
for g in d["grid"]:
    assert g, "no metrics"
    for m in g.values():
        assert m["n"] == int(sys.argv[3]), m["n"]
        for k in ("mean", "sd", "p5", "p50", "p95"):
            assert m[k] == m[k], k
        assert len(m["spearman"]) >= 4, m["spearman"]
print("shape ok")' "$OUT/$mode.json" $grid $n
  expect_rc 0 "the peer's output has the expected shape ($mode)"
  expect_out "shape ok" "shape checked ($mode)"
  run "$py" "$peers/compare.py" "$OUT/$mode/$study" "$OUT/$mode.json"
  expect_rc 0 "podsim and the peer agree ($mode)"
  expect_out "^agree within Monte Carlo error" "agreement reported ($mode)"
  # the comparison can fail: a peer 10% off in every mean is rejected
  "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["grid"]:
    for m in g.values():
        m["mean"] *= 1.1
json.dump(d, open(sys.argv[2], "w"))' "$OUT/$mode.json" "$OUT/$mode.off.json"
  run "$py" "$peers/compare.py" "$OUT/$mode/$study" "$OUT/$mode.off.json"
  expect_rc 1 "a peer off by 10% disagrees ($mode)"
  expect_out "^DISAGREE: .*mean" "the disagreement names the mean ($mode)"
done
finish
