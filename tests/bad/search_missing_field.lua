-- expect-exit: 1
-- expect-error: FILE:5: podsim.search: global_batch: required field is missing
-- podsim.search and podsim.train share their required-field check
-- (lua/l_train.c require_fields): the first missing field is named.
podsim.search{system = "hgx_h100", model = "llama3_70b", gpus = 8, seq = 8192}
