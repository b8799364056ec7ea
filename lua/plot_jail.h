/*
** plot_jail.h: gnuplot for user templates (a scenario's own NAME.gp),
** run under a Linux Landlock ruleset.
**
** A user template passes the same text check as the embedded ones
** (pod_gp_template_check: no backquotes, system, load, `set output`, "<"
** data files, ...), but a text check cannot stop gnuplot from building a
** path out of a string variable, GPVAL_PWD or sprintf and reading it as a
** data file.  So the gnuplot process of a user template is confined by
** the kernel: it may read and execute the system's programs and
** libraries (/usr, /bin, /lib, /lib64, /etc/ld.so.cache, /etc/fonts),
** read below the folders the sandbox lets the scenario read (`read_dirs`),
** write below the output folder (`write_dir`), and nothing else: no other
** file of /etc, no home folder, no /proc.  Where the kernel has no
** Landlock, user templates are refused (fail closed).
**
**   _gnuplot_run_jailed(script, mode) -> true | nil, message   (yields)
**
** registered by lpod_open_plot (lua/l_plot.c); mode "read" (the scenario's
** folder and the output folder readable) or "out" (the output folder
** only, for `podsim plot DIR`).
*/
#ifndef POD_PLOT_JAIL_H
#define POD_PLOT_JAIL_H

#include <lua.h>
#include <stddef.h>

/* The Landlock ABI version of the running kernel, or 0 without Landlock. */
int lpod_plot_jail_abi(void);

/* Lua: _gnuplot_run_jailed(script, mode).  [-2, +(1|2), v] (yields) */
int lpod_plot_run_jailed(lua_State *L);

#endif
