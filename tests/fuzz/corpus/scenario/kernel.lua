local s = podsim.study{samples = 64, sensitivity = "sobol",
  params = {["system.up_eff"] = podsim.dist.uniform{0.7, 0.9}, bytes = podsim.dist.loguniform{1 << 20, 1 << 30}},
  grid = {ranks = {16, 64}},
  eval = podsim.kernel.collective{system = "gb200_nvl72", op = "all_to_all", ranks = 8, bytes = 1}}
local r = s:run()
podsim.write(r)
