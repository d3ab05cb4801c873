#!/usr/bin/env bash
# A first look with no Bluetooth hardware: starts a Bumble virtual controller linked to a Bumble
# GATT peripheral on loopback, then runs `strobe scan` against it over H4/TCP and `strobe info`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
Scripts/install-test-deps.sh >/dev/null
swift build --product strobe >/dev/null
strobe="$(swift build --show-bin-path)/strobe"

log="$(mktemp)"
trap 'kill "$peripheral" 2>/dev/null || true; wait "$peripheral" 2>/dev/null || true; rm -f "$log"' EXIT
.venv-bumble/bin/python Tests/Fixtures/Bumble/peripheral.py --hci-listen tcp:127.0.0.1:0 --stay --timeout 60 >"$log" &
peripheral=$!
for _ in $(seq 1 300); do
  grep -q '^READY' "$log" && break
  kill -0 "$peripheral" 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
transport="$(sed -n 's/^READY hci=\([^ ]*\).*/\1/p' "$log")"
[ -n "$transport" ] || { echo "the Bumble peripheral did not start"; cat "$log"; exit 1; }

echo "\$ strobe --transport $transport info"
"$strobe" --transport "$transport" info
echo
echo "\$ strobe --transport $transport scan --duration 2"
"$strobe" --transport "$transport" scan --duration 2
