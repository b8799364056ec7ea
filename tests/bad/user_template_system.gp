# user_template_system.gp: a user template that tries to run a command
# (tests/bad/gnuplot_user_template_system.lua)
# vars: datafile:file
x = system("touch /tmp/podsim-pwned")
plot datafile using 0:2 with lines
