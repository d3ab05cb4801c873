#!/usr/bin/env bash
# The test command: installs missing test dependencies, builds once, runs the whole Swift suite
# (Scripts/swift-suite.sh) with the release phase beside it (Scripts/release-check.sh: the
# products built as a user builds them, `-c release`, and each run for real), then the kernel
# suite (the release strobe-lite on the real Linux HCI user channel, in a qemu guest) and the
# fuzz targets (Scripts/fuzz.sh --check: the build's strobe-fuzz on every target's regressions,
# seeds and 20000 fixed mutations of them), then the conformance suite (avatar's LE classes
# against the release strobe-pandora, Scripts/conformance.sh). Before the suites, the DocC
# catalog builds without a warning (Scripts/docs.sh). Every phase runs even when an earlier one
# failed; at the end one line per phase gives its time and counts, then the "N passed, M
# failed" total.
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
    Scripts/swift-suite.sh >"$log" 2>&1 || status=$?
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

# After the build the Swift suite (which waits on foreign peers and virtual time) runs with the
# release build and its checks beside it, so that it also runs on a busy machine, as a user's
# suite does; then the kernel suite (qemu, one core) on the release strobe-lite, with the fuzz
# targets; the conformance suite, whose six shards keep both cores busy, runs alone after them,
# on the release strobe-pandora. Each job runs in a process group of its own, ended when the
# test command is interrupted; its time is its own wall time.
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
# The DocC catalog, before the suites: it builds in .build too, and would wait on their lock.
start=$SECONDS
docs_status=0
Scripts/docs.sh >"$logs/docs.log" 2>&1 || docs_status=$?
cat "$logs/docs.log"
read -r docs_passed docs_failed < <(last_counts "$logs/docs.log")
[ "$docs_status" -eq 0 ] || [ "$docs_failed" -gt 0 ] || docs_failed=1
docs_time=$((SECONDS - start))

# The executables the builds made: building them again here would wait on the Swift suite's lock.
bin=$(swift build --show-bin-path)
release_bin=$(swift build -c release --scratch-path "$root/.build-release" --show-bin-path)
begin swift Scripts/swift-suite.sh
begin release Scripts/release-check.sh
end release
read -r release_passed release_failed < <(last_counts "$logs/release.log")
[ "$job_status" -eq 0 ] || [ "$release_failed" -gt 0 ] || release_failed=1
release_time=$job_time
begin kernel Scripts/kernel-test.sh --strobe "$release_bin/strobe-lite"
begin fuzz Scripts/fuzz.sh --check --strobe-fuzz "$bin/strobe-fuzz"
end swift
read -r passed failed < <(last_counts "$logs/swift.log")
[ "$job_status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
swift_time=$job_time
end kernel
read -r kernel_passed kernel_failed < <(last_counts "$logs/kernel.log")
[ "$job_status" -eq 0 ] || [ "$kernel_failed" -gt 0 ] || kernel_failed=1
kernel_time=$job_time
end fuzz
fuzz_clean=$(grep -c '^fuzz: .*, no crash$' "$logs/fuzz.log" || true)
fuzz_failed=$([ "$job_status" -eq 0 ] && echo 0 || echo 1)
fuzz_time=$job_time

export STROBE_PANDORA=$release_bin/strobe-pandora
begin conformance Scripts/conformance.sh
end conformance
read -r conformance_passed conformance_failed < <(last_counts "$logs/conformance.log")
[ "$job_status" -eq 0 ] || [ "$conformance_failed" -gt 0 ] || conformance_failed=1
conformance_time=$job_time
trap - INT TERM

record install "$install_time"
record build "$build_time"
record docs "$docs_time" "$docs_passed" "$docs_failed" "swift package generate-documentation --target Strobe, no warning; every public symbol documented"
record swift-suite "$swift_time" "$passed" "$failed"
record release "$release_time" "$release_passed" "$release_failed" "beside the Swift suite: swift build -c release, then each product run"
record kernel-suite "$kernel_time" "$kernel_passed" "$kernel_failed" "after the release build, beside the Swift suite; the release strobe-lite"
record fuzzers "$fuzz_time" "$fuzz_clean" "$fuzz_failed" "beside the Swift suite; targets without a crash on their regressions, seeds and 20000 mutations each"
record conformance "$conformance_time" "$conformance_passed" "$conformance_failed"
echo
printf '%s\n' "${phases[@]}"
echo "time: $SECONDS s in all, $((SECONDS - conformance_time)) s without the conformance suite"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
