-- coll_scenario.lua: runs scenarios/alltoall_64gpu.lua as shipped into
-- this test's output folder and checks its tidy CSV: every system, op and
-- size present, units consistent, and the NVL72 all-to-all advantage of
-- validation case C6 visible in the file.
local here = podsim.options.scenario:match("^(.*)/[^/]*$") or "."
local path = here .. "/../../scenarios/alltoall_64gpu.lua"
local chunk = assert(loadfile(path))
chunk()

local f = assert(io.open(podsim.out_path("sweep.csv"), "r"))
local header = f:read("l")
assert(header == "system,op,bytes,time_us,algbw_GBps,busbw_GBps", header)
local rows, by = 0, {}
for line in f:lines() do
  local sys, op, bytes, t, alg, bus = line:match("^([^,]+),([^,]+),([^,]+),([^,]+),([^,]+),([^,]+)$")
  assert(sys, line)
  bytes, t, alg, bus = tonumber(bytes), tonumber(t), tonumber(alg), tonumber(bus)
  rows = rows + 1
  -- algbw = S / t in GB/s; busbw = algbw x (n-1)/n or 2(n-1)/n for n = 64
  assert(math.abs(alg - bytes / (t * 1e-6) / 1e9) <= 1e-6 * alg + 1e-9, line)
  local factor = op == "all_reduce" and 2 * 63 / 64 or 63 / 64
  assert(math.abs(bus - alg * factor) <= 1e-6 * bus + 1e-9, line)
  by[sys .. "/" .. op .. "/" .. math.tointeger(bytes)] = t
end
f:close()
assert(rows == 2 * 2 * 23, "rows: " .. rows)   -- 1 KiB .. 4 GiB
local ratio = by["hgx_h100/all_to_all/1073741824"] / by["gb200_nvl72/all_to_all/1073741824"]
assert(ratio > 13.5 and ratio < 22.5, "C6 ratio " .. ratio)
