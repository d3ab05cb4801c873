#!/usr/bin/env bash
# The Swift suite, already built (`swift build --build-tests`, with `-c release` for the test
# command), in two runs: first the suites whose
# tests run in child processes (Swift Testing's exit tests: the simulated world in virtual time
# takes over its process's executor), then every other test. Prints both runs' output, then
# "N passed, M failed".
#
# Why two: Swift Testing's parent reads a child's events with blocking reads on a thread of the
# concurrency pool, which has one thread per core. Beside the rest of the suite, the children
# held both threads of a 2-core machine, and every other test waited for them: trivial tests took
# 30 to 60 s, and one-minute limits were hit. Alone, the children take seconds.
#
#   Scripts/swift-suite.sh           the debug build in .build
#   Scripts/swift-suite.sh ARGS...   another build, named by swift test's ARGS (`-c release`: the
#                                    test command's; Scripts/tsan.sh's scratch path)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
logs="${STROBE_TEST_LOGS:-$root/.build/test-logs}"
mkdir -p "$logs"

# MODULE.TYPE of every top-level type in Tests/ with an exit test in its body, found in the
# sources so that a new one is never left beside the rest.
suites=$(grep -rl --include='*.swift' 'processExitsWith' Tests | sort | while read -r file; do
  module=$(echo "$file" | cut -d/ -f2)
  awk -v module="$module" '
    /^(@[A-Za-z]+(\([^)]*\)+)? *)*(public |final |private )*(struct|class|enum|extension|actor) [A-Za-z0-9_]+/ {
      for (i = 1; i <= NF; i++) if ($i ~ /^(struct|class|enum|extension|actor)$/) { type = $(i + 1); sub(/[^A-Za-z0-9_].*/, "", type); break }
    }
    /^(@[A-Za-z]+(\([^)]*\)+)? *)*(public |private )*func / { type = "" }
    /processExitsWith/ { print (type == "" ? "NO-TYPE:" FILENAME : module "\\." type) }' "$file"
done | sort -u | paste -sd'|')
# An exit test outside a type would run beside the rest, unnoticed.
if [[ "$suites" == *NO-TYPE:* ]]; then
  echo "swift-suite: an exit test outside a type: $(echo "$suites" | tr '|' '\n' | sed -n 's/^NO-TYPE://p')" >&2
  exit 1
fi
pattern="^(${suites})(/|$)"

# One run's counts, "N M", from Swift Testing's per-test lines and its summary.
counts() {
  local log=$1 run failed passed
  run=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -1)
  failed=$(grep '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
  passed=$(( ${run:-0} - failed ))
  [ "$passed" -ge 0 ] || passed=0
  echo "$passed $failed"
}

total_passed=0
total_failed=0
for run in children rest; do
  log="$logs/swift-$run.log"
  status=0
  if [ "$run" = children ]; then
    swift test --skip-build "$@" --filter "$pattern" >"$log" 2>&1 || status=$?
  else
    swift test --skip-build "$@" --skip "$pattern" >"$log" 2>&1 || status=$?
  fi
  cat "$log"
  read -r passed failed < <(counts "$log")
  # A run that failed without a failed test (a crash, a build problem) counts as one failure.
  [ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
