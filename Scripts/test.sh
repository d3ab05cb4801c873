#!/usr/bin/env bash
# The test command: installs missing test dependencies, runs the whole Swift suite, then the
# kernel suite (strobe on the real Linux HCI user channel, in a qemu guest), then every fuzz
# target for a few seconds (Scripts/fuzz.sh).
#
#   Scripts/test.sh            everything
#   Scripts/test.sh ARGS...    only `swift test ARGS...` (e.g. --filter ScanCommandTests)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
Scripts/install-test-deps.sh
export STROBE_BUMBLE_PYTHON="$root/.venv-bumble/bin/python"
swift test "$@"
if [ $# -eq 0 ]; then
  Scripts/kernel-test.sh
  Scripts/fuzz.sh --seconds 5
fi
