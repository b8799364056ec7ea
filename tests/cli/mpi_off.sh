# Built without MPI (-DPOD_MPI=OFF, as on a machine without an MPI
# library): the tree builds warning-free, `podsim --version` says MPI is
# not built in, `--mpi` is a usage error that says why, and shards and
# merge still work (they need no MPI).
source "$(dirname "$0")/lib.bash"
set -e
run cmake -S "$SRC" -B "$OUT/build" -DPOD_MPI=OFF -DPOD_WERROR=ON
expect_rc 0 "configure without MPI"
run cmake --build "$OUT/build" -j 2 --target podsim
expect_rc 0 "build podsim without MPI"
P=$OUT/build/podsim
run "$P" --version
expect_rc 0 "--version"; expect_out '^MPI: not built in' "says MPI is not built in"
printf 'local r = podsim.study{name = "s", samples = 3000, params = {x = podsim.dist.uniform{0, 1}},\n  eval = function(p) return {y = p.x * p.x} end}:run()\npodsim.write(r)\n' >"$OUT/s.lua"
run "$P" run "$OUT/s.lua" --mpi --out "$OUT/o"
expect_rc 2 "--mpi without MPI"; expect_err "built without MPI" "says why"
[ ! -e "$OUT/o" ] && ok || bad "a usage error writes nothing"
run "$P" run "$OUT/s.lua" --quiet --out "$OUT/ref"
expect_rc 0 "one process"
for i in 0 1; do
  run "$P" run "$OUT/s.lua" --shard $i/2 --out "$OUT/sh"
  expect_rc 0 "shard $i/2 without MPI"
done
run "$P" merge "$OUT/sh" --quiet --out "$OUT/m"
expect_rc 0 "merge without MPI"
cmp -s "$OUT/ref/s/summary.csv" "$OUT/m/s/summary.csv" && ok || bad "merged summary differs"
finish
