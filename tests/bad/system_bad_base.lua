-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: base: unknown system preset 'hgx_h1000' (did you mean 'hgx_h100'?)
-- An unknown preset name as base suggests the nearest preset.
local s = podsim.system{base = "hgx_h1000"}
