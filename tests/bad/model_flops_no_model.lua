-- expect-exit: 1
-- expect-error: FILE:4: podsim.model_flops: model: required argument is missing
-- model_flops needs a model.
local f = podsim.model_flops(nil, 4096)
