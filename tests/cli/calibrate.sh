#!/usr/bin/env bash
# calibrate.sh: `podsim calibrate` fits a system's collective parameters
# to public nccl-tests output (tests/data/nccl, sources in each file),
# writes a Lua file defining the calibrated system, and that calibration,
# made on one cluster's log, predicts the other clusters' tables: an 8-GPU
# H100 node's NVLS all-reduce; multi-node NVLink (GB300 NVL72, all-reduce
# and all-to-all over 8 and 64 ranks) predicting GB200 NVL72 and B300; the
# network channels of two GB200 racks predicting 2 and 20 racks elsewhere.
. "$(dirname "$0")/lib.bash"
DATA="$SRC/tests/data/nccl"
cd "$DATA"

run "$PODSIM" calibrate h100_dgxc_all_reduce.txt --system hgx_h100 --min-bytes 64KiB --out "$OUT/cal/h100_cal.lua"
expect_rc 0 "calibrate on the DGX H100 log"
expect_out '^file +op +ranks +nodes +size +measured_GBps +podsim_GBps +error$' "per-row table"
expect_out '^h100_dgxc_all_reduce\.txt +all_reduce +8 +1 +1 GiB +466\.33 ' "rows parsed from the log (out-of-place busbw)"
expect_out '^19 rows, 5 parameters' "rows >= 64 KiB, default parameters for one NVLS domain"
expect_out '^nvls_eff ' "fitted parameters listed"
rms=$(sed -n 's/.*rms error \([0-9.]*\)%.*/\1/p' "$OUT/stdout")
awk -v r="$rms" 'BEGIN { exit !(r < 8) }' && ok || bad "fit rms error $rms% < 8%"
[ -s "$OUT/cal/h100_cal.lua" ] && ok || bad "Lua file written"

# the calibrated file loads as a system, and predicts the Azure ND H100 v5
# and ND H200 v5 tables (other clusters, NCCL 2.18/2.20, in-place NVLS)
cat >"$OUT/predict.lua" <<LUA
local MIN = 1 << 24 -- the bandwidth regime; below it the runs differ in algorithm and latency
local sys = load(io.open("$OUT/cal/h100_cal.lua"):read("a"), "=h100_cal.lua")()
assert(sys.name == "hgx_h100_calibrated", sys.name)
local function errors(path, system)
  local worst, ss, n = 0, 0, 0
  for line in io.lines(path) do
    local op, r, b, bw, algo = line:match("^([%w_]+),(%d+),%d+,(%d+),([%d.]+),(%w+)$")
    if op and tonumber(b) >= MIN then
      local c = podsim.collective(system, op, {ranks = tonumber(r), bytes = tonumber(b), algo = algo})
      local e = c.busbw_GBps / tonumber(bw) - 1
      worst, ss, n = math.max(worst, math.abs(e)), ss + e * e, n + 1
    end
  end
  return math.sqrt(ss / n), worst, n
end
for _, f in ipairs{"h100_azure_all_reduce.csv", "h200_azure_all_reduce.csv"} do
  local rms, worst, n = errors("$DATA/" .. f, sys)
  print(string.format("%s calibrated rms=%.4f max=%.4f n=%d", f, rms, worst, n))
  local prms = errors("$DATA/" .. f, "hgx_h100")
  print(string.format("%s preset rms=%.4f better=%s", f, prms, tostring(rms < prms)))
end
LUA
run "$PODSIM" run "$OUT/predict.lua" --unsafe --quiet --out "$OUT/p"
expect_rc 0 "prediction scenario"
for f in h100 h200; do
  line=$(grep "^${f}_azure_all_reduce.csv calibrated" "$OUT/stdout")
  awk -v l="$line" 'BEGIN { split(l, a, /[= ]/); exit !(a[4] < 0.06 && a[6] < 0.10 && a[8] == 10) }' \
    && ok || bad "calibration predicts the $f Azure table (>= 16 MiB) within rms 6%, max 10%: $line"
  expect_out "^${f}_azure_all_reduce.csv preset rms=[0-9.]+ better=true$" "calibrated beats the preset on $f"
done

# multi-node NVLink, two collectives: NVLink5 fitted on the OCI GB300 NVL72
# table (all_reduce and all_to_all over 8 and 64 ranks of one rack, 2 and
# 16 hosts) predicts the OCI GB200 NVL72 rack (another cluster, NCCL 2.27)
# and the 8-GPU B300 node (NCCL 2.28.9) better than NCCL's topology
# constant for NVLink5 (SM100_NVLINK_BW 40.1 of 50 GB/s per link).  The
# predicted rows are those of 8 GiB and more: at 4 GiB the GB200 table's
# out-of-place and in-place figures differ by up to 10% (566 / 625 GB/s).
run "$PODSIM" calibrate oci_gb300_nvl72.csv --system gb300_nvl72 --fit up_eff,nvls_eff \
  --ranks 8,64 --out "$OUT/cal/gb300_cal.lua"
expect_rc 0 "calibrate on the GB300 NVL72 table"
expect_out '^oci_gb300_nvl72\.csv +all_to_all +64 +1 +16 GiB +666\.92 ' "domains column read (64 ranks, 1 domain)"
expect_out '^8 rows, 2 parameters' "--ranks keeps the 8- and 64-rank rows of both collectives"
rms=$(sed -n 's/.*rms error \([0-9.]*\)%.*/\1/p' "$OUT/stdout")
awk -v r="$rms" 'BEGIN { exit !(r < 6) }' && ok || bad "GB300 fit rms error $rms% < 6%"
grep -q 'up_eff = ' "$OUT/cal/gb300_cal.lua" && grep -q 'nvls_eff = ' "$OUT/cal/gb300_cal.lua" \
  && ok || bad "both fitted fields written"
cat >"$OUT/predict_nvl.lua" <<LUA
local cal = load(io.open("$OUT/cal/gb300_cal.lua"):read("a"), "=gb300_cal.lua")()
local function errors(path, system)
  local ss, n, worst = 0, 0, 0
  for line in io.lines(path) do
    local op, r, d, b, bw = line:match("^([%w_]+),(%d+),(%d+),(%d+),([%d.]+),?$")
    if op and tonumber(d) == 1 and tonumber(r) >= 8 and tonumber(b) >= 8 * 2^30 then
      op = op == "alltoall" and "all_to_all" or op
      local c = podsim.collective(system, op, {ranks = tonumber(r), bytes = tonumber(b)})
      local e = c.busbw_GBps / tonumber(bw) - 1
      worst, ss, n = math.max(worst, math.abs(e)), ss + e * e, n + 1
    end
  end
  return math.sqrt(ss / n), worst, n
end
for _, t in ipairs{{"oci_gb200_nvl72.csv", "gb200_nvl72"}, {"oci_b300.csv", "hgx_b300"}} do
  local sys = podsim.system{base = t[2], up_eff = cal.up_eff, nvls_eff = cal.nvls_eff}
  local nccl = podsim.system{base = t[2], up_eff = 40.1 / 50}
  local rms, worst, n = errors("$DATA/" .. t[1], sys)
  local nrms = errors("$DATA/" .. t[1], nccl)
  print(string.format("%s calibrated rms=%.4f max=%.4f n=%d nccl_rms=%.4f better=%s", t[1], rms,
    worst, n, nrms, tostring(rms < nrms)))
end
LUA
run "$PODSIM" run "$OUT/predict_nvl.lua" --unsafe --quiet --out "$OUT/pn"
expect_rc 0 "NVLink5 prediction scenario"
for f in oci_gb200_nvl72 oci_b300; do
  line=$(grep "^${f}.csv calibrated" "$OUT/stdout")
  awk -v l="$line" 'BEGIN { split(l, a, /[= ]/); exit !(a[4] < 0.06 && a[6] < 0.10 && a[8] >= 2 && a[12] == "true") }' \
    && ok || bad "GB300 NVLink5 calibration predicts $f (1 domain, >= 8 ranks, >= 8 GiB) within rms 6%, max 10%, better than NCCL's constant: $line"
done
# the network side: NCCL's per-channel rate across racks fitted on the OCI
# GB200 two-rack rows (all-reduce over NVLS-tree and all-to-all, 128 ranks
# in 2 NVLink domains) predicts CoreWeave's GB200 all-reduce on 2 and 20
# racks (another cluster, NCCL 2.26.2, 72 ranks per domain)
run "$PODSIM" calibrate oci_gb200_nvl72.csv --system gb200_nvl72 --fit net_channel_GBps \
  --ranks 128 --out "$OUT/cal/gb200_net.lua"
expect_rc 0 "calibrate the network channels on two racks"
expect_out '^4 rows, 1 parameters' "the 128-rank rows of both collectives"
cat >"$OUT/predict_net.lua" <<LUA
local cal = load(io.open("$OUT/cal/gb200_net.lua"):read("a"), "=gb200_net.lua")()
local ss, n, worst = 0, 0, 0
for line in io.lines("$DATA/coreweave_gb200_nvl72_all_reduce.csv") do
  local op, r, d, b, bw = line:match("^([%w_]+),(%d+),(%d+),(%d+),([%d.]+),?$")
  if op and tonumber(d) > 1 then
    local c = podsim.collective(cal, op, {ranks = tonumber(r),
      ranks_per_domain = tonumber(r) // tonumber(d), bytes = tonumber(b)})
    local e = c.busbw_GBps / tonumber(bw) - 1
    worst, ss, n = math.max(worst, math.abs(e)), ss + e * e, n + 1
  end
end
print(string.format("coreweave calibrated rms=%.4f max=%.4f n=%d", math.sqrt(ss / n), worst, n))
LUA
run "$PODSIM" run "$OUT/predict_net.lua" --unsafe --quiet --out "$OUT/pw"
expect_rc 0 "network prediction scenario"
line=$(grep "^coreweave calibrated" "$OUT/stdout")
awk -v l="$line" 'BEGIN { split(l, a, /[= ]/); exit !(a[4] < 0.08 && a[6] < 0.12 && a[8] == 12) }' \
  && ok || bad "OCI two-rack calibration predicts CoreWeave's 2- and 20-rack all-reduce within rms 8%, max 12%: $line"

run "$PODSIM" calibrate oci_gb300_nvl72.csv --system gb300_nvl72 --ranks 3
expect_rc 1 "--ranks that match no row"; expect_err 'no rows left' "explained"
run "$PODSIM" calibrate oci_gb300_nvl72.csv --system gb300_nvl72 --ranks 8,x
expect_rc 1 "--ranks not a count"; expect_err "'x' is not a rank count" "named"

# --check: the same prediction from the tool itself, on held-out files
run "$PODSIM" calibrate h100_dgxc_all_reduce.txt --system hgx_h100 --min-bytes 16MiB \
  --check h100_azure_all_reduce.csv,h200_azure_all_reduce.csv --out "$OUT/cal/h100_check.lua"
expect_rc 0 "calibrate with --check"
expect_out '^prediction \(rows not fitted\):$' "held-out table"
expect_out '^h200_azure_all_reduce\.csv +all_reduce +8 +1 +8 GiB +479\.98 ' "held-out rows listed"
rms=$(sed -n 's/^20 rows predicted: rms error \([0-9.]*\)%.*/\1/p' "$OUT/stdout")
awk -v r="$rms" 'BEGIN { exit !(r != "" && r < 6) }' && ok || bad "held-out rms '$rms'% < 6% over 20 rows"
run "$PODSIM" calibrate h100_dgxc_all_reduce.txt --system hgx_h100 --check missing.csv --out "$OUT/cal/m.lua"
expect_rc 1 "--check of a missing file"; expect_err 'missing.csv' "named"

# the CSV form calibrates too, and other options
run "$PODSIM" calibrate h100_azure_all_reduce.csv --system hgx_h100 --fit nvls_eff,nvls_latency_us --min-bytes 1MiB --out "$OUT/cal/az.lua"
expect_rc 0 "calibrate on the CSV table"
expect_out '^14 rows, 2 parameters' "chosen parameters"
grep -q 'nvls_eff = ' "$OUT/cal/az.lua" && ok || bad "fitted field written"

run "$PODSIM" calibrate h100_dgxc_all_reduce.txt --system hgx_h100 --fit up_speed
expect_rc 1 "unknown parameter"; expect_err "'up_speed' is not a fittable field" "named"
run "$PODSIM" calibrate h100_dgxc_all_reduce.txt
expect_rc 1 "no system"; expect_err -- '--system .* is required' "explained"
run "$PODSIM" calibrate
expect_rc 2 "no files"
run "$PODSIM" calibrate h100_dgxc_all_reduce.txt --system hgx_h100 --sistem x
expect_rc 2 "unknown option"
printf '# nothing here\n' >"$OUT/empty_all_reduce.txt"
cd "$OUT"
run "$PODSIM" calibrate empty_all_reduce.txt --system hgx_h100
expect_rc 1 "file without rows"; expect_err 'no nccl-tests rows found' "explained"
finish
