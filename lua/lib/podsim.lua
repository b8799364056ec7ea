-- podsim.lua: the podsim Lua library (embedded in the executable).
local M = {}
return M
