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

# The dependencies not loaded yet (modprobe may have loaded them).
load_deps() {
	while read -r m; do
		grep -q "^$(basename "$m" .ko | tr - _) " /proc/modules && continue
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

# As a user loads it: modprobe resolves the DRM dependencies through
# depmod's modules.dep (the module under updates/dkms for a DKMS build).
if [ -r "/lib/modules/$(uname -r)/modules.dep" ]; then
	check "modprobe npu_drv ($(grep -o '[a-z/]*npu_drv.ko' \
		"/lib/modules/$(uname -r)/modules.dep"), dependencies from modules.dep)" \
		modprobe npu_drv
	check "modprobe: the render node of npu_drv exists" \
		test "$(count_nodes)" -eq 1
	check "rmmod npu_drv after modprobe" unload
else
	skip "modprobe npu_drv" "no modules.dep for $(uname -r) in the initramfs"
fi
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

# libdrm's drmGetDevices2() must see every instance as a device of its own
# (a platform device is identified by its MODALIAS: one per instance).
if [ -x /tests/drmdevice ]; then
	load num_devices=2 vram_mb=16
	out=$(/tests/drmdevice 2>&1)
	diag "$(echo "$out" | grep -E 'device\[|fullname')"
	# each device is printed once from drmGetDevices2 and once per node
	# from drmGetDevice2: count the distinct indices and identities
	ndev=$(echo "$out" | grep -o '^device\[[0-9]*\]' | sort -u | wc -l)
	names=$(echo "$out" | sed -n 's/.*fullname[[:space:]]*//p' |
		sort -u | tr '\n' ' ')
	check "drmdevice: drmGetDevices2 reports 2 devices (got $ndev)" \
		test "$ndev" -eq 2
	check "drmdevice: identities npu_drv.0 and npu_drv.1 (got $names)" \
		test "$names" = "npu_drv.0 npu_drv.1 "
	unload
else
	skip "drmdevice reports both devices" "libdrm-tests not installed"
fi

# Peer access: a pinned buffer of one device, imported through PRIME by
# the other, read and written by the other's tasks (test_peer.c).
if [ -x /tests/npu_uapi_test ]; then
	load num_devices=2 vram_mb=16
	node0=$(npu_nodes | head -n 1)
	out=$(/tests/npu_uapi_test --device "$node0" --group peer 2>&1)
	rc=$?
	diag "$out"
	check "peer access between two devices ($(echo "$out" | grep -c '^ok') ok)" \
		sh -c "[ $rc -eq 0 ] && ! echo \"\$0\" | grep -q -e '^not ok' -e SKIP && echo \"\$0\" | grep -q '^ok 10 '" "$out"
	unload
fi

# The collectives over four kernel devices (peer access through PRIME):
# the bits of the same run on four in-process devices (selftests/vm/
# vmtest.sh made them; make check compares those with numpy).
if [ -x /tests/npucl_test ] && [ -d /tests/npucl_ref ]; then
	load num_devices=4 vram_mb=32
	NPUCL_BUFFSIZE=65536 NPUCL_TEST_RANKS=4 NPUCL_TEST_QUICK=1 \
		/tests/npucl_test /tmp/npucl \
		> /tmp/npucl.log 2>&1
	rc=$?
	diag "$(grep -v '^ok' /tmp/npucl.log | head -20)"
	check "npucl_test on 4 kernel devices ($(grep -c '^ok' /tmp/npucl.log) ok, exit $rc)" \
		sh -c "[ $rc -eq 0 ] && ! grep -q '^not ok' /tmp/npucl.log"
	cases=0
	diffs=0
	for d in /tests/npucl_ref/*/; do
		c=$(basename "$d")
		cases=$((cases + 1))
		for f in "$d"out_*.bin; do
			cmp -s "$f" "/tmp/npucl/$c/$(basename "$f")" ||
				{ diffs=$((diffs + 1)); diag "differs: $c/$(basename "$f")"; }
		done
	done
	check "collectives on kernel devices: the in-process bits ($cases cases, $diffs files differ)" \
		test "$cases" -gt 10 -a "$diffs" -eq 0
	rm -rf /tmp/npucl
	unload
fi

if [ -x /tests/npu-smi ]; then
	load num_devices=3 vram_mb=8
	out=$(/tests/npu-smi --query=index,name,memory.total --format=csv --noheader 2>&1)
	diag "$out"
	check "npu-smi lists three devices of 8 MiB" \
		sh -c "test \$(echo '$out' | grep -c ', 8388608\$') -eq 3"
	unload
	/tests/npu-smi > /tmp/smi.out 2>&1
	rc=$?
	check "npu-smi without a device: exit 1 and how to load the driver" \
		sh -c "test $rc -eq 1 && grep -q 'modprobe npu_drv' /tmp/smi.out"
fi

check "insmod npu_drv for the uapi tests" load
node=$(npu_nodes | head -n 1)
export NPU_DEVICE=$node

VMT=/tests/npu_vmtest
if [ -x $VMT ]; then
	for t in basic isolation kill watchdog fdinfo compact mmap compact-race syncobj; do
		run_tap "npu_vmtest $t" $VMT $t
	done
	run_tap "npu_vmtest fuzz 20000" $VMT fuzz 20000
	run_tap "npu_vmtest stress 5" $VMT stress 5
else
	skip "driver tests (npu_vmtest)" "not built"
fi

# debugfs and sysfs of the device.
minor=$(stat -c %T "$node" 2>/dev/null)
minor=$((0x${minor:-0}))
dbg=/sys/kernel/debug/dri/$minor/npu
check "debugfs $dbg has the test-mode knobs" \
	sh -c "cd $dbg && test -f instant -a -f hang -a -f fault -a -f slow_us -a -f watchdog_ms -a -f file_quota"
check "debugfs knob reads back what was written" \
	sh -c "echo 123 > $dbg/slow_us && test \$(cat $dbg/slow_us) = 123 && echo 0 > $dbg/slow_us"
check "debugfs knob refuses a bad value" sh -c "! echo 2 > $dbg/instant 2>/dev/null"
check "debugfs forced compaction" sh -c "echo 0 > $dbg/compact && grep -q 'result: 0' $dbg/compact"
diag "$(cat $dbg/mem_stats $dbg/pool $dbg/queues 2>&1)"
check "debugfs mem_stats, pool and queues readable" \
	sh -c "grep -q vram_total $dbg/mem_stats && grep -q free $dbg/pool && grep -q hw_queue $dbg/queues"
sys=/sys/class/drm/$(basename "$node")/device
check "sysfs vram_total is 64 MiB" test "$(cat $sys/vram_total)" = 67108864
check "sysfs figures readable" \
	sh -c "cat $sys/vram_used $sys/largest_free $sys/fragmentation_ppm $sys/busy_ns $sys/jobs_completed > /dev/null"
check "sysfs counts the jobs that ran" test "$(cat $sys/jobs_completed)" -gt 0

# The uapi selftest of the device core, against the kernel node. The host
# compares these totals with the in-process device's.
if [ -x /tests/npu_uapi_test ]; then
	out=$(/tests/npu_uapi_test 2>&1)
	rc=$?
	diag "$out"
	pass=$(echo "$out" | grep -c '^ok')
	fail=$(echo "$out" | grep -c '^not ok')
	skipped=$(echo "$out" | grep -c '^ok.*# *SKIP')
	echo "# uapi-totals: pass=$pass fail=$fail skip=$skipped"
	check "npu_uapi_test against $node ($pass ok, $fail not ok)" \
		test $rc -eq 0 -a "$fail" -eq 0 -a "$pass" -gt 0
else
	skip "npu_uapi_test" "not built"
fi

# The fuzzer's corpus through the real ioctls: every input refused or run
# to completion or a fault record, and the kernel log clean meanwhile (no
# WARN, BUG, oops, soft lockup or RCU stall).
if [ -x /tests/npu_fuzz_replay ] && [ -d /tests/fuzz_corpus ]; then
	dmesg -c > /dev/null
	run_tap "fuzz corpus replay against $node ($(ls /tests/fuzz_corpus | wc -l) inputs)" \
		/tests/npu_fuzz_replay --device "$node" /tests/fuzz_corpus
	FUZZ_BAD='WARNING:|BUG[: ]|Oops|general protection|Call Trace:|soft lockup|rcu.*stall|hung_task|divide error|UBSAN'
	if dmesg | grep -Eq "$FUZZ_BAD"; then
		not_ok "kernel log clean after the fuzz corpus replay"
		dmesg | grep -E -A8 "$FUZZ_BAD" | head -n 40 | sed 's/^/# /'
	else
		ok "kernel log clean after the fuzz corpus replay"
	fi
else
	skip "fuzz corpus replay" "npu_fuzz_replay not built"
fi

# The bundled model on the kernel node: the same bits as the in-process
# device (the op kernels run with the FPU in the kernel), and torch's
# result within the demo's tolerance.
if [ -x /tests/npu-run ] && [ -f /tests/model/tinynet.om ]; then
	M=/tests/model
	# The in-process device's result on this (virtual) CPU: the op
	# kernels pick their ISA level by CPUID, the same in both homes, but
	# the VM's CPU need not have the host's level.
	/tests/npu-run $M/tinynet.om --device sim --input-dir $M/inputs \
		-o /tmp/sim-out > /dev/null 2>&1
	out=$(/tests/npu-run $M/tinynet.om --device "$node" --input-dir $M/inputs \
		-o /tmp/model-out --compare /tmp/sim-out --rtol 0 --atol 0 2>&1)
	rc=$?
	diag "$out"
	check "tinynet on $node: bit-identical to the in-process device" test $rc -eq 0
	check "tinynet on $node: matches torch (rtol 1e-4, atol 1e-6)" \
		/tests/npu-run $M/tinynet.om --device "$node" --input-dir $M/inputs \
		--compare $M/expected --rtol 1e-4 --atol 1e-6
else
	skip "tinynet on the kernel node" "npuc/npu-run not built"
fi

# Host tasks on the kernel node: the plugin's RoIAlign runs on the host
# engine between the device's semaphore signal and wait (the module's
# SEM_WAIT/SEM_SIGNAL ioctls), against numpy; faulty kernels fail only
# their executions.
if [ -x /tests/npu-run ] && [ -f /tests/plugin/roi.om ]; then
	P=/tests/plugin
	out=$(NPUC_PLUGIN_PATH=$P/plugins /tests/npu-run $P/roi.om \
		--device "$node" -i x=$P/roi_in_x.npy -i rois=$P/roi_in_rois.npy \
		-i bidx=$P/roi_in_bidx.npy --compare $P/ref --loop 3 2>&1)
	rc=$?
	diag "$out"
	check "host task (plugin RoIAlign) on $node: matches numpy" test $rc -eq 0
	if [ -x /tests/test_host_tasks ]; then
		out=$(/tests/test_host_tasks $P $P/plugins/libexample_ops.so \
			$P/libfaulty_ops.so 2>&1)
		rc=$?
		diag "$out"
		check "host engine on $node: faulty kernels fail only their execution" \
			test $rc -eq 0
	fi
else
	skip "host tasks on the kernel node" "plugin models not built"
fi

if [ -x /tests/npu_pool_devtest ]; then
	run_tap "pool pattern test on the device" /tests/npu_pool_devtest
fi

# A process holds 4 MiB mapped: the module must refuse to unload, npu-smi
# must show the device, the memory in use and the process.
if [ -x $VMT ]; then
	mkfifo /tmp/hold.in
	$VMT hold 4 < /tmp/hold.in > /tmp/hold.out 2>&1 &
	holder=$!
	exec 4> /tmp/hold.in
	i=0
	while ! grep -q holding /tmp/hold.out && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "a process holds 4 MiB of VRAM mapped" grep -q holding /tmp/hold.out
	check "rmmod refused while a file is open" sh -c '! rmmod npu_drv 2>/dev/null'
	check "module still loaded and working" loaded
	if [ -x /tests/npu-smi ]; then
		out=$(/tests/npu-smi 2>&1)
		diag "$out"
		check "npu-smi shows the device" sh -c "echo '$out' | grep -q npu_drv"
		check "npu-smi shows the holder (pid $holder) with 4 MiB" \
			sh -c "echo '$out' | grep -E '^\|? *$holder ' | grep -q '4 MiB\|4096 KiB\|4.0 MiB'"
		out=$(/tests/npu-smi --query=name,memory.used,memory.total --format=csv 2>&1)
		diag "$out"
		check "npu-smi --query CSV reports memory.used >= 4 MiB" \
			sh -c "echo '$out' | awk -F', *' 'NR == 2 && \$2 >= 4194304 { ok = 1 } END { exit !ok }'"
		out=$(/tests/npu-smi -t memory 2>&1)
		diag "$out"
		check "npu-smi -t memory shows pool statistics" \
			sh -c "echo '$out' | grep -qi 'largest free'"
	else
		skip "npu-smi" "not built"
	fi
	if [ -x /tests/npu-smi ]; then
		$VMT busy 3 &
		busy=$!
		sleep 1
		out=$(/tests/npu-smi --query=utilization,busy_ns --format=csv --noheader 2>&1)
		diag "busy device: $out"
		check "npu-smi reports utilisation while jobs run" \
			sh -c "echo '$out' | awk -F', *' '\$1 > 0 { ok = 1 } END { exit !ok }'"
		wait $busy
		check "the busy process finished its jobs" test $? -eq 0
	fi
	exec 4>&-
	wait $holder
	check "holder exits when released" test $? -eq 0
	check "rmmod works once the file is closed" unload
	check "reload" load
	rm -f /tmp/hold.in
fi

check "final rmmod npu_drv" unload

# Load-time test modes.
if [ -x $VMT ]; then
	for m in instant fault hang; do
		if load test_mode=$m watchdog_ms=100; then
			run_tap "npu_vmtest testmode ($m)" $VMT testmode
			[ $m = hang ] &&
				run_tap "npu_vmtest hangkill (test_mode=hang)" $VMT hangkill
			check "rmmod after test_mode=$m" unload
		else
			not_ok "insmod test_mode=$m"
		fi
	done
	# Unload while a killed process's job still hangs on an AI core.
	if load test_mode=hang watchdog_ms=5000; then
		run_tap "npu_vmtest hangkill nowait" $VMT hangkill nowait
		check "rmmod while a dead process's job hangs" unload
	else
		not_ok "insmod test_mode=hang watchdog_ms=5000"
	fi
fi
