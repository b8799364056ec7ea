-- expect-exit: 1
-- expect-error: FILE:6: podsim.train: parallel.vp: interleaved stages (vp 2) need at least pp (4) micro-batches per pipeline (got 2)
-- Megatron-Core's interleaved 1F1B groups the micro-batches pp at a time
-- per virtual stage: 16 GPUs at pp 4 leave dp 4, and 8 sequences of one
-- each are 2 micro-batches per pipeline.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 16, seq = 4096,
  global_batch = 8, parallel = {pp = 4, vp = 2}}
