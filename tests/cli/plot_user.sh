# User gnuplot templates (issue 13): podsim.gnuplot(name, ...) takes
# NAME.gp from the scenario's folder before the embedded plots/NAME.gp,
# with the same template check (issue 10's sandbox: no backquotes, system,
# load, "<" data files, set output/table, ...), and gnuplot confined by
# Landlock so that a user template cannot read or write outside the
# sandbox even through paths it builds from strings (a text check alone
# cannot see those).  `podsim plot DIR` renders its recipes again from the
# template copied beside them.
source "$(dirname "$0")/lib.bash"
set -e
P=$OUT/pwned   # the file an attack would create
SECRET=$OUT/outside/secret.csv
mkdir -p "$OUT/outside" "$OUT/s"
printf 'k,v\nSECRETWORD,7\n' >"$SECRET"
has_gnuplot=0
command -v gnuplot >/dev/null && has_gnuplot=1
pwned() { [ -e "$P" ] && { bad "$1: a command ran"; rm -f "$P"; } || ok; }
S=$OUT/s   # the scenarios' folder (the outside/ folder is not below it)
data='local csv = podsim.write_csv("d.csv", {"k", "v"}, {{"a", 1}, {"b", 3}})'

# --- a user template renders, and again from its recipe ------------------
cat >"$S/mybars.gp" <<'GP'
# mybars.gp: bars of column v
# vars: datafile:file plot_title:string
set title plot_title noenhanced
set style fill solid 0.5
plot datafile every ::1 using 0:2:xtic(1) with boxes title "v"
GP
cat >"$S/user_ok.lua" <<LUA
$data
print(podsim.gnuplot("mybars", {datafile = csv, plot_title = "USER_TEMPLATE_TITLE"}))
LUA
run "$PODSIM" run "$S/user_ok.lua" --out "$OUT/o1"
expect_rc 0 "user template"
jailed=1
grep -q "Landlock, which is not usable" "$OUT/stdout" && jailed=0
[ -f "$OUT/o1/plots/mybars.plot" ] && [ -f "$OUT/o1/plots/mybars.gp" ] && ok || bad "recipe and template copy"
cmp -s "$S/mybars.gp" "$OUT/o1/plots/mybars.gp" && ok || bad "the copy is the template"
if [ $has_gnuplot = 1 ] && [ $jailed = 1 ]; then
  grep -q 'USER_TEMPLATE_TITLE' "$OUT/o1/plots/mybars.svg" && ok || bad "rendered from the user template"
  rm "$OUT/o1/plots/mybars.svg"
  run "$PODSIM" plot "$OUT/o1"
  expect_rc 0 "podsim plot of a user template's recipe"
  grep -q 'USER_TEMPLATE_TITLE' "$OUT/o1/plots/mybars.svg" && ok || bad "rendered again"
elif [ $jailed = 0 ]; then
  echo "no Landlock here: user templates are refused (checked above), rendering not checked"
fi

# --- a user template replaces the embedded one of the same name ----------
cat >"$S/tornado.gp" <<'GP'
# vars: datafile:file metric:string point:string
set title "MY_TORNADO" noenhanced
plot datafile every ::1 using 0:2 with lines
GP
cat >"$S/user_override.lua" <<LUA
local csv = podsim.write_csv("t.csv", {"param", "spearman"}, {{"a", 0.5}, {"b", -0.2}})
print(podsim.gnuplot("tornado", {datafile = csv, metric = "m", point = "p"}))
LUA
run "$PODSIM" run "$S/user_override.lua" --out "$OUT/o2"
expect_rc 0 "user tornado"
if [ $has_gnuplot = 1 ] && [ $jailed = 1 ]; then
  grep -q MY_TORNADO "$OUT/o2/plots/tornado.svg" && ok || bad "the scenario's tornado.gp wins"
fi
rm "$S/tornado.gp"

# --- the template check applies: each is an error naming the template -----
i=0
while IFS= read -r line; do
  i=$((i + 1))
  printf '# vars: datafile:file\n%s\nplot datafile using 0:2 with lines\n' "$line" >"$S/evil$i.gp"
  cat >"$S/evil$i.lua" <<LUA
$data
podsim.gnuplot("evil$i", {datafile = csv})
LUA
  run "$PODSIM" run "$S/evil$i.lua" --out "$OUT/e$i"
  expect_rc 1 "user template line '$line'"
  expect_err "evil$i.lua:2: podsim.gnuplot: name: user template 'evil$i.gp': " "located, names the template ($line)"
  pwned "user template line '$line'"
  [ ! -e "$OUT/e$i/plots/evil$i.plot" ] && ok || bad "nothing written for '$line'"
done <<GP
x = \`touch $P\`
x = system("touch $P")
plot "< touch $P" using 1:2
set output "$P"
set table "$P"
load "$P"
call "$P"
eval("system('touch $P')")
!touch $P
print x
set print "$P"
shell
x = "a" . @datafile
GP

# --- gnuplot is jailed: paths built from strings cannot leave the sandbox -
cat >"$S/steal_var.gp" <<'GP'
# vars: datafile:file name:string
plot name every ::1 using 0:2:xtic(1) with boxes title "stolen"
GP
cat >"$S/steal_pwd.gp" <<GP
# vars: datafile:file
s = GPVAL_PWD[1:1]
f = sprintf("%c", 47) . "$(echo "${SECRET#/}" | sed 's|/|" . s . "|g')"
plot f every ::1 using 0:2:xtic(1) with boxes title "stolen"
GP
cat >"$S/steal.lua" <<LUA
$data
print("var", podsim.gnuplot("steal_var", {datafile = csv, name = "$SECRET"}))
print("pwd", podsim.gnuplot("steal_pwd", {datafile = csv}))
LUA
run "$PODSIM" run "$S/steal.lua" --out "$OUT/o3"
expect_rc 0 "stealing templates run (and fail in gnuplot)"
grep -rq SECRETWORD "$OUT/o3" && bad "a user template read a file outside the sandbox" || ok
if [ $has_gnuplot = 1 ] && [ $jailed = 1 ]; then
  expect_out "^var	nil	.*(Cannot find or open|No data)" "reading the outside file failed (string variable)"
  expect_out "^pwd	nil	.*(Cannot find or open|No data)" "reading the outside file failed (built path)"
  # without the jail the same gnuplot would read it: the jail is what stops it
  printf 'set terminal svg\nset output "%s/o3/free.svg"\nset datafile separator ","\nplot "%s" every ::1 using 0:2:xtic(1) with boxes\n' \
    "$OUT" "$SECRET" | gnuplot -d 2>/dev/null
  grep -q SECRETWORD "$OUT/o3/free.svg" && ok || bad "control: unconfined gnuplot reads the file"
  rm -f "$OUT/o3/free.svg"
fi

# --- a planted template beside recipes is checked too (podsim plot DIR) ---
mkdir -p "$OUT/o4/plots"
cp "$OUT/o1/d.csv" "$OUT/o4/d.csv"
printf '# podsim plot recipe\nformat = 1\ntemplate = "planted"\nvar.datafile = "../d.csv"\n' >"$OUT/o4/plots/planted.plot"
printf '# vars: datafile:file\nx = system("touch %s")\nplot datafile using 0:2\n' "$P" >"$OUT/o4/plots/planted.gp"
run "$PODSIM" plot "$OUT/o4"
expect_rc 1 "planted template refused"
expect_err "user template 'planted.gp': " "names the planted template"
pwned "planted template in podsim plot DIR"
finish
