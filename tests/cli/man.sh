# The man page (docs/podsim.1) renders without groff warnings and names
# every command and option that `podsim --help` lists.
source "$(dirname "$0")/lib.bash"
set -e
MAN="$SRC/docs/podsim.1"
run groff -man -Tutf8 -ww -z "$MAN"
expect_rc 0 "groff renders the page"; expect_no_err "no groff warnings"
run groff -man -Tutf8 -P-cbou "$MAN"
expect_rc 0 "groff output"
for sec in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS 'EXIT STATUS' FILES EXAMPLES; do
  expect_out "^$sec" "section $sec"
done
# man renders hyphens as U+2010 or '-': compare on the roff source instead.
src=$(sed 's/\\-/-/g; s/\\e/\\/g' "$MAN")
run "$PODSIM" --help
expect_rc 0 "podsim --help"
for opt in $(grep -oE -- '--[a-z][a-z-]+' "$OUT/stdout" | sort -u); do
  grep -qF -- "$opt" <<<"$src" && ok || bad "man page lacks option $opt"
done
for cmd in run validate presets plot; do
  grep -qE "^\.(B|BI|BR) $cmd( |$)" <<<"$src" && ok || bad "man page lacks command $cmd"
done
# the exit codes of --help are the man page's
for code in 0 1 2 130; do
  grep -qE "^\.B $code$" <<<"$src" && ok || bad "exit status $code"
done
finish
