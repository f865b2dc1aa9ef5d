#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The tests that run inside the VM (busybox sh). Prints TAP lines without
# numbers ("ok - ...", "not ok - ...", "# ..."); the host numbers them.
# Expects the module and its dependencies in /lib/modules (load order in
# /lib/modules/load-order) and the test programs in /tests.

MOD=/lib/modules/npu_drv.ko

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
skip() { echo "ok - $1 # SKIP $2"; }
diag() { echo "$*" | sed 's/^/# /'; }
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

load_deps() {
	while read -r m; do
		insmod "/lib/modules/$m" || return 1
	done < /lib/modules/load-order
}

load() { insmod "$MOD" "$@"; }
unload() { rmmod npu_drv; }
loaded() { grep -q '^npu_drv ' /proc/modules; }

# The render nodes whose driver is npu_drv.
npu_nodes() {
	for d in /sys/class/drm/renderD*; do
		[ -e "$d/device/driver" ] || continue
		[ "$(basename "$(readlink "$d/device/driver")")" = npu_drv ] &&
			echo "/dev/dri/$(basename "$d")"
	done
}
count_nodes() { npu_nodes | wc -l; }

# A test program's own TAP output is folded into one result line; its
# lines are kept as diagnostics.
run_tap() {
	desc=$1
	shift
	out=$("$@" 2>&1)
	rc=$?
	diag "$out"
	if [ $rc -eq 0 ] && ! echo "$out" | grep -q '^not ok'; then
		ok "$desc ($(echo "$out" | grep -c '^ok') passed)"
	else
		not_ok "$desc (exit $rc)"
	fi
}

check "load DRM dependencies" load_deps
check "insmod npu_drv" load
check "render node of driver npu_drv exists" test "$(count_nodes)" -eq 1
node=$(npu_nodes | head -n 1)
diag "node: $node"
check "module parameter vram_mb readable" \
	test "$(cat /sys/module/npu_drv/parameters/vram_mb)" = 64
check "rmmod npu_drv" unload
check "no render node after unload" test "$(count_nodes)" -eq 0

# Bad parameters are refused with a message that names the fix.
dmesg -c > /dev/null
check "vram_mb=0 refused" sh -c "! insmod $MOD vram_mb=0 2>/dev/null"
check "refusal explains the range" sh -c "dmesg | grep -q 'vram_mb=0 out of range'"
check "test_mode=bogus refused" sh -c "! insmod $MOD test_mode=bogus 2>/dev/null"

# Load/unload cycles, with several devices.
cycles_ok=1
for i in 1 2 3 4 5; do
	load num_devices=2 vram_mb=16 || cycles_ok=0
	[ "$(count_nodes)" -eq 2 ] || cycles_ok=0
	unload || cycles_ok=0
done
check "5 load/unload cycles with num_devices=2" test $cycles_ok -eq 1

check "insmod npu_drv for the uapi tests" load
node=$(npu_nodes | head -n 1)
export NPU_DEVICE=$node

# Suites that need the test programs; each is skipped when not built.
for t in /tests/vm.d/*.sh; do
	[ -e "$t" ] && . "$t"
done

check "final rmmod npu_drv" unload
