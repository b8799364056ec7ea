-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: algo: unknown value 'rings' (did you mean 'ring'? one of auto, ring, tree, nvls, direct, hierarchical, nvls_tree, collnet, collnet_chain)
-- Algorithm names are checked and suggested.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 8, bytes = 1e6, algo = "rings"})
