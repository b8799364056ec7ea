-- expect-exit: 1
-- expect-error: FILE:5: podsim.train: seq: required field is missing
-- podsim.train and podsim.search share their required-field check
-- (lua/l_train.c require_fields): the first missing field is named.
podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 8, global_batch = 8}
