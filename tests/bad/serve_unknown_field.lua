-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: input_tokes: unknown field
-- A misspelt field is an error with a suggestion.
local r = podsim.serve{system = "hgx_h100", model = "llama3_8b", gpus = 1, input_tokes = 100}
