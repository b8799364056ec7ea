/*
** modules.h: the C binding modules opened into the `podsim` table, in
** order.  Each lua/l_<name>.c defines `void lpod_open_<name>(lua_State *L)`
** which sets its functions on the podsim table at the top of the stack.
*/
LPOD_MODULE(plot)
LPOD_MODULE(hw)
LPOD_MODULE(coll)
LPOD_MODULE(calib)
LPOD_MODULE(train)
LPOD_MODULE(serve)
LPOD_MODULE(cost)
LPOD_MODULE(rel)
LPOD_MODULE(rl)
LPOD_MODULE(dist)
LPOD_MODULE(file)
/* last: it lists the kernels the modules above registered */
LPOD_MODULE(study)
