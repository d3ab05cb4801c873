#!/usr/bin/env bash
# Strobe side by side with Bumble's own host, on the same work in the same run:
#   decode  the same generated capture of stylus notifications, parsed by both stacks
#   scale   the same decode with the notifications round 16 and 256 links, their fragments
#           interleaved across the links (strobe-bench scale's receive path)
#   e2e     the same Bumble virtual controller and GATT peripheral, reached over H4/TCP; Strobe
#           twice: as it is by default (each PDU read as it completes) and with read coalescing
#           (the reader holds off READ_COALESCING_US after each read of ACL data)
# Prints each stack's figures and the ratios Strobe / Bumble.
#
#   Benchmarks/compare.sh [BATCHES] [E2E_NOTIFICATIONS] [READ_COALESCING_US]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
batches=${1:-200000}
notifications=${2:-20000}
coalescing=${3:-1000}
Scripts/install-test-deps.sh >/dev/null
python="$root/.venv-bumble/bin/python"
swift build -c release --product strobe-bench >/dev/null
bench="$(swift build -c release --show-bin-path)/strobe-bench"
work="$(mktemp -d)"
trap 'rm -rf "$work"; [ -n "${peripheral:-}" ] && kill "$peripheral" 2>/dev/null || true' EXIT

# decode
"$bench" --write-capture "$work/stylus.btsnoop" --batches "$batches"
strobe_decode=$("$bench" decode --capture "$work/stylus.btsnoop" --json | head -1)
bumble_decode=$("$python" Benchmarks/bumble_decode.py "$work/stylus.btsnoop")

# scale: the same captures, many links
scale=()
for links in 16 256; do
    "$bench" --write-capture "$work/stylus-$links.btsnoop" --batches "$batches" --capture-links "$links"
    scale+=("$links" "$("$bench" decode --capture "$work/stylus-$links.btsnoop" --json | head -1)" \
            "$("$python" Benchmarks/bumble_decode.py "$work/stylus-$links.btsnoop")")
done

# e2e: Strobe first (it starts its own peripheral), then Bumble's host against a fresh one.
strobe_e2e=$("$bench" e2e --e2e-notifications "$notifications" --json | head -1)
strobe_e2e_coalesced=$("$bench" e2e --e2e-notifications "$notifications" --e2e-read-coalescing "$coalescing" --json | head -1)
# The same peripheral as strobe-bench's e2e: advertising every 2 ms (EndToEndScenario.swift).
"$python" Tests/Fixtures/Bumble/peripheral.py --hci-listen tcp:127.0.0.1:0 --notify-count "$notifications" \
    --timeout 300 --adv-interval-ms 2 >"$work/peripheral.log" &
peripheral=$!
for _ in $(seq 1 300); do grep -q '^READY' "$work/peripheral.log" && break; sleep 0.1; done
spec=$(sed -n 's/^READY hci=\([^ ]*\).*/\1/p' "$work/peripheral.log")
bumble_e2e=$("$python" Benchmarks/bumble_e2e.py "$spec" "$notifications")

"$python" - "$strobe_decode" "$bumble_decode" "$strobe_e2e" "$bumble_e2e" "$strobe_e2e_coalesced" "${scale[@]}" <<'PY'
import json, sys
sd, bd, se, be, sc = (json.loads(a) for a in sys.argv[1:6])
sdf, sef, scf = sd['figures'], se['figures'], sc['figures']
hold = scf['readCoalescingMicroseconds']
held = f"read coalescing {hold:.0f} µs" if hold > 0 else "read coalescing off"
rows = [
    ('decode notifications/s', sdf['notificationsPerSecond'], bd['notifications_per_second'], 'higher is better'),
]
scale = sys.argv[6:]
for i in range(0, len(scale), 3):
    links, ss, bs = scale[i], json.loads(scale[i + 1]), json.loads(scale[i + 2])
    rows.append((f'decode {links} links notifications/s', ss['figures']['notificationsPerSecond'], bs['notifications_per_second'],
                 'higher is better'))
rows += [
    ('e2e connection setup ms', sef['connectionSetupMilliseconds'], be['setup_ms'], 'lower is better'),
    ('e2e notifications/s', sef['notificationsPerSecond'], be['notifications_per_second'], 'the peripheral sets the pace'),
    ('e2e CPU µs per notification', sef['cpuMicrosecondsPerNotification'], be['cpu_us_per_notification'], 'lower is better'),
    ('e2e coalesced: setup ms', scf['connectionSetupMilliseconds'], be['setup_ms'], f'Strobe with {held}'),
    ('e2e coalesced: notifications/s', scf['notificationsPerSecond'], be['notifications_per_second'], f'Strobe with {held}'),
    ('e2e coalesced: CPU µs per notif.', scf['cpuMicrosecondsPerNotification'], be['cpu_us_per_notification'], f'Strobe with {held}'),
]
print(f"{'':32} {'Strobe':>14} {'Bumble':>14} {'Strobe/Bumble':>14}")
for name, s, b, note in rows:
    print(f"{name:32} {s:14.3f} {b:14.3f} {s / b:14.3f}   ({note})")
PY
