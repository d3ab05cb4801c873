#!/bin/busybox sh
# The guest's /init: prepare a minimal system, load the Bluetooth modules, run the
# guest tests and power off. The kernel console is on ttyS0; everything the tests
# print goes to ttyS1, so the host reads their markers without kernel messages mixed in.
/bin/busybox mkdir -p /proc /sys /dev /run /sbin /usr/bin /usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s      # applets, including /sbin/modprobe for request_module()
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
exec </dev/null >/dev/ttyS1 2>&1

echo "init: up after $(cut -d' ' -f1 /proc/uptime)s, kernel $(uname -r)"
# The kernel crypto user API (af_alg, algif_*, ecb, cmac) is what btvirt's emulated
# controllers use for LE encryption; without it they fail to come up.
for m in $(cat /etc/kernel-test/modules); do
    modprobe "$m" || echo "init: modprobe $m failed"
done
echo "init: modules loaded after $(cut -d' ' -f1 /proc/uptime)s"

/bin/sh /test/guest-tests.sh
echo "init: done after $(cut -d' ' -f1 /proc/uptime)s"
sync
poweroff -f
