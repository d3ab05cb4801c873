#!/usr/bin/env bash
# The release phase: builds what a user builds (`swift build -c release`: strobe, strobe-lite,
# strobe-pandora, strobe-bench) and runs each product for real on the simulated world: the
# tools' help, a scan, a pairing, five shots, `capture show` of a capture, strobe-pandora
# answering ReadLocalAddress to the pandora package's own gRPC client, a short decode benchmark.
# One line per check, then "N passed, M failed".
#
#   Scripts/release-check.sh            build, then check
#   Scripts/release-check.sh --bin DIR  check the products already built in DIR (the test
#                                       command's: asking swift build would wait on the lock
#                                       of the Swift suite running beside it)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ "${1:-}" = "--bin" ]; then
  bin=${2:?--bin needs a directory}
else
  if ! swift build -c release; then
    echo "release: swift build -c release failed"
    echo "0 passed, 1 failed"
    exit 1
  fi
  bin=$(swift build -c release --show-bin-path)
fi
work=$(mktemp -d)
pandora_pid=""
cleanup() {
  if [ -n "$pandora_pid" ]; then kill "$pandora_pid" 2>/dev/null; wait "$pandora_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
# Bonds and scenes of these runs stay in the scratch directory.
export XDG_STATE_HOME="$work/state"
python="${STROBE_AVATAR_PYTHON:-$root/.venv-avatar/bin/python}"

passed=0
failed=0
# check NAME PATTERN COMMAND...: passes when COMMAND exits 0 within 120 s (a function of this
# script bounds its own waits) and its output (stdout and stderr) has a line matching PATTERN
# (an extended regular expression).
check() {
  local name=$1 pattern=$2
  shift 2
  local log="$work/$name.log" start=$SECONDS status=0
  if [ "$(type -t "$1")" = function ]; then
    "$@" >"$log" 2>&1 || status=$?
  else
    timeout 120 "$@" >"$log" 2>&1 || status=$?
  fi
  if [ "$status" -eq 0 ] && grep -Eq "$pattern" "$log"; then
    passed=$((passed + 1))
    echo "release: $name passed ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    echo "release: $name FAILED (exit $status, $((SECONDS - start)) s; wanted /$pattern/): $*"
    sed 's/^/    /' "$log" | tail -20
  fi
}

check strobe-help '^OVERVIEW: A Bluetooth Low Energy host stack' "$bin/strobe" --help
check strobe-lite-help '^OVERVIEW: A Bluetooth Low Energy host stack' "$bin/strobe-lite" --help
check scan '"Nova2"' "$bin/strobe" scan --duration 1
check strobe-lite-scan '"Nova2"' "$bin/strobe-lite" scan --duration 1
check pair '^bonded' "$bin/strobe" pair --name Grip-S1
check shoot '^5 shots: 5 captured' "$bin/strobe" shoot --count 5
check capture-show 'HCI Command: Reset' "$bin/strobe" capture show Captures/sim_nova1-fire.btsnoop
check bench-decode 'notificationsPerSecond' "$bin/strobe-bench" decode --batches 20000

# strobe-pandora as avatar meets it: READY on stdout, then ReadLocalAddress over gRPC.
pandora_check() {
  "$bin/strobe-pandora" --transport sim --port 0 >"$work/pandora.out" 2>&1 &
  pandora_pid=$!
  local port="" waited=0
  while [ -z "$port" ] && [ "$waited" -lt 600 ] && kill -0 "$pandora_pid" 2>/dev/null; do
    port=$(sed -n 's/^READY grpc=127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/pandora.out")
    [ -n "$port" ] || { sleep 0.1; waited=$((waited + 1)); }
  done
  if [ -z "$port" ]; then
    echo "strobe-pandora printed no READY line within 60 s:"
    cat "$work/pandora.out"
    return 1
  fi
  timeout 120 "$python" Tests/Fixtures/Pandora/read_local_address.py "$port"
}
check pandora-read-local-address '^00:5E:00:00:F0:01$' pandora_check

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
