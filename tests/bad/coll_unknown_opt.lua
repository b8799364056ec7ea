-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: ranks_per_domian: unknown field (did you mean 'ranks_per_domain'?)
-- Unknown option names are refused with a suggestion.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 8, bytes = 1e6, ranks_per_domian = 8})
