#!/usr/bin/env bash
# The test command: installs missing test dependencies, then runs the whole suite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
Scripts/install-test-deps.sh
export STROBE_BUMBLE_PYTHON="$root/.venv-bumble/bin/python"
swift test "$@"
