#!/usr/bin/env bash
# Builds the Strobe library's DocC catalog (swift-docc-plugin) and fails on any warning: a broken
# link, a symbol an article names that does not exist, a malformed directive. Then fails on any
# public symbol of the library's modules without a documentation comment (Scripts/doc-coverage.py:
# the catalog itself holds only the Strobe module's symbols, swift-docc-plugin does not follow its
# re-exports).
# Prints "1 passed, 0 failed" or "0 passed, 1 failed" last, as the other suites do.
#
#   Scripts/docs.sh               on the debug build
#   Scripts/docs.sh -c release    on the release build (the test command's, which it reuses)
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift package "$@" generate-documentation --target Strobe >"$log" 2>&1 || status=$?
# Warnings of the documentation itself, not of dependencies' package manifests.
warnings=$(grep -E '^(warning|error):|: (warning|error):' "$log" | grep -v "found [0-9]* file(s) which are unhandled" || true)
coverage_status=0
coverage=$(python3 Scripts/doc-coverage.py --list 2>&1) || coverage_status=$?
if [ "$status" -ne 0 ] || [ -n "$warnings" ] || [ "$coverage_status" -ne 0 ]; then
  cat "$log"
  printf '%s\n' "$coverage"
  echo "docs: generate-documentation exited $status with $(printf '%s' "$warnings" | grep -c . || true) warnings; $(tail -1 <<<"$coverage")"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "docs: the Strobe catalog builds without warnings ($(grep -c . <<<"$(ls Sources/Strobe/Strobe.docc)") files); $(tail -1 <<<"$coverage")"
echo "1 passed, 0 failed"
