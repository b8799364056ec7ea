-- Lua API tests: GPUs, systems, collectives and their errors.
local T = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*)/") .. "/util/expect.lua")

-- presets exist for every system of DESIGN.md 4.1 and read as specs
for _, name in ipairs{"dgx_a100", "hgx_h100", "hgx_h800", "hgx_h200", "hgx_b200", "hgx_b300", "gb200_nvl72", "gb300_nvl72"} do
  local s = podsim.systems[name]
  T.truthy(s, name)
  T.eq(s.name, name, "name")
  T.truthy(s.up_GBps > 0 and s.domain_gpus >= 8, name .. " fields")
  T.truthy(podsim.sources.systems[name] ~= "", name .. " has a source")
end
for _, name in ipairs{"a100", "h100", "h800", "h200", "b200", "gb200", "gb300", "b300"} do
  T.truthy(podsim.gpus[name].bf16_tflops > 0, name)
end
T.eq(podsim.systems.gb200_nvl72.domain_gpus, 72, "NVL72 domain")
T.eq(podsim.systems.hgx_h100.gpu.bf16_tflops, 989, "H100 bf16 peak")

-- derived systems keep the base and override fields; specs are immutable
local s = podsim.system{base = "hgx_h100", up_GBps = 500, gpu = {base = "h100", hbm_gb = 96}}
T.eq(s.up_GBps, 500, "override")
T.eq(s.gpu.hbm_gb, 96, "nested override")
T.eq(s.domain_gpus, 8, "kept from base")
T.truthy(s ~= podsim.systems.hgx_h100, "differs from base")
T.truthy(podsim.system{base = "hgx_h100"} == podsim.systems.hgx_h100, "equal values compare equal")
local n = 0
for k in pairs(s) do n = n + 1 end
T.truthy(n >= 15, "pairs lists the fields")
T.error("read%-only", function() s.up_GBps = 1 end)
T.error("podsim.system: base: unknown system preset 'hgx_h10' %(did you mean 'hgx_h100'%?%)",
  podsim.system, {base = "hgx_h10"})
T.error("podsim.system: up_gbps: unknown field %(did you mean 'up_GBps'%?%)",
  podsim.system, {base = "hgx_h100", up_gbps = 1})
T.error("podsim.system: up_GBps: must be in %(0, 100000%] %(got %-1%)", podsim.system, {base = "hgx_h100", up_GBps = -1})
T.error("podsim.system: up_GBps: must be a finite number %(got nan%)", podsim.system, {base = "hgx_h100", up_GBps = 0 / 0})
T.error("podsim.system: up_GBps: must be a finite number %(got inf%)", podsim.system, {base = "hgx_h100", up_GBps = math.huge})
T.error("podsim.system: domain_gpus: must be an integer", podsim.system, {base = "hgx_h100", domain_gpus = 7.5})
T.error("podsim.system: nvls: expected a boolean", podsim.system, {base = "hgx_h100", nvls = 1})
T.error("podsim.system: name: string too long", podsim.system, {base = "hgx_h100", name = ("x"):rep(100)})
T.error("podsim.system: gpu.hbm_gb: must be", podsim.system, {base = "hgx_h100", gpu = {base = "h100", hbm_gb = 0}})
T.error("podsim.system: gpu: unknown gpu preset 'h1000'", podsim.system, {base = "hgx_h100", gpu = "h1000"})
T.error("podsim.system: expected a table of fields", podsim.system, "hgx_h100")
T.error("podsim.system: fields are named", podsim.system, {base = "hgx_h100", 5})
T.error("podsim.system: oversub: must be in %[1,", podsim.system, {base = "hgx_h100", oversub = 0.5})
-- from scratch: the core check names the first missing field
T.error("podsim.system: ", podsim.system, {name = "bare"})

-- collectives: nccl-tests conventions
local nvl, hgx = podsim.systems.gb200_nvl72, podsim.systems.hgx_h100
local r = podsim.collective(hgx, "all_reduce", {ranks = 8, bytes = 1 << 30, algo = "ring"})
T.eq(r.algo, "ring", "algo reported")
T.near(r.algbw_GBps, (1 << 30) / r.time_s / 1e9, 1e-12, "algbw = S / t")
T.near(r.busbw_GBps, r.algbw_GBps * 2 * 7 / 8, 1e-12, "all_reduce busbw factor")
local a2a = podsim.collective(hgx, "all_to_all", {ranks = 64, bytes = 1 << 30})
T.near(a2a.busbw_GBps, a2a.algbw_GBps * 63 / 64, 1e-12, "all_to_all busbw factor")
local auto = podsim.collective(hgx, "all_reduce", {ranks = 8, bytes = 1 << 30})
T.truthy(auto.time_s <= r.time_s, "auto is never slower than ring")
-- presets by name work too
T.eq(podsim.collective("hgx_h100", "send_recv", {ranks = 2, bytes = 1e6}).busbw_GBps,
  podsim.collective(hgx, "send_recv", {ranks = 2, bytes = 1e6}).busbw_GBps, "system by name")
-- time grows with bytes
local prev = 0
for e = 10, 32 do
  local t = podsim.collective(nvl, "all_to_all", {ranks = 64, bytes = 2 ^ e}).time_s
  T.truthy(t >= prev, "time non-decreasing in bytes")
  prev = t
end
T.error("podsim.collective: op: unknown collective 'all_to_al' %(did you mean 'all_to_all'%?%)",
  podsim.collective, nvl, "all_to_al", {ranks = 64, bytes = 1})
T.error("podsim.collective: op: expected one of", podsim.collective, nvl, 3, {ranks = 64, bytes = 1})
T.error("podsim.collective: ranks: required field is missing", podsim.collective, nvl, "all_reduce", {bytes = 1})
T.error("podsim.collective: bytes: must be a finite number", podsim.collective, nvl, "all_reduce", {ranks = 8, bytes = 0 / 0})
T.error("podsim.collective: bytes: must be in %[0,", podsim.collective, nvl, "all_reduce", {ranks = 8, bytes = -1})
T.error("podsim.collective: byte: unknown field %(did you mean 'bytes'%?%)", podsim.collective, nvl, "all_reduce", {ranks = 8, byte = 1})
T.error("podsim.collective: algo: unknown value 'rng' %(did you mean 'ring'", podsim.collective, nvl, "all_reduce", {ranks = 8, bytes = 1, algo = "rng"})
T.error("podsim.collective: ranks_per_domain: ", podsim.collective, hgx, "all_reduce", {ranks = 12, bytes = 1, ranks_per_domain = 8})
T.error("podsim.collective: opts: expected a table", podsim.collective, nvl, "all_reduce", 5)
T.error("podsim.collective: system: required argument is missing", podsim.collective, nil, "all_reduce", {ranks = 8, bytes = 1})
T.error("podsim.collective: ", podsim.collective, podsim.systems.dgx_a100, "all_reduce", {ranks = 8, bytes = 1, algo = "nvls"})
T.done("hw_coll_api")

-- fabric presets: podsim.fabrics lists them with their sources;
-- podsim.system{base=, fabric=} takes the scale-out fields of the fabric,
-- then the table's own fields
for _, name in ipairs{"ib_ndr", "ib_ndr_sharp", "ib_xdr", "ib_xdr_sharp", "spectrum_x", "efa"} do
  local f = podsim.fabrics[name]
  T.truthy(f and #f.source > 20, name)
  local s = podsim.system{base = "hgx_h100", fabric = name}
  T.eq(s.nic_gbps, f.nic_gbps, name .. " nic_gbps")
  T.eq(s.routing, f.routing, name .. " routing")
  T.eq(s.transport, f.transport, name .. " transport")
  T.eq(s.sharp, f.sharp, name .. " sharp")
  T.eq(s.up_GBps, 450, name .. " keeps the scale-up side")
end
T.eq(podsim.systems.hgx_h100.routing, "static_ecmp", "IB default routing")
T.eq(podsim.systems.hgx_h100.sharp, false, "SHARP off by default")
T.eq(podsim.systems.gb200_nvl72.net_channels, 16, "NVL72 network channels")
local sx = podsim.system{base = "gb200_nvl72", fabric = "spectrum_x", nic_gbps = 800}
T.eq(sx.nic_gbps, 800, "fields after the fabric win")
T.eq(sx.transport, "roce", "spectrum_x is RoCE")
T.error("podsim.system: fabric: unknown fabric 'ib_ndr_sharpp' %(did you mean 'ib_ndr_sharp'%?%)",
  podsim.system, {base = "hgx_h100", fabric = "ib_ndr_sharpp"})
T.error("podsim.system: fabric: needs base=", podsim.system, {fabric = "ib_ndr"})
T.error("podsim.system: fabric: expected a fabric name", podsim.system, {base = "hgx_h100", fabric = 3})
T.error("podsim.system: routing: unknown value", podsim.system, {base = "hgx_h100", routing = "ecmp"})
T.error("podsim.system: transport: unknown value", podsim.system, {base = "hgx_h100", transport = "tcp"})
T.error("podsim.system: net_channel_GBps: must be in", podsim.system, {base = "hgx_h100", net_channel_GBps = 0})
T.error("podsim.system: up_channels: must be", podsim.system, {base = "hgx_h100", up_channels = 0})
T.error("podsim.system: sharp: expected a boolean", podsim.system, {base = "hgx_h100", sharp = 1})
T.error("podsim.system: oversub: must be in", podsim.system, {base = "hgx_h100", fabric = "efa", oversub = 0.5})
