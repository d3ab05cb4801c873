#!/usr/bin/env bash
# The conformance suite: Google's avatar LE test classes (LeHostTest, LeSecurityTest) driving
# strobe-pandora as the device under test against a Bumble reference device, each shard on its
# own RootCanal. Cases in Tests/Conformance/unsupported.txt (BR/EDR) are not run.
#
#   Scripts/conformance.sh [--shards N (6)] [--dut strobe|bumble|both] [--keep DIR] [CLASS|CASE...]
#
# --dut bumble runs Bumble's own Pandora server in Strobe's place; both runs the two, one after
# the other, and prints their figures side by side. The pinned venv (.venv-avatar: pandora-avatar,
# bumble 0.0.233, rootcanal 1.10.0) comes from Scripts/install-test-deps.sh; strobe-pandora is
# built first (or taken from $STROBE_PANDORA). The last line is "N passed, M failed" for the first device under test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

venv="$root/.venv-avatar"
Scripts/install-test-deps.sh

# The test command has built it (the release build) and says where; on its own this builds it.
pandora="${STROBE_PANDORA:-}"
if [ -z "$pandora" ]; then
  swift build --product strobe-pandora
  pandora="$(swift build --show-bin-path)/strobe-pandora"
fi
[ -x "$pandora" ] || { echo "conformance: no strobe-pandora at $pandora" >&2; exit 1; }
exec "$venv/bin/python" "$root/Tests/Conformance/conformance.py" --strobe-pandora "$pandora" "$@"
