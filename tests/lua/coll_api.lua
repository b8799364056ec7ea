-- coll_api.lua: podsim.collective through the Lua API: nccl-tests
-- conventions, placement, algorithm choice, overrides of fabric fields,
-- and located errors naming the field.
local function expect_error(pattern, fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "expected an error matching " .. pattern)
  assert(tostring(err):find(pattern), "error '" .. tostring(err) .. "' does not match " .. pattern)
  assert(tostring(err):find("coll_api.lua:%d+:"), "error not located: " .. tostring(err))
end

local h100, nvl, a100 = podsim.systems.hgx_h100, podsim.systems.gb200_nvl72, podsim.systems.dgx_a100
local GiB = 2 ^ 30

-- nccl-tests conventions: algbw = S/t (GB = 1e9), busbw factors.
local r = podsim.collective(h100, "all_reduce", {ranks = 8, bytes = GiB, algo = "ring"})
assert(math.abs(r.algbw_GBps - GiB / r.time_s / 1e9) < 1e-9 * r.algbw_GBps)
assert(math.abs(r.busbw_GBps - r.algbw_GBps * 2 * 7 / 8) < 1e-9 * r.busbw_GBps)
assert(r.algo == "ring")
local ag = podsim.collective(h100, "all_gather", {ranks = 8, bytes = GiB})
assert(math.abs(ag.busbw_GBps - ag.algbw_GBps * 7 / 8) < 1e-9 * ag.busbw_GBps)

-- auto reports the algorithm it picked and is never slower than any other
-- of NCCL's set; podsim's hierarchical runs only when named.
local auto = podsim.collective(h100, "all_reduce", {ranks = 64, bytes = GiB})
for _, algo in ipairs({"ring", "tree", "nvls_tree"}) do
  local x = podsim.collective(h100, "all_reduce", {ranks = 64, bytes = GiB, algo = algo})
  assert(auto.time_s <= x.time_s, algo)
end
assert(auto.algo ~= "auto" and auto.algo ~= "hierarchical" and auto.algo ~= "nvls")
assert(podsim.collective(h100, "all_reduce", {ranks = 64, bytes = GiB, algo = "hierarchical"}).algo
  == "hierarchical")
-- NVLS inside one domain, NVLS-tree across; CollNet only with SHARP.
assert(podsim.collective(h100, "all_reduce", {ranks = 8, bytes = GiB}).algo == "nvls")
expect_error("algo: nvls cannot run all_reduce on hgx_h100 with 64 ranks", podsim.collective,
  h100, "all_reduce", {ranks = 64, bytes = GiB, algo = "nvls"})
expect_error("algo: collnet cannot run all_reduce on hgx_h100", podsim.collective,
  h100, "all_reduce", {ranks = 64, bytes = GiB, algo = "collnet"})
local sharp = podsim.system{base = "hgx_h100", fabric = "ib_ndr_sharp"}
assert(sharp.sharp == true)
local cn = podsim.collective(sharp, "all_reduce", {ranks = 512, bytes = 16 * GiB, algo = "collnet"})
local nt = podsim.collective(sharp, "all_reduce", {ranks = 512, bytes = 16 * GiB, algo = "nvls_tree"})
assert(cn.time_s < nt.time_s)

-- Placement: 64 ranks packed on NVL72 are one domain; spread 8 per domain
-- they cross the NICs and slow down.
local one = podsim.collective(nvl, "all_to_all", {ranks = 64, bytes = GiB})
local spread = podsim.collective(nvl, "all_to_all", {ranks = 64, ranks_per_domain = 8, bytes = GiB})
assert(spread.time_s > 5 * one.time_s)

-- Time grows with bytes.
local prev = 0
for e = 0, 34 do
  local x = podsim.collective(h100, "all_to_all", {ranks = 64, bytes = 2 ^ e})
  assert(x.time_s >= prev)
  prev = x.time_s
end

-- Fabric parameters are plain fields: adaptive routing (no collisions)
-- speeds up a many-node all-to-all, faster NICs too.
local ar = podsim.system{base = "hgx_h100", routing = "adaptive"}
local a2a = podsim.collective(h100, "all_to_all", {ranks = 64, bytes = GiB})
assert(podsim.collective(ar, "all_to_all", {ranks = 64, bytes = GiB}).time_s < 0.8 * a2a.time_s)
local fast = podsim.system{base = "hgx_h100", nic_gbps = 800}
assert(podsim.collective(fast, "all_to_all", {ranks = 64, bytes = GiB}).time_s < 0.6 * a2a.time_s)

-- Errors name the field.
expect_error("algo: nvls cannot run all_reduce on dgx_a100", podsim.collective, a100,
  "all_reduce", {ranks = 8, bytes = GiB, algo = "nvls"})
expect_error("ranks_per_domain: 8 per domain does not divide 12", podsim.collective, h100,
  "all_reduce", {ranks = 12, bytes = 1})
expect_error("ranks_per_domain: 16 exceeds the domain's 8 GPUs", podsim.collective, h100,
  "all_reduce", {ranks = 32, ranks_per_domain = 16, bytes = 1})
expect_error("ranks: send_recv needs 2 ranks", podsim.collective, h100, "send_recv",
  {ranks = 4, bytes = 1})
expect_error("bytes:", podsim.collective, h100, "all_reduce", {ranks = 8, bytes = -1})
expect_error("algo: hierarchical cannot run", podsim.collective, h100, "all_reduce",
  {ranks = 8, bytes = 1, algo = "hierarchical"})
expect_error("algo: direct cannot run all_reduce", podsim.collective, h100, "all_reduce",
  {ranks = 8, bytes = 1, algo = "direct"})
expect_error("op: unknown collective 'alltoall'", podsim.collective, h100, "alltoall",
  {ranks = 8, bytes = 1})
expect_error("out_collision: unknown field", podsim.system, {base = "hgx_h100", out_collision = 0})
expect_error("routing: unknown value 'ecmp'", podsim.system, {base = "hgx_h100", routing = "ecmp"})
expect_error("net_channels:", podsim.system, {base = "hgx_h100", net_channels = 0})
expect_error("leaf_gpus:", podsim.system, {base = "hgx_h100", leaf_gpus = 0})
expect_error("up_eff:", podsim.system, {base = "hgx_h100", up_eff = 0})

-- Presets carry their public source.
for _, name in ipairs({"dgx_a100", "hgx_h100", "hgx_h800", "hgx_h200", "hgx_b200", "hgx_b300",
                       "gb200_nvl72", "gb300_nvl72"}) do
  assert(podsim.systems[name], name)
  assert(podsim.systems[name].usd_per_gpu_hour > 0, name)
end
