-- expect-exit: 1
-- expect-error: FILE:6: writer failed
-- An error inside write_atomic's function leaves no file behind, under either name.
podsim.write_atomic("partial.txt", function(f)
  f:write("half")
  error("writer failed")
end)
