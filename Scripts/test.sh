#!/usr/bin/env bash
# The test command: installs missing test dependencies, builds, runs the whole Swift suite, then
# the kernel suite (strobe on the real Linux HCI user channel, in a qemu guest) with the
# conformance suite beside it (avatar's LE classes against strobe-pandora, Scripts/conformance.sh:
# it waits on the air, the kernel suite on qemu), then every fuzz target for a few seconds
# (Scripts/fuzz.sh). Every phase runs even when an earlier one failed;
# at the end one line per phase gives its time and counts, then the "N passed, M failed" total.
#
#   Scripts/test.sh               everything
#   Scripts/test.sh --repeat N    only the Swift suite, N times, then every test that failed in any run
#   Scripts/test.sh ARGS...       only `swift test ARGS...` (e.g. --filter ScanCommandTests)
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

# The Swift suite's counts from its log: Swift Testing's per-test lines and XCTest's summary.
swift_counts() {
  local log=$1 run failed passed
  run=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -1)
  failed=$(grep '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with' || true)
  passed=$(( ${run:-0} - failed ))
  [ "$passed" -ge 0 ] || passed=0
  echo "$passed $failed"
}

start=$SECONDS
Scripts/install-test-deps.sh
export STROBE_BUMBLE_PYTHON="$root/.venv-bumble/bin/python"
install_time=$((SECONDS - start))

if [ $# -gt 0 ] && [ "$1" != "--repeat" ]; then
  exec swift test "$@"
fi

start=$SECONDS
swift build --build-tests
build_time=$((SECONDS - start))

if [ $# -gt 0 ]; then
  runs=${2:?--repeat needs a count}
  [[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "test.sh: --repeat takes a positive count" >&2; exit 2; }
  failures=()
  for run in $(seq 1 "$runs"); do
    log="$logs/repeat-$run.log"
    start=$SECONDS
    status=0
    swift test --skip-build >"$log" 2>&1 || status=$?
    read -r passed failed < <(swift_counts "$log")
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

start=$SECONDS
status=0
swift test --skip-build 2>&1 | tee "$logs/swift.log" || status=$?
read -r passed failed < <(swift_counts "$logs/swift.log")
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
swift_time=$((SECONDS - start))

# The conformance suite runs beside the kernel suite, in a process group of its own that an
# interrupted test command ends; its time is its own wall time.
rm -f "$logs/conformance.status"
setsid bash -c 'status=0; Scripts/conformance.sh >"$1" 2>&1 || status=$?; echo "$status $SECONDS" >"$2"' \
  conformance "$logs/conformance.log" "$logs/conformance.status" &
conformance_pid=$!
trap 'kill -TERM -- "-$conformance_pid" 2>/dev/null || true' INT TERM

start=$SECONDS
status=0
Scripts/kernel-test.sh 2>&1 | tee "$logs/kernel.log" || status=$?
kernel=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/kernel.log" | tail -1 || true)
kernel_passed=$(echo "${kernel:-0 passed}" | sed 's/ passed.*//')
kernel_failed=$(echo "${kernel:-, 1 failed}" | sed 's/.*, \([0-9]*\) failed/\1/')
[ "$status" -eq 0 ] || [ "$kernel_failed" -gt 0 ] || kernel_failed=1
kernel_time=$((SECONDS - start))

wait "$conformance_pid" || true
trap - INT TERM
cat "$logs/conformance.log"
conformance_status=1 conformance_time=0
[ -f "$logs/conformance.status" ] && read -r conformance_status conformance_time <"$logs/conformance.status"
conformance=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/conformance.log" | tail -1 || true)
conformance_passed=$(echo "${conformance:-0 passed}" | sed 's/ passed.*//')
conformance_failed=$(echo "${conformance:-, 1 failed}" | sed 's/.*, \([0-9]*\) failed/\1/')
[ "$conformance_status" -eq 0 ] || [ "$conformance_failed" -gt 0 ] || conformance_failed=1

start=$SECONDS
status=0
Scripts/fuzz.sh --seconds 5 2>&1 | tee "$logs/fuzz.log" || status=$?
fuzz_clean=$(grep -c '^fuzz: .*, no crash$' "$logs/fuzz.log" || true)
fuzz_failed=$([ "$status" -eq 0 ] && echo 0 || echo 1)
fuzz_time=$((SECONDS - start))

record install "$install_time"
record build "$build_time"
record swift-suite "$swift_time" "$passed" "$failed"
record kernel-suite "$kernel_time" "$kernel_passed" "$kernel_failed"
record conformance "$conformance_time" "$conformance_passed" "$conformance_failed" "beside the kernel suite"
record fuzzers "$fuzz_time" "$fuzz_clean" "$fuzz_failed" "targets run 5 s each without a crash"
echo
printf '%s\n' "${phases[@]}"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
