-- alltoall_64gpu.lua: the flagship collective comparison.  A 64-GPU
-- all-to-all (MoE expert dispatch/combine) and all-reduce (data-parallel
-- gradients) inside one GB200 NVL72 NVLink domain against 8 HGX H100
-- nodes on InfiniBand, buffer sizes 1 KiB to 4 GiB by powers of two.
--
-- Prints an nccl-tests-style table per system and op (size, time, algbw,
-- busbw, algorithm), the NVL72-over-H100 speed ratio per size, writes the
-- tidy <out>/sweep.csv and renders plots/sweep.gp to
-- <out>/plots/sweep.svg when gnuplot is installed.
--
-- Options (--set key=value): ranks (default 64), min_bytes (1024),
-- max_bytes (4 GiB).  Public anchor: validation case C6 (about 18x for
-- the all-to-all at 1 GiB).
local ranks = podsim.args.ranks or 64
local min_bytes = podsim.args.min_bytes or 1024
local max_bytes = podsim.args.max_bytes or 4 * 2 ^ 30

local systems = {
  {name = "gb200_nvl72", spec = podsim.systems.gb200_nvl72},
  {name = "hgx_h100", spec = podsim.systems.hgx_h100},
}
local ops = {"all_to_all", "all_reduce"}

local sizes = {}
local s = min_bytes
while s <= max_bytes do
  sizes[#sizes + 1] = s
  s = s * 2
end

local rows = {}     -- tidy CSV rows
local times = {}    -- times[op][system][i]
for _, op in ipairs(ops) do
  times[op] = {}
  for _, sys in ipairs(systems) do
    local t = {}
    times[op][sys.name] = t
    local table_rows = {}
    local algo_used
    for i, bytes in ipairs(sizes) do
      local r = podsim.collective(sys.spec, op, {ranks = ranks, bytes = bytes})
      t[i] = r.time_s
      rows[#rows + 1] = {system = sys.name, op = op, bytes = bytes,
        time_us = r.time_s * 1e6, algbw_GBps = r.algbw_GBps, busbw_GBps = r.busbw_GBps}
      table_rows[#table_rows + 1] = {math.tointeger(bytes) or bytes, r.time_s * 1e6,
        r.algbw_GBps, r.busbw_GBps, r.algo}
      algo_used = r.algo
    end
    local dom = sys.spec.domain_gpus
    local per = math.min(ranks, dom)
    print(string.format("\n# %s on %s: %d ranks, %d per NVLink domain (%d domain%s)",
      op, sys.name, ranks, per, ranks // per, ranks // per == 1 and "" or "s"))
    podsim.print_table({"size (B)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algo"},
      table_rows)
    local _ = algo_used
  end
end

print(string.format("\n# NVL72 speed-up over HGX H100 (time on H100 / time on NVL72), %d GPUs", ranks))
local ratio_rows = {}
for i, bytes in ipairs(sizes) do
  local row = {podsim.fmt_bytes(bytes)}
  for _, op in ipairs(ops) do
    row[#row + 1] = times[op].hgx_h100[i] / times[op].gb200_nvl72[i]
  end
  ratio_rows[#ratio_rows + 1] = row
end
local header = {"size"}
for _, op in ipairs(ops) do header[#header + 1] = op end
podsim.print_table(header, ratio_rows)

local csv = podsim.write_csv("sweep.csv",
  {"system", "op", "bytes", "time_us", "algbw_GBps", "busbw_GBps"}, rows)
print("\nwrote " .. csv)

local names = {}
for _, sys in ipairs(systems) do names[#names + 1] = sys.name end
local svg, why = podsim.gnuplot("sweep", {datafile = csv,
  systems = table.concat(names, " "), ops = table.concat(ops, " "),
  plot_title = string.format("%d-GPU collectives: busbw by buffer size", ranks)})
if svg then print("wrote " .. svg) else print("plot skipped: " .. tostring(why)) end
