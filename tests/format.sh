#!/usr/bin/env bash
# format.sh: list the C sources under core/, lua/ and tests/ that differ
# from what clang-format (with the repository's .clang-format) makes of
# them; exit 1 when there is any.  Run by `./build.sh format-check` and,
# once the tree has been formatted, by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-clang-format}
command -v "$CF" >/dev/null || { echo "format.sh: $CF not found (apt-get install clang-format)" >&2; exit 2; }
bad=0
while IFS= read -r -d '' f; do
  if ! "$CF" --style=file "$f" | cmp -s - "$f"; then
    echo "$f"
    bad=$((bad + 1))
  fi
done < <(find core lua tests -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z)
if [ "$bad" -gt 0 ]; then
  echo "format.sh: $bad file(s) not formatted; fix with: clang-format -i FILE..." >&2
  exit 1
fi
