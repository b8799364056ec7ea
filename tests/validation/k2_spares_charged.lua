-- K2 (validation/public.md): GB200 NVL72's cost advantage over the best
-- H100 operator at 16,384 active GPUs is 11%, 27%, 30% with spare GPUs
-- excluded and 0%, 18%, 21% with them charged: 0.89 x 72/64 = 1.00.
-- Inputs: the published excluded advantages (they fix GB200's price per
-- GPU-hour relative to H100's at the T1 throughputs).  podsim computes the
-- spares from the 64-of-72 layout (podsim.reliability: 256 racks, 8 hot
-- spares each) and charges them in podsim.cost.  Prediction: no parameter
-- is fitted to this row.
local rel = podsim.reliability{system = "gb200_nvl72", gpus = 16384, failures = "gb200_nvl72",
  spares = {per_domain = 8, swap_s = 0}, repair_h = 48, checkpoint = {write_s = 20}, restart_s = 300,
  hours = 1000}
assert(rel.spare_gpus == 2048)
local h100 = podsim.cost{train = {tokens_per_s_per_gpu = 4251}, system = "hgx_h100", gpus = 16384}
local scenarios = {{excluded = 0.11, charged = 0.00}, {excluded = 0.27, charged = 0.18},
                   {excluded = 0.30, charged = 0.21}}
for i, s in ipairs(scenarios) do
  local price = (1 - s.excluded) * h100.usd_per_m_tokens * 10757 * 3600 / 1e6
  local gb = podsim.cost{train = {tokens_per_s_per_gpu = 10757}, usd_per_gpu_hour = price,
                         gpus = 16384, spares = rel.spare_gpus}
  local excl = 1 - gb.usd_per_m_tokens / h100.usd_per_m_tokens
  assert(math.abs(excl - s.excluded) < 1e-9)
  podsim.check{id = "K2", name = string.format(
      "GB200 advantage, spares charged (scenario %d, %.0f%% excluded)", i, s.excluded * 100),
    published = s.charged, value = 1 - gb.usd_per_m_tokens_charged / h100.usd_per_m_tokens_charged,
    unit = "fraction", tol_abs = 0.02, fit = false,
    source = "seed 000 (K2); 64-of-72 layout: CoreWeave MLPerf v5.0"}
end
