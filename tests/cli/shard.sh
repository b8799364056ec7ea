# CLI tests of sharded runs (podsim run --shard I/N, podsim merge): the
# merged outputs and stdout are byte-identical to one process for any
# shard count and thread mix; merge refuses missing, duplicate, corrupt or
# mismatched shard files with a message naming the file.
source "$(dirname "$0")/lib.bash"
set -e
cp "$SRC/tests/cli/scale_case.lua" "$OUT/case.lua"


run "$PODSIM" run "$OUT/case.lua" --threads 2 --max-samples-mb 1 --out "$OUT/ref"
expect_rc 0 "single run"
cp "$OUT/stdout" "$OUT/ref.stdout"

for n in 1 3; do
  for ((i = 0; i < n; i++)); do
    run "$PODSIM" run "$OUT/case.lua" --threads $((1 + i % 2)) --max-samples-mb 1 --shard $i/$n --out "$OUT/sh$n"
    expect_rc 0 "shard $i/$n"
    expect_err "wrote .*shard-$i-of-$n.pods" "names the shard file"
    [ ! -s "$OUT/stdout" ] && ok || bad "a shard prints nothing on stdout"
  done
  run "$PODSIM" merge "$OUT/sh$n" --out "$OUT/m$n"
  expect_rc 0 "merge of $n shards"
  cmp -s "$OUT/ref.stdout" "$OUT/stdout" && ok || bad "merge of $n: stdout differs from one process"
  same_outputs "$OUT/ref" "$OUT/m$n" "merge of $n"
done
# shard files in several folders, named one by one or by folder
mkdir -p "$OUT/a" "$OUT/b"
cp "$OUT/sh3/shard-0-of-3.pods" "$OUT/a/"
cp "$OUT/sh3/shard-1-of-3.pods" "$OUT/sh3/shard-2-of-3.pods" "$OUT/b/"
run "$PODSIM" merge "$OUT/a" "$OUT/b/shard-1-of-3.pods" "$OUT/b/shard-2-of-3.pods" --out "$OUT/m3b" --threads 1
expect_rc 0 "merge from two folders"
same_outputs "$OUT/ref" "$OUT/m3b" "merge from two folders"

# refused: missing, twice, corrupt, other scenario, other options, other version
run "$PODSIM" merge "$OUT/b" --out "$OUT/x"
expect_rc 1 "missing shard"; expect_err "shard 0 of 3 is missing" "names the missing shard"
run "$PODSIM" merge "$OUT/sh3" "$OUT/a" --out "$OUT/x"
expect_rc 1 "shard twice"; expect_err "shard 0 of 3 given twice" "names the duplicate"
[ ! -e "$OUT/x" ] && ok || bad "a refused merge writes nothing"
mkdir -p "$OUT/bad"
cp "$OUT/sh3/"*.pods "$OUT/bad/"
size=$(stat -c %s "$OUT/bad/shard-1-of-3.pods")
printf '\x55' | dd of="$OUT/bad/shard-1-of-3.pods" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
run "$PODSIM" merge "$OUT/bad" --out "$OUT/x"
expect_rc 1 "corrupt shard"; expect_err "shard-1-of-3.pods.*(checksum|corrupt)" "names the corrupt file"
cp "$OUT/sh3/shard-1-of-3.pods" "$OUT/bad/"
head -c $(($(stat -c %s "$OUT/sh3/shard-2-of-3.pods") - 7)) "$OUT/sh3/shard-2-of-3.pods" >"$OUT/bad/shard-2-of-3.pods"
run "$PODSIM" merge "$OUT/bad" --out "$OUT/x"
expect_rc 1 "truncated shard"; expect_err "shard-2-of-3.pods: (truncated|corrupt)" "names the truncated file"
cp "$OUT/sh3/shard-2-of-3.pods" "$OUT/bad/"
# another scenario: the same file edited after shard 0 ran
cp "$OUT/case.lua" "$OUT/case2.lua"
run "$PODSIM" run "$OUT/case2.lua" --max-samples-mb 1 --shard 0/2 --out "$OUT/ed"
echo "-- edited" >>"$OUT/case2.lua"
run "$PODSIM" run "$OUT/case2.lua" --max-samples-mb 1 --shard 1/2 --out "$OUT/ed"
run "$PODSIM" merge "$OUT/ed" --out "$OUT/x"
expect_rc 1 "other scenario"; expect_err "from another scenario" "says the scenario differs"
# the scenario edited after every shard ran
run "$PODSIM" run "$OUT/case2.lua" --max-samples-mb 1 --shard 0/1 --out "$OUT/ed1"
echo "-- edited again" >>"$OUT/case2.lua"
run "$PODSIM" merge "$OUT/ed1" --out "$OUT/x"
expect_rc 1 "scenario changed"; expect_err "changed since the shards ran" "says the scenario changed"
# other options (seed)
run "$PODSIM" run "$OUT/case.lua" --max-samples-mb 1 --seed 9 --shard 1/3 --out "$OUT/seed"
cp "$OUT/sh3/shard-0-of-3.pods" "$OUT/sh3/shard-2-of-3.pods" "$OUT/seed/"
run "$PODSIM" merge "$OUT/seed" --out "$OUT/x"
expect_rc 1 "other seed"; expect_err "other options \(--seed" "says the options differ"
# other podsim version (the header's version string, its CRC fixed up)
cp "$OUT/sh3/"*.pods "$OUT/bad/"
python3 - "$OUT/bad/shard-0-of-3.pods" <<'PY'
import sys, zlib, struct
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
hn = struct.unpack_from("<I", b, 12)[0]
vl = struct.unpack_from("<I", b, 16)[0]
b[20:20 + vl] = b"9" * vl
struct.pack_into("<I", b, 16 + hn, zlib.crc32(bytes(b[16:16 + hn])) & 0xffffffff)
open(p, "wb").write(b)
PY
run "$PODSIM" merge "$OUT/bad" --out "$OUT/x"
expect_rc 1 "other version"; expect_err "shard-0-of-3.pods: written by podsim 9+" "says the version differs"
[ ! -e "$OUT/x" ] && ok || bad "refused merges wrote nothing"

# a study whose settings depend on an earlier study's results: the shards
# (which see no results) and the merge build different plans: refused
scenario dep.lua <<'LUA'
local a = podsim.study{name = "a", samples = 2000, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = p.x} end}:run()
local b = podsim.study{name = "b", samples = a.complete and 3000 or 1000,
  params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return {y = p.x} end}:run()
podsim.write(b)
LUA
run "$PODSIM" run "$OUT/dep.lua" --shard 0/1 --out "$OUT/dep"
expect_rc 0 "shard of dep.lua"
run "$PODSIM" merge "$OUT/dep" --out "$OUT/x"
expect_rc 1 "study differs"; expect_err "study #2 'b' was sharded with other settings" "names the study"

# usage
run "$PODSIM" run "$OUT/case.lua" --shard 3/3 --out "$OUT/u"
expect_rc 2 "shard index out of range"; expect_err "--shard needs I/N" "explains --shard"
run "$PODSIM" run "$OUT/case.lua" --shard 0/2
expect_rc 2 "shard without --out"; expect_err "needs --out" "asks for --out"
run "$PODSIM" validate --shard 0/2
expect_rc 2 "validate --shard"; expect_err "options of run" "says --shard belongs to run"
run "$PODSIM" merge
expect_rc 2 "merge without folders"
run "$PODSIM" merge "$OUT/nothing-here" --out "$OUT/x"
expect_rc 1 "merge of a missing folder"; expect_err "cannot read" "says so"
finish
