#!/usr/bin/env bash
# Runs strobe against the real Linux HCI socket layer: boots a stock Debian kernel under
# qemu (software emulation, TCG) from a small initramfs with the bluetooth and hci_vhci
# modules, BlueZ's btvirt (emulated LE controllers) and strobe-lite with its libraries, and runs
# Tests/Kernel/guest-tests.sh inside it. See Tests/Kernel/README.md.
#
#   Scripts/kernel-test.sh [--strobe PATH] [--refresh] [--inject-failure]
#
#   --strobe PATH      put this strobe binary in the guest (with the libraries it links) instead
#                      of building strobe-lite
#   --refresh          download the kernel and bluez-test-tools packages again
#   --inject-failure   add a guest test whose expectation cannot hold (checks the harness)
#
# Environment: KERNEL_TEST_TIMEOUT (seconds for the whole guest run, default 240),
# KERNEL_TEST_MEMORY (guest MiB, default 512).
#
# Needs Debian (apt) on x86_64 and the Swift toolchain. Installs with apt-get what is
# missing (qemu-system-x86, busybox-static, kmod, xz-utils, a C compiler) and keeps
# downloads and build products in .kernel-vm/ at the top of the repository.
# Prints "N passed, M failed" last; exits 0 only if every guest test ran and passed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GUEST=$ROOT/Tests/Kernel
CACHE=$ROOT/.kernel-vm
DEBS=$CACHE/debs
BASE=$CACHE/base
RUN=$CACHE/run
TIMEOUT=${KERNEL_TEST_TIMEOUT:-240}
MEMORY=${KERNEL_TEST_MEMORY:-512}

# Modules the guest loads by name (modprobe pulls in their dependencies). bluetooth and
# hci_vhci give /dev/vhci; btvirt needs the crypto user API (AF_ALG with ecb(aes) and
# cmac(aes)); drbg and ecdh_generic back LE Secure Connections.
GUEST_MODULES="drbg ecdh_generic cmac ecb af_alg algif_hash algif_skcipher bluetooth hci_vhci"
# Where those and their dependencies live in the kernel package.
MODULE_DIRS="kernel/crypto kernel/lib kernel/arch/x86/crypto kernel/net/rfkill kernel/net/bluetooth kernel/drivers/bluetooth"
BASE_FORMAT=1   # bump when the base image layout changes

STROBE_BIN=
REFRESH=0
APPEND_EXTRA=
while [ $# -gt 0 ]; do
    case $1 in
    --strobe) STROBE_BIN=${2:?--strobe needs a path}; shift 2 ;;
    --refresh) REFRESH=1; shift ;;
    --inject-failure) APPEND_EXTRA="$APPEND_EXTRA ktest.inject-failure"; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "kernel-test: unknown option $1" >&2; exit 2 ;;
    esac
done

say() { echo "kernel-test: $*"; }
FINISHED=0
on_exit() {
    local rc=$?
    if [ $FINISHED -eq 0 ]; then
        say "stopped before the guest tests could run (exit status $rc)"
        echo "0 passed, 1 failed"
        [ $rc -ne 0 ] || rc=1
    fi
    exit $rc
}
trap on_exit EXIT
trap '[[ $- != *e* ]] || say "failed: line $LINENO: $BASH_COMMAND" >&2' ERR
die() { say "error: $*" >&2; exit 1; }

T0=$(date +%s.%N)
PHASE_T=$T0
TIMINGS=
phase_done() {  # phase_done NAME: record how long the phase since the last call took
    local t
    t=$(date +%s.%N)
    TIMINGS="$TIMINGS $1=$(awk "BEGIN { printf \"%.1f\", $t - $PHASE_T }")s"
    PHASE_T=$t
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "need root (or sudo) to run: $*"; fi
}

# --- host tools ------------------------------------------------------------------------

[ "$(uname -m)" = x86_64 ] || die "only x86_64 hosts are supported"
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || die "needs a Debian host (apt-get, dpkg-deb)"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
CC_BIN=
for c in ${CC:-} cc gcc clang; do command -v "$c" >/dev/null && { CC_BIN=$c; break; }; done
MISSING=
command -v qemu-system-x86_64 >/dev/null || MISSING="$MISSING qemu-system-x86"
installed busybox-static || MISSING="$MISSING busybox-static"
command -v depmod >/dev/null && command -v modinfo >/dev/null || MISSING="$MISSING kmod"
command -v xz >/dev/null || MISSING="$MISSING xz-utils"
[ -n "$CC_BIN" ] || { MISSING="$MISSING gcc"; CC_BIN=gcc; }
ls /usr/lib/x86_64-linux-gnu/libc.a >/dev/null 2>&1 || MISSING="$MISSING libc6-dev"
if [ -n "$MISSING" ]; then
    say "installing$MISSING"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    as_root apt-get install -y -q --no-install-recommends $MISSING ||
        { as_root apt-get update -q && as_root apt-get install -y -q --no-install-recommends $MISSING; } ||
        die "apt-get install$MISSING failed"
fi
BUSYBOX=$(dpkg -L busybox-static | grep -m1 '/bin/busybox$') || die "busybox-static has no /bin/busybox"
PATH=$PATH:/sbin:/usr/sbin   # depmod, for non-root users
phase_done tools

# --- packages: the Debian kernel and bluez-test-tools (btvirt) ----------------------------

mkdir -p "$DEBS" "$BASE" "$RUN"
KDEB=$(ls "$DEBS"/linux-image-*.deb 2>/dev/null | head -n 1) || true
BDEB=$(ls "$DEBS"/bluez-test-tools_*.deb 2>/dev/null | head -n 1) || true
if [ $REFRESH -eq 1 ] || [ -z "$KDEB" ] || [ -z "$BDEB" ]; then
    kernel_package() {  # the versioned package behind the linux-image-amd64 metapackage
        apt-cache depends linux-image-amd64 2>/dev/null |
            sed -n 's/.*Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n 1
    }
    KPKG=$(kernel_package)
    if [ -z "$KPKG" ]; then
        as_root apt-get update -q
        KPKG=$(kernel_package)
    fi
    [ -n "$KPKG" ] || die "apt knows no linux-image-amd64 (is this Debian?)"
    say "downloading $KPKG and bluez-test-tools"
    rm -rf "$DEBS.new" && mkdir -p "$DEBS.new"
    sandbox=()
    [ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)   # root: skip the _apt user
    (cd "$DEBS.new" && apt-get download -q "${sandbox[@]}" "$KPKG" bluez-test-tools) ||
        die "apt-get download $KPKG bluez-test-tools failed"
    rm -rf "$DEBS" && mv "$DEBS.new" "$DEBS"
    KDEB=$(ls "$DEBS"/linux-image-*.deb | head -n 1)
    BDEB=$(ls "$DEBS"/bluez-test-tools_*.deb | head -n 1)
fi
say "kernel package $(basename "$KDEB"), $(basename "$BDEB")"
phase_done packages

# --- base image: kernel, modules, busybox, btvirt (rebuilt only when its inputs change) ----

STAMP="$BASE_FORMAT $(basename "$KDEB") $(basename "$BDEB") $(stat -c %s "$BUSYBOX") $GUEST_MODULES"
if [ "$(cat "$BASE/stamp" 2>/dev/null)" != "$STAMP" ]; then
    say "building the base image"
    rm -rf "$BASE" && mkdir -p "$BASE"
    K=$BASE/kpkg
    R=$BASE/rootfs
    mkdir -p "$K" "$R"
    # Only what is needed: a full unpack of the kernel package is about 400 MB. Newer
    # packages may keep modules under /usr/lib, so ask for both (tar reports the absent one).
    patterns=('./boot/vmlinuz-*')
    for prefix in ./lib/modules ./usr/lib/modules; do
        patterns+=("$prefix/*/modules.order" "$prefix/*/modules.builtin" "$prefix/*/modules.builtin.modinfo")
        for d in $MODULE_DIRS; do patterns+=("$prefix/*/$d/*"); done
    done
    dpkg-deb --fsys-tarfile "$KDEB" | tar -x -C "$K" --wildcards "${patterns[@]}" 2>/dev/null || true
    KMODS=$(ls -d "$K"/lib/modules/* "$K"/usr/lib/modules/* 2>/dev/null | head -n 1) || true
    [ -n "$KMODS" ] && [ -d "$KMODS/kernel" ] || die "no kernel modules found in $(basename "$KDEB")"
    KV=$(basename "$KMODS")
    VMLINUZ=$K/boot/vmlinuz-$KV
    [ -f "$VMLINUZ" ] || die "no /boot/vmlinuz-$KV in $(basename "$KDEB")"

    # Copy the wanted modules and everything they depend on, uncompressed.
    declare -A module_file=()
    while IFS= read -r f; do
        n=$(basename "$f"); n=${n%%.ko*}; module_file[${n//-/_}]=$f
    done < <(find "$KMODS/kernel" -name '*.ko*')
    declare -A copied=()
    queue=()
    loaded=
    for m in $GUEST_MODULES; do
        if [ -n "${module_file[$m]:-}" ]; then queue+=("$m"); loaded="$loaded $m"
        elif grep -qE "/${m//_/[-_]}\.ko" "$KMODS/modules.builtin" 2>/dev/null; then :
        else die "module $m is neither in $(basename "$KDEB") nor built in"; fi
    done
    while [ ${#queue[@]} -gt 0 ]; do
        m=${queue[0]}; queue=("${queue[@]:1}")
        [ -z "${copied[$m]:-}" ] || continue
        src=${module_file[$m]:-}
        [ -n "$src" ] || die "module $m (a dependency) is not under: $MODULE_DIRS"
        rel=${src#"$KMODS"/}; rel=${rel%%.ko*}.ko
        mkdir -p "$R/lib/modules/$KV/$(dirname "$rel")"
        case $src in
        *.xz) xz -dc "$src" >"$R/lib/modules/$KV/$rel" ;;
        *.zst) zstd -qdc "$src" >"$R/lib/modules/$KV/$rel" ;;
        *.gz) gzip -dc "$src" >"$R/lib/modules/$KV/$rel" ;;
        *) cp "$src" "$R/lib/modules/$KV/$rel" ;;
        esac
        copied[$m]=1
        for d in $(modinfo -F depends "$R/lib/modules/$KV/$rel" | tr ',' ' '); do queue+=("${d//-/_}"); done
    done
    cp "$KMODS"/modules.order "$KMODS"/modules.builtin* "$R/lib/modules/$KV/" 2>/dev/null || true
    depmod -b "$R" "$KV"
    mkdir -p "$R/etc/kernel-test"
    echo "$loaded" >"$R/etc/kernel-test/modules"

    mkdir -p "$R/bin"
    cp "$BUSYBOX" "$R/bin/busybox"
    ln -s busybox "$R/bin/sh"
    dpkg-deb --fsys-tarfile "$BDEB" | tar -x -C "$K" ./usr/bin/btvirt
    cp "$K/usr/bin/btvirt" "$R/bin/"
    # btvirt is dynamically linked: bring its libraries and loader from this host, which
    # runs the same release the package came from.
    for lib in $(ldd "$R/bin/btvirt" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p'); do
        mkdir -p "$R$(dirname "$lib")"
        cp -L "$lib" "$R$lib"
    done

    # The uncompressed kernel boots through qemu's PVH entry and saves the ~3 s that
    # decompressing the bzImage takes under emulation; fall back to the bzImage.
    KERNEL=$VMLINUZ
    for off in $(LC_ALL=C grep -obUaF "$(printf '\3757zXZ')" "$VMLINUZ" | cut -d: -f1); do
        tail -c +$((off + 1)) "$VMLINUZ" | xz -dc --single-stream >"$BASE/vmlinux" 2>/dev/null || true
        if [ "$(head -c 4 "$BASE/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]; then
            KERNEL=$BASE/vmlinux
            break
        fi
    done
    [ "$KERNEL" = "$BASE/vmlinux" ] || rm -f "$BASE/vmlinux"
    cp "$VMLINUZ" "$BASE/vmlinuz"
    echo "${KERNEL##*/}" >"$BASE/kernel"
    (cd "$R" && find . | sort | "$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -6 >"$BASE/base.cpio.gz"
    rm -rf "$K"
    echo "$STAMP" >"$BASE/stamp"
fi
KERNEL=$BASE/$(cat "$BASE/kernel")
phase_done base

# --- overlay: guest scripts, hci-helper and strobe --------------------------------------

O=$RUN/overlay
rm -rf "$O" && mkdir -p "$O/bin" "$O/test"
"$CC_BIN" -O2 -static -Wall -Wextra -Werror -o "$O/bin/hci-helper" "$GUEST/hci-helper.c"
if [ -z "$STROBE_BIN" ]; then
    # strobe-lite: the strobe tool without the LIFX HTTP backend (no HTTP client, swift-nio or
    # TLS), from the package's debug build when run alone (the test command passes its release
    # build's with --strobe).
    say "building strobe-lite"
    swift build --product strobe-lite --package-path "$ROOT" || die "swift build failed"
    STROBE_BIN=$(swift build --package-path "$ROOT" --show-bin-path)/strobe-lite
fi
[ -x "$STROBE_BIN" ] || die "no strobe binary at $STROBE_BIN"
STRIP=$(command -v strip || command -v llvm-strip || true)
# Stripped, the binary is a fraction of the size: a smaller initramfs boots faster.
[ -n "$STRIP" ] && "$STRIP" -o "$O/bin/strobe" "$STROBE_BIN" 2>/dev/null || cp "$STROBE_BIN" "$O/bin/strobe"
# Its libraries (the Swift runtime, Foundation, the C library) and loader come from this host,
# at the paths the binary looks for them; a static binary has none.
for lib in $(ldd "$STROBE_BIN" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p'); do
    mkdir -p "$O$(dirname "$lib")"
    cp -L "$lib" "$O$lib"
done
cp "$GUEST/init.sh" "$O/init"
cp "$GUEST/guest-tests.sh" "$O/test/guest-tests.sh"
chmod 755 "$O/init" "$O/bin/"* "$O/test/guest-tests.sh"
# Linux unpacks concatenated cpio archives in order, so the overlay is simply appended.
(cd "$O" && find . | sort | "$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$RUN/overlay.cpio.gz"
cat "$BASE/base.cpio.gz" "$RUN/overlay.cpio.gz" >"$RUN/initrd"
phase_done overlay

# --- boot -------------------------------------------------------------------------------

# ttyS0: kernel console, kept in console.log. ttyS1: the guest tests' output, read here.
# KVM is not used: emulation is what works everywhere, CI included. qemu exits 0 even when
# the guest kernel panics, so the verdict comes only from the KTEST markers.
say "booting $(basename "$KERNEL") under qemu (TCG), time limit ${TIMEOUT}s"
: >"$RUN/console.log"
: >"$RUN/tests.log"
boot_start=$(date +%s.%N)
set +e
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -machine pc -accel tcg -cpu max -smp 1 -m "$MEMORY" \
    -display none -monitor none -nodefaults -no-reboot \
    -serial "file:$RUN/console.log" -serial stdio \
    -kernel "$KERNEL" -initrd "$RUN/initrd" \
    -append "console=ttyS0 panic=-1 quiet loglevel=4$APPEND_EXTRA" </dev/null |
    while IFS= read -r line; do
        line=${line%$'\r'}
        printf '%s\n' "$line" >>"$RUN/tests.log"
        printf '[%6.2f] %s\n' "$(awk "BEGIN { print $(date +%s.%N) - $boot_start }")" "$line"
    done
qemu_rc=${PIPESTATUS[0]}
set -e
phase_done boot

# --- verdict ----------------------------------------------------------------------------

plan=$(sed -n 's/^KTEST PLAN \([0-9][0-9]*\)$/\1/p' "$RUN/tests.log" | tail -n 1)
passed=$(grep -c '^KTEST PASS ' "$RUN/tests.log" || true)
failed=$(grep -c '^KTEST FAIL ' "$RUN/tests.log" || true)
ended=$(grep -c '^KTEST END$' "$RUN/tests.log" || true)
problems=()
[ "$qemu_rc" -ne 124 ] && [ "$qemu_rc" -ne 137 ] || problems+=("the guest did not finish within ${TIMEOUT}s")
if [ -z "$plan" ]; then
    problems+=("the guest tests never started")
    failed=$((failed + 1))
elif [ $((passed + failed)) -lt "$plan" ]; then
    problems+=("only $((passed + failed)) of $plan guest tests reported")
    failed=$((failed + plan - passed - failed))
elif [ "$ended" -eq 0 ]; then
    problems+=("the guest tests did not report their end")
    failed=$((failed + 1))
fi
grep '^KTEST FAIL ' "$RUN/tests.log" | sed 's/^KTEST /kernel-test: /' || true
for p in "${problems[@]}"; do say "$p"; done
if [ ${#problems[@]} -gt 0 ]; then
    say "last lines of the kernel console ($RUN/console.log):"
    tail -n 25 "$RUN/console.log" | tr -d '\r' | sed 's/^/    /'
fi
phase_done verdict
say "times:$TIMINGS total=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $T0 }")s"
FINISHED=1
echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then exit 0; else exit 1; fi
