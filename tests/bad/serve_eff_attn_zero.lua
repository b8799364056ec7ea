-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: eff_attn: must be in (0, 1] (got 0)
-- The bound is core's (pod_serve_cfg_fields), checked as the field is read.
local r = podsim.serve{system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8},
  input_tokens = 1000, output_tokens = 1000, eff_attn = 0}
