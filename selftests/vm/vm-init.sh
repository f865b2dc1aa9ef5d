#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the VM test initramfs: mounts the pseudo file systems, runs
# vm-tests.sh with its TAP output on the second serial port (the first one
# is the kernel console, which the host scans for WARN/BUG/oops/leaks), and
# powers the VM off. Under a debug kernel, it scans for kernel memory leaks
# after the tests (which end with the module unloaded) and reports whether
# lockdep is still on.
export PATH=/bin:/sbin:/usr/bin:/tests
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
# Keep the kernel log verbose on the console, including our pr_info.
echo 8 > /proc/sys/kernel/printk
KMEMLEAK=/sys/kernel/debug/kmemleak
# What leaked before the tests (boot) is not the module's: report it now,
# then forget it.
if [ -w $KMEMLEAK ]; then
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
fi
echo "vm-init: starting tests"
if [ -c /dev/ttyS1 ]; then
	/tests/vm-tests.sh >/dev/ttyS1 2>&1
else
	/tests/vm-tests.sh
fi
if [ -w $KMEMLEAK ]; then
	# An object is reported once it is unreferenced and older than 5 s;
	# the scan that finds leaks also prints "kmemleak: N new suspected
	# memory leaks" to the console, and the report follows.
	sleep 6
	echo scan > $KMEMLEAK
	echo scan > $KMEMLEAK
	cat $KMEMLEAK
	echo "vm-init: kmemleak scanned"
fi
[ -r /proc/lockdep_stats ] &&
	echo "vm-init: debug_locks: $(sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats)"
echo "vm-init: tests finished"
sync
poweroff -f
