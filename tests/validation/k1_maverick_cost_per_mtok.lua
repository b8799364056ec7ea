-- K1 (validation/public.md): Llama 4 Maverick training cost per million
-- tokens, GB200 NVL72 0.061 vs H100 0.093 USD (ratio 0.66), computed by
-- podsim.cost from the published T1 throughputs (10,757 and 4,251
-- tokens/s/GPU) and the systems' GPU-hour prices.
-- Fit: the preset prices (2.36 and 1.42 USD per GPU-hour, core/hw.c) were
-- derived from this very row, so it checks the cost formula, not a
-- prediction.
local gb = podsim.cost{train = {tokens_per_s_per_gpu = 10757, gpus = 128}, system = "gb200_nvl72"}
local h = podsim.cost{train = {tokens_per_s_per_gpu = 4251, gpus = 512}, system = "hgx_h100"}
podsim.check{id = "K1", name = string.format(
    "Maverick USD/Mtok GB200/H100 (%.3f / %.3f)", gb.usd_per_m_tokens, h.usd_per_m_tokens),
  published = 0.061 / 0.093, value = gb.usd_per_m_tokens / h.usd_per_m_tokens, unit = "ratio",
  tol_rel = 0.05, fit = true,
  source = "seed 000 (K1); T1 NVIDIA/dgxc-benchmarking llama4/README.md"}
