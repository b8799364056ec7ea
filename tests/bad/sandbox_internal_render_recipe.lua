-- expect-exit: 1
-- expect-error: FILE:4: attempt to call a nil value (field '_render_recipe')
-- podsim's internals (here: the recipe renderer) are not in the podsim table.
podsim._render_recipe("/etc/passwd")
