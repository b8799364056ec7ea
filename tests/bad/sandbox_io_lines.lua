-- expect-exit: 1
-- expect-error: FILE:4: io.lines: '/etc/passwd' is outside the scenario's folder and the output folder (run with --unsafe to lift the sandbox)
-- io.lines refuses files outside the allowed folders.
for l in io.lines("/etc/passwd") do end
