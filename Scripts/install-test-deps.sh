#!/usr/bin/env bash
# Installs what the test suite needs when it is missing:
#   - Debian packages: libbluetooth-dev (headers for the CBlueZ shim), tshark (independent decoder)
#   - a Python venv with the pinned Bumble (virtual controller + GATT peers for interop tests)
#   - a Python venv with the pinned lifx-emulator (virtual LIFX LAN lights)
#   - a Python venv with the pinned RootCanal (a virtual controller that checks encryption keys)
#   - a Python venv with the pinned avatar suite, its Bumble reference and RootCanal (conformance)
# Idempotent: a second run only checks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

need=()
[ -f /usr/include/bluetooth/hci.h ] || need+=(libbluetooth-dev)
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  # tshark asks whether non-root users may capture; answer no without a prompt.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo_cmd debconf-set-selections
  $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi

# A venv per lock file, made again when the lock changes.
make_venv() {
  local venv="$root/$1" lock="$root/$2"
  local stamp="$venv/.installed-$(sha256sum "$lock" | cut -c1-16)"
  if [ ! -f "$stamp" ]; then
    python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "the test venvs need Python >= 3.11")'
    echo "creating the venv $1"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$lock"
    touch "$stamp"
  fi
}
# The four at once: each waits mostly on downloads and unpacking.
pids=()
make_venv .venv-bumble Tests/Fixtures/Bumble/requirements.lock.txt & pids+=($!)
make_venv .venv-lights Tests/Fixtures/LIFX/requirements.lock.txt & pids+=($!)
make_venv .venv-rootcanal Tests/Fixtures/RootCanal/requirements.lock.txt & pids+=($!)
make_venv .venv-avatar Tests/Conformance/requirements.lock.txt & pids+=($!)
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || { echo "install-test-deps: a venv could not be made (above)" >&2; exit 1; }
