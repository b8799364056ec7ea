-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: checkpoint.interval: unknown value 'fixed' (one of young, daly)
-- interval= names an optimal rule: the rule names after "fixed" (pod_rel_interval_rule_names).
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 60, interval = "fixed"}}
