#!/usr/bin/env bash
# The whole Swift suite under ThreadSanitizer, exit tests' children included: builds the tests
# with --sanitize thread in .build-tsan (and STROBE_TSAN, which makes the stack's `Lock` a
# pthread mutex: TSan cannot follow `Synchronization.Mutex`'s contended hand-over, a futex in an
# uninstrumented library, and reports every contended lock as a race), runs them as
# Scripts/swift-suite.sh does, and gathers
# every process's reports (each writes its own file through TSAN_OPTIONS' log_path; a report
# does not change a process's exit status, so a child's report is counted, not taken for a
# failed test). False positives are suppressed only in Tests/tsan-suppressions.txt, each with a
# one-line reason. Prints the reports, then "N passed, M failed": the suite's counts, with
# every unsuppressed report counted as one failure more.
#
#   Scripts/tsan.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scratch="$root/.build-tsan"
reports="$scratch/tsan-reports"
Scripts/install-test-deps.sh
export STROBE_BUMBLE_PYTHON="$root/.venv-bumble/bin/python"

start=$SECONDS
if ! swift build --build-tests --sanitize thread -Xswiftc -DSTROBE_TSAN --scratch-path "$scratch"; then
  echo "tsan: the sanitized build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
build_time=$((SECONDS - start))

rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="log_path=$reports/tsan exitcode=0 halt_on_error=0 second_deadlock_stack=1 suppressions=$root/Tests/tsan-suppressions.txt"
start=$SECONDS
status=0
STROBE_TEST_LOGS="$scratch/test-logs" Scripts/swift-suite.sh --sanitize thread -Xswiftc -DSTROBE_TSAN --scratch-path "$scratch" >"$scratch/suite.log" 2>&1 || status=$?
suite_time=$((SECONDS - start))
grep -E '^✘' "$scratch/suite.log" | grep -v '^✘ Test run with' | head -50
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$scratch/suite.log" | tail -1)
read -r passed failed < <(echo "${line:-0 passed, 1 failed}" | sed 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/')
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1

count=0
for file in "$reports"/tsan.*; do
  [ -e "$file" ] || continue
  n=$(grep -c '^WARNING: ThreadSanitizer:' "$file" || true)
  [ "$n" -gt 0 ] || continue
  count=$((count + n))
  echo "== $n report(s) from process ${file##*.}"
  cat "$file"
done
echo "tsan: build $build_time s, suite $suite_time s: $passed passed, $failed failed; $count unsuppressed report(s) in $(ls "$reports" | wc -l) process(es)' logs"
echo "$passed passed, $((failed + count)) failed"
[ "$failed" -eq 0 ] && [ "$count" -eq 0 ]
