/*
** plot_jail.h: the gnuplot processes of plots: plain for the embedded
** templates, under a Linux Landlock ruleset for user templates (a
** scenario's own NAME.gp).  Either gets the same fixed environment
** (PATH=/usr/bin:/bin, LC_ALL=C, HOME=/nonexistent, GNUTERM=svg), `-d` (no
** init files), the script on stdin, stdout on /dev/null, stderr collected
** and no other descriptor; a stop (SIGINT, the timeout) ends the gnuplot
** running then with SIGTERM.
**
**   _gnuplot_run(script) -> true | nil, message   (yields)
**   _gnuplot_run(scripts) -> {true | message, ...}   (yields)
**
** run the embedded templates' scripts in the output folder.  A list runs
** in as few gnuplot processes as it can, one for all when every plot is
** clean (each script followed by `reset session`); a script that prints
** anything on stderr, or during which gnuplot ends, is run again alone, so
** each gets the outcome and message of its own run.  Only the embedded
** templates, which set no terminal, line type or other state that `reset
** session` keeps, may be batched.
**
** A user template passes the same text check as the embedded ones
** (pod_gp_template_check: no backquotes, system, load, `set output`, "<"
** data files, ...), but a text check cannot stop gnuplot from building a
** path out of a string variable, GPVAL_PWD or sprintf and reading it as a
** data file.  So the gnuplot process of a user template is confined by
** the kernel: it may read and execute the system's programs and
** libraries (/usr, /bin, /lib, /lib64, /etc/ld.so.cache, /etc/fonts),
** read below the folders the sandbox lets the scenario read (`read_dirs`),
** write below the output folder (its working folder), and nothing else: no
*other
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

/* Lua: _gnuplot_run(script | scripts).  [-1, +(1|2), v] (yields) */
int lpod_plot_run(lua_State *L);

/* Lua: _gnuplot_run_jailed(script, mode).  [-2, +(1|2), v] (yields) */
int lpod_plot_run_jailed(lua_State *L);

#endif
