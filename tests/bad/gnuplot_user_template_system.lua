-- expect-exit: 1
-- expect-error: FILE:6: podsim.gnuplot: name: user template 'user_template_system.gp': template uses 'system'
-- A user template (NAME.gp beside the scenario) passes the same check as
-- the embedded ones.
local csv = podsim.write_csv("t.csv", {"k", "v"}, {{"a", 1}})
podsim.gnuplot("user_template_system", {datafile = csv})
