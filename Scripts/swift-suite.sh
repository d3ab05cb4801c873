#!/usr/bin/env bash
# The Swift suite, already built (`swift build --build-tests`, with `-c release` for the test
# command), in one `swift test` run. Prints its output, then "N passed, M failed".
#
#   Scripts/swift-suite.sh           the debug build in .build
#   Scripts/swift-suite.sh ARGS...   another build, named by swift test's ARGS (`-c release`: the
#                                    test command's; Scripts/tsan.sh's scratch path)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
logs="${STROBE_TEST_LOGS:-$root/.build/test-logs}"
mkdir -p "$logs"
log="$logs/swift-test.log"

status=0
swift test --skip-build "$@" >"$log" 2>&1 || status=$?
cat "$log"
run=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -1)
failed=$(grep '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
passed=$(( ${run:-0} - failed ))
[ "$passed" -ge 0 ] || passed=0
# A run that failed without a failed test (a crash, a build problem) counts as one failure.
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
