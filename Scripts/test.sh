#!/usr/bin/env bash
# The test command: installs missing test dependencies, then builds once, in release, with the
# tests (`swift build -c release --build-tests`): the products in .build/release are the ones a
# user's `swift build -c release` makes (building the tests beside them changes none of their
# bytes), and every suite runs against that build, the Swift suite included (the tests reach the
# package's internals through `package` declarations, not `@testable`). Before the suites, the
# DocC catalog builds without a warning (Scripts/docs.sh, on the same build). Then the whole Swift
# suite (Scripts/swift-suite.sh) runs with everything else beside it, as a user's suite runs on a
# busy machine: the release phase (Scripts/release-check.sh: each product run for real), the
# kernel suite (strobe-lite on the real Linux HCI user channel, in a qemu guest), the fuzz targets
# (Scripts/fuzz.sh --check: the build's strobe-fuzz on every target's regressions, seeds and 20000
# fixed mutations of them) and the conformance suite (avatar's LE classes against strobe-pandora,
# Scripts/conformance.sh). Every phase runs even when an earlier one failed; at the end one line
# per phase gives its time and counts, then the "N passed, M failed" total.
#
#   Scripts/test.sh               everything
#   Scripts/test.sh --repeat N    only the Swift suite, N times, then every test that failed in any run
#   Scripts/test.sh ARGS...       only `swift test -c release ARGS...` (e.g. --filter ScanCommandTests)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
logs="$root/.build/test-logs"
mkdir -p "$logs"

phases=()
total_passed=0
total_failed=0
# record NAME SECONDS [PASSED FAILED [NOTE]]
record() {
  if [ $# -lt 3 ]; then
    phases+=("$(printf 'phase %-13s %5d s' "$1:" "$2")")
    return
  fi
  phases+=("$(printf 'phase %-13s %5d s  %d passed, %d failed%s' "$1:" "$2" "$3" "$4" "${5:+  ($5)}")")
  total_passed=$((total_passed + $3))
  total_failed=$((total_failed + $4))
}

# The "N passed, M failed" line a script prints last, as "N M" (none: "0 1").
last_counts() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -1 || true)
  if [ -z "$line" ]; then echo "0 1"; else echo "$line" | sed 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/'; fi
}

start=$SECONDS
Scripts/install-test-deps.sh
export STROBE_BUMBLE_PYTHON="$root/.venv-bumble/bin/python"
install_time=$((SECONDS - start))

if [ $# -gt 0 ] && [ "$1" != "--repeat" ]; then
  exec swift test -c release "$@"
fi

if [ $# -gt 0 ]; then
  swift build -c release --build-tests
  runs=${2:?--repeat needs a count}
  [[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "test.sh: --repeat takes a positive count" >&2; exit 2; }
  failures=()
  for run in $(seq 1 "$runs"); do
    log="$logs/repeat-$run.log"
    start=$SECONDS
    status=0
    Scripts/swift-suite.sh -c release >"$log" 2>&1 || status=$?
    read -r passed failed < <(last_counts "$log")
    [ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
    echo "run $run of $runs: $((SECONDS - start)) s, $passed passed, $failed failed (log: $log)"
    while IFS= read -r name; do failures+=("$name"); done < <(grep -v '^✘ Test run with' "$log" | sed -n 's/^✘ Test \(.*\) failed after.*/\1/p')
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
  done
  if [ ${#failures[@]} -gt 0 ]; then
    echo "tests that failed in any run (times failed):"
    printf '%s\n' "${failures[@]}" | sort | uniq -c | sort -rn
  else
    echo "no test failed in $runs runs"
  fi
  echo "$total_passed passed, $total_failed failed"
  [ "$total_failed" -eq 0 ]
  exit
fi

# Each job runs in a process group of its own, ended when the test command is interrupted; its
# time is its own wall time.
declare -A pid_of=()
# Every process of every job (each is a session of its own: qemu under `timeout` is in a group
# of its own within it), then the test command itself.
stop_jobs() {
  for pid in "${pid_of[@]}"; do pkill -TERM -s "$pid" 2>/dev/null || true; done
}
trap 'stop_jobs; exit 130' INT
trap 'stop_jobs; exit 143' TERM
# begin NAME COMMAND...: output to $logs/NAME.log, then "STATUS SECONDS" to $logs/NAME.status.
begin() {
  local name=$1
  shift
  rm -f "$logs/$name.status"
  setsid bash -c 'status=0; "${@:3}" >"$1" 2>&1 || status=$?; echo "$status $SECONDS" >"$2"' \
    "$name" "$logs/$name.log" "$logs/$name.status" "$@" &
  pid_of[$name]=$!
}
# end NAME: waits for it, shows its log, and sets job_status and job_time.
end() {
  local name=$1
  wait "${pid_of[$name]}" 2>/dev/null || true
  unset 'pid_of[$name]'
  cat "$logs/$name.log"
  job_status=1 job_time=0
  if [ -f "$logs/$name.status" ]; then read -r job_status job_time <"$logs/$name.status"; fi
}
start=$SECONDS
build_status=0
swift build -c release --build-tests || build_status=$?
build_time=$((SECONDS - start))
[ "$build_status" -eq 0 ] || echo "test.sh: the build failed (exit $build_status)"

# The DocC catalog, before the suites: it builds in .build too, and would wait on their lock.
start=$SECONDS
docs_status=0
Scripts/docs.sh -c release >"$logs/docs.log" 2>&1 || docs_status=$?
cat "$logs/docs.log"
read -r docs_passed docs_failed < <(last_counts "$logs/docs.log")
[ "$docs_status" -eq 0 ] || [ "$docs_failed" -gt 0 ] || docs_failed=1
docs_time=$((SECONDS - start))

# The executables the build made: asking swift build would wait on the lock of the Swift suite.
bin=$root/.build/release
# A phase whose build failed does not run (binaries of an earlier build could pass): the build's
# row counts the failure once.
skipped() { begin "$1" bash -c 'echo "$0: not run, its build failed"; echo "0 passed, 0 failed"; exit 0' "$1"; }
if [ "$build_status" -eq 0 ]; then
  begin swift Scripts/swift-suite.sh -c release
  begin fuzz Scripts/fuzz.sh --check --strobe-fuzz "$bin/strobe-fuzz"
  begin release Scripts/release-check.sh --bin "$bin"
  begin kernel Scripts/kernel-test.sh --strobe "$bin/strobe-lite"
else
  skipped swift
  skipped fuzz
  skipped release
  skipped kernel
fi
end release
read -r release_passed release_failed < <(last_counts "$logs/release.log")
[ "$job_status" -eq 0 ] || [ "$release_failed" -gt 0 ] || release_failed=1
release_time=$job_time
# The conformance suite's six shards keep both cores busy: it starts once the release checks are
# done, beside the rest of the Swift suite.
if [ "$build_status" -eq 0 ]; then
  export STROBE_PANDORA=$bin/strobe-pandora
  begin conformance Scripts/conformance.sh
else
  skipped conformance
fi
end kernel
read -r kernel_passed kernel_failed < <(last_counts "$logs/kernel.log")
[ "$job_status" -eq 0 ] || [ "$kernel_failed" -gt 0 ] || kernel_failed=1
kernel_time=$job_time
end fuzz
fuzz_clean=$(grep -c '^fuzz: .*, no crash$' "$logs/fuzz.log" || true)
fuzz_failed=$([ "$job_status" -eq 0 ] && echo 0 || echo 1)
fuzz_time=$job_time
end swift
read -r passed failed < <(last_counts "$logs/swift.log")
[ "$job_status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
swift_time=$job_time
end conformance
read -r conformance_passed conformance_failed < <(last_counts "$logs/conformance.log")
[ "$job_status" -eq 0 ] || [ "$conformance_failed" -gt 0 ] || conformance_failed=1
conformance_time=$job_time
trap - INT TERM

record install "$install_time"
# A build that failed counts as one failure.
build_row() { if [ "$2" -eq 0 ]; then record "$1" "$3"; else record "$1" "$3" 0 1 "$4"; fi; }
build_row build "$build_status" "$build_time" "swift build -c release --build-tests failed"
record docs "$docs_time" "$docs_passed" "$docs_failed" "swift package generate-documentation --target Strobe, no warning; every public symbol documented"
record swift-suite "$swift_time" "$passed" "$failed" "beside every phase below"
record release "$release_time" "$release_passed" "$release_failed" "each product of the release build run for real"
record kernel-suite "$kernel_time" "$kernel_passed" "$kernel_failed" "strobe-lite on the kernel's HCI user channel"
record fuzzers "$fuzz_time" "$fuzz_clean" "$fuzz_failed" "targets without a crash on their regressions, seeds and 20000 mutations each"
record conformance "$conformance_time" "$conformance_passed" "$conformance_failed" "after the release phase"
echo
printf '%s\n' "${phases[@]}"
echo "time: $SECONDS s in all"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
