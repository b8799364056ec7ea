# A fresh build tree configures and builds warning-free (-Werror) from the
# sources alone, and the executable runs when copied elsewhere (its Lua
# library, plot templates and validation cases are embedded).
source "$(dirname "$0")/lib.bash"
set -e
run cmake -S "$SRC" -B "$OUT/build" -DPOD_WERROR=ON
expect_rc 0 "configure a fresh tree"
run cmake --build "$OUT/build" -j 2 --target podsim
expect_rc 0 "build podsim in a fresh tree"
mkdir -p "$OUT/elsewhere"
cp "$OUT/build/podsim" "$OUT/elsewhere/podsim"
cd "$OUT/elsewhere"
run ./podsim validate C6
expect_rc 0 "copied binary runs an embedded validation case"
expect_out 'C6' "case printed"
run ./podsim validate T6
expect_rc 0 "known misses are not failures"
expect_out '^T7 .*magnitude.*known miss *$' "the T7 magnitude row shows as a known miss"
expect_out '1 known misses, 0 failed' "summary counts them apart"
expect_out '^  T7 .*: weak-scaled' "and gives the reason"
run ./podsim validate Q9
expect_rc 1 "a filter matching no case is an error"
expect_err "no validation case file starts with 'Q9'" "says so"
run ./podsim presets systems
expect_rc 0 "presets from the copied binary"; expect_out 'gb200_nvl72' "lists systems"
printf 'local r = podsim.collective("hgx_h100", "all_reduce", {ranks = 8, bytes = 1 << 30})\nassert(r.busbw_GBps > 100)\nprint("ok")\n' >s.lua
run ./podsim run s.lua --quiet
expect_rc 0 "copied binary runs a scenario"; expect_out '^ok$' "scenario output"
finish
