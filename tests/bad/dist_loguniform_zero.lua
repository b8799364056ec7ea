-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.loguniform: lo: must be finite and > 0 (got 0)
-- loguniform needs 0 < lo.
local d = podsim.dist.loguniform{0, 1}
