#!/usr/bin/env bash
# A first look with no Bluetooth hardware: the simulated world (virtual controllers in a virtual
# air, simulated Nova flashes, a grip, a stylus, a LEDnet light) is strobe's default transport.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
Scripts/install-test-deps.sh >/dev/null
swift build -c release --product strobe >/dev/null
strobe="$(swift build -c release --show-bin-path)/strobe"

run() {
  echo "\$ strobe $*"
  "$strobe" "$@"
  echo
}
run sim list
run scan --duration 1
run flash --all fire --preset warm --hold-ms 100
run grip events --count 3
# Pairing and bonds, in a scratch bond store (each run's simulated grip is new and keeps no bond).
bonds="$(mktemp -d)/bonds.json"
run pair --name Grip-S1 --bonds "$bonds"
run bonds --bonds "$bonds"
run stylus stream --duration 1.5
run light list
run shoot --count 5 --modelling-lights all
