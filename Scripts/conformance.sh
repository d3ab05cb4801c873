#!/usr/bin/env bash
# The conformance suite: Google's avatar LE test classes (LeHostTest, LeSecurityTest) driving
# strobe-pandora as the device under test against a Bumble reference device, each shard on its
# own RootCanal. Cases in Tests/Conformance/unsupported.txt (BR/EDR) are not run.
#
#   Scripts/conformance.sh [--shards N] [--dut strobe|bumble|both] [--keep DIR] [CLASS|CASE...]
#
# --dut bumble runs Bumble's own Pandora server in Strobe's place; both runs the two, one after
# the other, and prints their figures side by side. Installs its pinned venv (.venv-avatar:
# pandora-avatar, bumble 0.0.233, rootcanal 1.10.0) when missing and builds strobe-pandora when
# it is not built. The last line is "N passed, M failed" for the first device under test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

venv="$root/.venv-avatar"
lock="$root/Tests/Conformance/requirements.lock.txt"
stamp="$venv/.installed-$(sha256sum "$lock" | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "creating the venv .venv-avatar"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$lock"
  touch "$stamp"
fi

bin="$(swift build --show-bin-path)"
if [ ! -x "$bin/strobe-pandora" ]; then
  swift build --product strobe-pandora
fi
exec "$venv/bin/python" "$root/Tests/Conformance/conformance.py" --strobe-pandora "$bin/strobe-pandora" "$@"
