# The annotation test (tests/lua/annotations.lua) fails when the
# annotation file misses a public name or names one that does not exist:
# run it against edited copies of lua/meta/podsim.lua.
source "$(dirname "$0")/lib.bash"
set -e
TEST="$SRC/tests/lua/annotations.lua"
META="$SRC/lua/meta/podsim.lua"
check() { run "$PODSIM" run "$TEST" --unsafe --quiet --out "$OUT/run" --set "meta=$1"; }

check "$META"
expect_rc 0 "the shipped file passes"; expect_out 'annotations: [0-9]+ classes' "reports counts"

# a function exists at run time but is not annotated
grep -v '^function podsim.collective(' "$META" >"$OUT/no_fn.lua"
check "$OUT/no_fn.lua"
expect_rc 1 "missing function"
expect_err 'podsim.collective exists in podsim \(function\) but is not annotated in class podsim' "names it"

# a preset and a system field exist but are not annotated
grep -v -e '^---@field hgx_h800 ' -e '^---@field leaf_gpus ' "$META" >"$OUT/no_field.lua"
check "$OUT/no_field.lua"
expect_rc 1 "missing preset and field"
expect_err 'podsim.systems.hgx_h800 exists in podsim' "names the preset"
expect_err 'podsim.systems.gb200_nvl72.leaf_gpus exists in podsim' "names the field"

# a method of a returned object is not annotated
grep -v '^function Results:label(' "$OUT/no_fn.lua" >"$OUT/no_method.lua"
check "$OUT/no_method.lua"
expect_rc 1 "missing method"
expect_err 'podsim.Study:run\(...\):label is a method at run time but is not annotated' "names it"

# annotated names that do not exist
{ cat "$META"; printf '%s\n' '---@return podsim.CollResult' 'function podsim.no_such_fn() end'; } >"$OUT/extra.lua"
sed -i 's/^---@field nvls_latency_us number/---@field nvls_latency_us number\n---@field no_such_field number/' "$OUT/extra.lua"
check "$OUT/extra.lua"
expect_rc 1 "extra names"
expect_err 'podsim.no_such_fn is annotated as a function \(line [0-9]+\) but is nil at run time' "extra function"
expect_err 'podsim.systems.gb200_nvl72.no_such_field is annotated \(line [0-9]+\) but absent' "extra field"

# a field annotated with the wrong type, an example that fails
sed -e 's/^---@field domain_gpus integer/---@field domain_gpus string/' \
    -e 's/^--- Example: `podsim.model_params("deepseek_v3")`/--- Example: `podsim.model_params("no_such_model")`/' \
    "$META" >"$OUT/wrong.lua"
check "$OUT/wrong.lua"
expect_rc 1 "wrong type, failing example"
expect_err 'domain_gpus is annotated string \(line [0-9]+\) but is a number' "wrong type"
expect_err 'example of podsim.model_params fails' "failing example"
finish
