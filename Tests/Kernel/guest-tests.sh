#!/bin/sh
# Guest tests: the kernel's HCI user channel, driven by hci-helper and by strobe,
# against two emulated LE controllers (btvirt -l2: hci0 and hci1, which hear each other).
#
# Protocol read by Scripts/kernel-test.sh on the host (one marker per line):
#   KTEST PLAN <n>             how many tests follow
#   KTEST PASS <name> (<s>s)   a passing test
#   KTEST FAIL <name>: <why>   a failing test, followed by its commands and their output
#   KTEST END                  all tests ran
# The tests run in this order and later ones rely on earlier ones (btvirt is started by
# btvirt-controllers and left running).

TESTS="kernel-modules btvirt-controllers user-channel-reset
kernel-no-such-device kernel-busy kernel-no-capability
strobe-runs strobe-info-json strobe-advertise-scan
strobe-no-such-device strobe-busy strobe-no-capability"
# Booted with ktest.inject-failure: add one expectation that cannot hold, to show that a
# failing expectation fails the run.
case " $(cat /proc/cmdline) " in *" ktest.inject-failure "*) TESTS="$TESTS injected-failure";; esac

T=/run/ktest
LIMIT=30           # seconds any one command may take
mkdir -p $T

now() { cut -d' ' -f1 /proc/uptime; }
fail() { echo "WHY: $*"; exit 1; }

# run_cmd PROG ARGS...: run under a time limit, keep stdout in $T/out and stderr in $T/err,
# the exit status in RC, and copy all of it into the test's log.
run_cmd() {
    echo "\$ $*"
    timeout $LIMIT "$@" >$T/out 2>$T/err
    RC=$?
    show $T/out $T/err $RC
}
show() {
    sed 's/^/  stdout| /' "$1"
    sed 's/^/  stderr| /' "$2"
    echo "  exit status $3"
}
# JSON may be pretty-printed or compact, one object or many: look at it as one line.
flat() { tr -d '\r\n' <"$1"; }
json_string() { flat "$1" | sed -n "s/.*\"$2\"[[:space:]]*:[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p"; }
json_number() { flat "$1" | sed -n "s/.*\"$2\"[[:space:]]*:[[:space:]]*\\([0-9][0-9]*\\).*/\\1/p"; }

# expect_error CODE TEXT: the last command exited CODE with a one-line error containing TEXT.
expect_error() {
    [ "$RC" -eq "$1" ] || fail "expected exit status $1, got $RC"
    grep -qiF -- "$2" $T/err || fail "stderr does not mention \"$2\""
    [ "$(grep -c . $T/err)" -eq 1 ] || fail "stderr is not a one-line error"
}

# hold IDX: keep hciIDX open on the user channel from a background hci-helper until the
# test ends. Waits for it to report that it holds the device.
hold() {
    hci-helper hold "$1" >$T/hold.out 2>&1 &
    HOLDER=$!
    trap 'kill $HOLDER 2>/dev/null; wait $HOLDER 2>/dev/null' EXIT
    i=0
    until grep -q "^holding hci$1" $T/hold.out; do
        kill -0 $HOLDER 2>/dev/null || { cat $T/hold.out; fail "hci-helper could not hold hci$1"; }
        [ $i -lt 100 ] || fail "hci-helper did not report holding hci$1 within 10 s"
        sleep 0.1; i=$((i + 1))
    done
    echo "(hci$1 is held by a background hci-helper, pid $HOLDER)"
}

# --- kernel and environment ----------------------------------------------------------

test_kernel_modules() {
    for m in bluetooth hci_vhci; do
        [ -d /sys/module/$m ] || fail "module $m is not loaded"
    done
    [ -c /dev/vhci ] || fail "/dev/vhci is missing"
    echo "bluetooth and hci_vhci are loaded; /dev/vhci is present"
}

test_btvirt_controllers() {
    btvirt -l2 >/run/btvirt.log 2>&1 &
    echo "btvirt -l2 started, pid $!"
    i=0
    until [ -e /sys/class/bluetooth/hci0 ] && [ -e /sys/class/bluetooth/hci1 ]; do
        kill -0 $! 2>/dev/null || { cat /run/btvirt.log; fail "btvirt exited"; }
        [ $i -lt 100 ] || { ls /sys/class/bluetooth; fail "hci0 and hci1 did not appear within 10 s"; }
        sleep 0.1; i=$((i + 1))
    done
    ls /sys/class/bluetooth
}

# Also lets both controllers finish the kernel's own setup, so later tests find them idle.
test_user_channel_reset() {
    for i in 0 1; do
        run_cmd hci-helper reset $i
        [ $RC -eq 0 ] || fail "HCI_Reset over the user channel of hci$i failed"
    done
}

# What the kernel answers in each error case, for both steps of opening a device: bring
# it down (HCIDEVDOWN) and bind the user channel. strobe's messages rest on these.
test_kernel_no_such_device() {
    for step in down bind; do
        run_cmd hci-helper $step 7
        [ $RC -eq 1 ] && grep -q ENODEV $T/out || fail "$step hci7 did not fail with ENODEV"
    done
}

test_kernel_busy() {
    hold 1
    for step in down bind; do
        run_cmd hci-helper $step 1
        [ $RC -eq 1 ] && grep -q EBUSY $T/out || fail "$step of a held hci1 did not fail with EBUSY"
    done
}

test_kernel_no_capability() {
    run_cmd hci-helper unprivileged id -u
    [ "$(cat $T/out)" = 65534 ] || fail "could not drop to uid 65534"
    for step in down bind; do
        run_cmd hci-helper unprivileged hci-helper $step 0
        [ $RC -eq 1 ] && grep -q EPERM $T/out || fail "$step hci0 without CAP_NET_ADMIN did not fail with EPERM"
    done
}

# --- strobe --------------------------------------------------------------------------

test_strobe_runs() {
    run_cmd strobe --help
    [ $RC -eq 0 ] || fail "strobe --help exited $RC"
    [ -s $T/out ] || fail "strobe --help printed nothing"
}

test_strobe_info_json() {
    run_cmd strobe --transport hci:0 info --json
    [ $RC -eq 0 ] || fail "exit status $RC"
    address=$(json_string $T/out address)
    length=$(json_number $T/out leACLLength)
    count=$(json_number $T/out leACLCount)
    echo "address=$address leACLLength=$length leACLCount=$count"
    echo "$address" | grep -qiE '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' ||
        fail "no \"address\" of the form XX:XX:XX:XX:XX:XX in the JSON"
    [ -n "$length" ] && [ "$length" -gt 0 ] || fail "\"leACLLength\" is missing or not > 0"
    [ -n "$count" ] && [ "$count" -gt 0 ] || fail "\"leACLCount\" is missing or not > 0"
}

test_strobe_advertise_scan() {
    echo "\$ strobe --transport hci:0 advertise --name KernelAdv --duration 5 &"
    timeout $LIMIT strobe --transport hci:0 advertise --name KernelAdv --duration 5 \
        >$T/adv.out 2>$T/adv.err &
    advertiser=$!
    run_cmd strobe --transport hci:1 scan --duration 3 --json
    wait $advertiser
    adv_rc=$?
    echo "advertiser:"
    show $T/adv.out $T/adv.err $adv_rc
    [ $RC -eq 0 ] || fail "scan exited $RC"
    flat $T/out | grep -qE '"name"[[:space:]]*:[[:space:]]*"KernelAdv"' ||
        fail "the scan did not report \"name\":\"KernelAdv\""
    [ $adv_rc -eq 0 ] || fail "advertise exited $adv_rc"
}

test_strobe_no_such_device() {
    run_cmd strobe --transport hci:7 info
    expect_error 1 "no such device"
}

test_strobe_busy() {
    hold 1
    run_cmd strobe --transport hci:1 info
    expect_error 1 "busy"
}

test_strobe_no_capability() {
    run_cmd hci-helper unprivileged strobe --transport hci:0 info
    expect_error 1 "CAP_NET_ADMIN"
}

test_injected_failure() {
    run_cmd hci-helper bind 9
    [ $RC -eq 0 ] || fail "hci9 does not exist (this test is meant to fail)"
}

# --- runner --------------------------------------------------------------------------

echo "KTEST PLAN $(echo $TESTS | wc -w)"
for name in $TESTS; do
    start=$(now)
    ( "test_$(echo $name | tr - _)" ) >$T/log 2>&1
    rc=$?
    took=$(awk "BEGIN { printf \"%.2f\", $(now) - $start }")
    if [ $rc -eq 0 ]; then
        echo "KTEST PASS $name (${took}s)"
    else
        why=$(sed -n 's/^WHY: //p' $T/log | tail -n 1)
        echo "KTEST FAIL $name: ${why:-exit status $rc} (${took}s)"
        grep -v '^WHY: ' $T/log | sed 's/^/    /'
    fi
done
echo "KTEST END"
