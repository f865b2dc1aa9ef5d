#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the VM test initramfs: mounts the pseudo file systems, runs
# vm-tests.sh with its TAP output on the second serial port (the first one
# is the kernel console, which the host scans for WARN/BUG/oops/leaks), and
# powers the VM off.
export PATH=/bin:/sbin:/usr/bin:/tests
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
# Keep the kernel log verbose on the console, including our pr_info.
echo 8 > /proc/sys/kernel/printk
echo "vm-init: starting tests"
if [ -c /dev/ttyS1 ]; then
	/tests/vm-tests.sh >/dev/ttyS1 2>&1
else
	/tests/vm-tests.sh
fi
echo "vm-init: tests finished"
sync
poweroff -f
