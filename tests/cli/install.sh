# `cmake --install` puts the executable, the man page, the annotation
# file, the example scenarios and the docs under the GNUInstallDirs
# prefixes, nothing outside the prefix, and the installed copy works.
source "$(dirname "$0")/lib.bash"
set -e
BUILD=$(cd "$(dirname "$PODSIM")" && pwd)
P="$OUT/prefix"
run cmake --install "$BUILD" --prefix "$P"
expect_rc 0 "cmake --install into a temporary prefix"

for f in bin/podsim share/man/man1/podsim.1 share/podsim/lua/podsim.lua \
         share/doc/podsim/README.md share/doc/podsim/lua/README.md \
         share/doc/podsim/docs/design.md share/doc/podsim/docs/validation.md; do
  [ -f "$P/$f" ] && ok || bad "installed $f"
done
[ -x "$P/bin/podsim" ] && ok || bad "bin/podsim is executable"
for s in "$SRC"/scenarios/*.lua; do
  cmp -s "$s" "$P/share/podsim/scenarios/$(basename "$s")" && ok || bad "scenario $(basename "$s") installed"
done
# Every installed path is inside the prefix (install_manifest.txt lists them).
outside=$(grep -v "^$P/" "$BUILD/install_manifest.txt" || true)
[ -z "$outside" ] && ok || bad "installed outside the prefix: $outside"

# The installed executable runs from anywhere, with its library embedded.
cd "$OUT"
run "$P/bin/podsim" --version
expect_rc 0 "installed --version"; expect_out '0\.[0-9]+\.[0-9]+' "prints the version"
run "$P/bin/podsim" presets systems
expect_rc 0 "installed presets"; expect_out 'gb200_nvl72' "lists systems"
run "$P/bin/podsim" run "$P/share/podsim/scenarios/alltoall_64gpu.lua" --quiet --out "$OUT/run"
expect_rc 0 "an installed scenario runs"
[ -n "$(ls "$OUT/run"/*.csv 2>/dev/null)" ] && ok || bad "the scenario wrote its CSV files"

# The installed man page renders; the installed annotations match the binary.
run man -l "$P/share/man/man1/podsim.1"
expect_rc 0 "man -l"; expect_out 'EXIT STATUS' "man page rendered"
run "$P/bin/podsim" run "$SRC/tests/lua/annotations.lua" --unsafe --quiet --out "$OUT/ann" \
  --set "meta=$P/share/podsim/lua/podsim.lua"
expect_rc 0 "installed annotations cover the installed podsim"

# DESTDIR staging: everything lands below DESTDIR.
run env DESTDIR="$OUT/stage" cmake --install "$BUILD" --prefix /usr/local
expect_rc 0 "DESTDIR install"
[ -x "$OUT/stage/usr/local/bin/podsim" ] && ok || bad "DESTDIR/usr/local/bin/podsim"
[ -f "$OUT/stage/usr/local/share/man/man1/podsim.1" ] && ok || bad "DESTDIR man page"
finish
