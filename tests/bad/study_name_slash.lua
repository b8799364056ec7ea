-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: name: use letters, digits, '_', '-' and '.' only (it names a folder)
-- A study name names a folder, so it cannot climb out of the output folder.
local s = podsim.study{name = "../../escape", params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
