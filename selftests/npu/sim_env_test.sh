#!/bin/sh
# SPDX-License-Identifier: MIT
# The in-process device's parameters from the environment: values are used,
# bad values are refused with a message naming the variable and its range;
# the whole suite passes in guard-page mode (NPU_SIM_GUARD=1); and the
# transport refuses a device node of another driver.
BUILD=${BUILD:-build}
T="$BUILD/bin/npu_uapi_test"
n=0
fail=0
check() {	# $1: description, $2: 0 if ok
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		fail=1
	fi
}
echo "1..8"
out=$(NPU_SIM_CORES=1 NPU_SIM_QUEUES=3 NPU_SIM_SEMS=5 NPU_SIM_VRAM_MB=16 \
	NPU_SIM_WATCHDOG_MS=700 "$T" --device sim --group program 2>&1)
echo "$out" | grep -q "1 AI cores, 3 queues, 5 semaphores, 16 MiB VRAM, watchdog 700 ms"
check "NPU_SIM_* values reach DEVICE_INFO" $?
out=$(NPU_SIM_CORES=0 "$T" --device sim 2>&1)
echo "$out" | grep -q "NPU_SIM_CORES=0 is not a number in \[1, 64\]" &&
	echo "$out" | grep -q "SKIP cannot open"
check "NPU_SIM_CORES=0 is refused, naming the variable and its range" $?
out=$(NPU_SIM_VRAM_MB=lots "$T" --device sim 2>&1)
echo "$out" | grep -q "NPU_SIM_VRAM_MB=lots is not a number"
check "NPU_SIM_VRAM_MB=lots is refused" $?
out=$(NPU_SIM_WATCHDOG_MS=5 "$T" --device sim 2>&1)
echo "$out" | grep -q "NPU_SIM_WATCHDOG_MS=5 is not a number in \[10, 3600000\]"
check "NPU_SIM_WATCHDOG_MS below 10 ms is refused" $?
out=$(NPU_SIM_GUARD=1 NPU_SIM_CORES=2 NPU_SIM_VRAM_MB=64 "$T" --device sim 2>&1)
echo "$out" | grep -q "^not ok"
[ $? -ne 0 ] && echo "$out" | grep -q "^1\.\.[1-9]"
check "NPU_SIM_GUARD=1: the uapi suite passes with every task in its own guarded view" $?
out=$(NPU_SIM_GUARD=yes "$T" --device sim 2>&1)
echo "$out" | grep -q "NPU_SIM_GUARD=yes is not a number in \[0, 1\]"
check "NPU_SIM_GUARD=yes is refused" $?
out=$(NPU_SIM_PARK_SPIN_US=1001 "$T" --device sim 2>&1)
echo "$out" | grep -q "NPU_SIM_PARK_SPIN_US=1001 is not a number in \[0, 1000\]"
check "NPU_SIM_PARK_SPIN_US above 1000 us is refused" $?
out=$("$T" --device /dev/null 2>&1)
echo "$out" | grep -q "cannot open NPU device '/dev/null': No such device"
check "a node whose driver is not npu_drv is refused with ENODEV" $?
exit $fail
