-- expect.lua: tiny assertion helpers for the Lua API tests (loaded with
-- dofile; the tests run with --unsafe).
local T = {count = 0}

-- The call must fail with a message matching `pattern` (a Lua pattern),
-- located at the calling test file.
function T.error(pattern, fn, ...)
  local ok, err = pcall(fn, ...)
  T.count = T.count + 1
  if ok then error("expected an error matching '" .. pattern .. "', got success", 2) end
  err = tostring(err)
  if not err:find(pattern) then
    error("error '" .. err .. "' does not match '" .. pattern .. "'", 2)
  end
  -- located: "file.lua:LINE: " (the innermost script frame, which is
  -- this helper when the API function is passed directly)
  if not err:find("^[^:]+%.lua:%d+: ") then
    error("error '" .. err .. "' does not start with file:line:", 2)
  end
  return err
end

function T.eq(a, b, what)
  T.count = T.count + 1
  if a ~= b then error(string.format("%s: expected %s, got %s", what or "value", tostring(b), tostring(a)), 2) end
end

function T.near(a, b, rel, what)
  T.count = T.count + 1
  if math.abs(a - b) > rel * math.abs(b) then
    error(string.format("%s: expected %.6g within %g%%, got %.6g", what or "value", b, rel * 100, a), 2)
  end
end

function T.truthy(v, what)
  T.count = T.count + 1
  if not v then error((what or "condition") .. " is false", 2) end
end

function T.done(name)
  print(string.format("%s: %d passed, 0 failed", name, T.count))
end

return T
