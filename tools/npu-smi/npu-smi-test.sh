#!/bin/sh
# SPDX-License-Identifier: MIT
#
# npu-smi on the host (TAP): without a kernel device it says so and how to
# load the driver; the in-process device (--device sim) is reported in
# every output format; bad options are refused with exit status 2. The
# kernel device side runs inside the VM (selftests/vm/vmtest.sh).
BUILD=${BUILD:-build}
SMI=$BUILD/bin/npu-smi
n=0
fails=0
t() {	# $1: description, rest: command
	n=$((n + 1))
	d=$1
	shift
	if "$@"; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		fails=$((fails + 1))
	fi
}

if [ ! -x "$SMI" ]; then
	echo "1..0 # SKIP $SMI not built (run make)"
	exit 0
fi

kernel_dev=0
for d in /sys/class/drm/renderD* /sys/class/accel/accel*; do
	[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = npu_drv ] &&
		kernel_dev=1
done

if [ $kernel_dev -eq 0 ]; then
	out=$("$SMI" 2>&1)
	rc=$?
	t "no kernel device: exit status 1" test $rc -eq 1
	t "no kernel device: says so" sh -c "echo '$out' | grep -q 'no NPU device found'"
	t "no kernel device: says how to load the driver" \
		sh -c "echo '$out' | grep -q 'modprobe npu_drv'"
else
	t "kernel device present: table lists it" sh -c "'$SMI' | grep -q npu_drv"
fi

out=$("$SMI" --device sim 2>&1)
t "--device sim: table shows the in-process device" \
	sh -c "echo '$out' | grep -q 'in-process'"
t "--device sim: table shows its VRAM total" \
	sh -c "echo '$out' | grep -q 'MiB'"

csv=$("$SMI" --device sim --query=name,cores,memory.total,memory.used --format=csv)
t "--query CSV: header names the fields" \
	sh -c "echo '$csv' | head -n 1 | grep -qx 'name, cores, memory.total, memory.used'"
t "--query CSV: one line per device, plain numbers" \
	sh -c "echo '$csv' | awk -F', ' 'NR == 2 && NF == 4 && \$2 > 0 && \$3 > 0 && \$4 == 0 { ok = 1 } END { exit !ok }'"
json=$("$SMI" --device sim --query=name,memory.total --format=json)
t "--query JSON parses and has the fields" \
	sh -c "echo '$json' | /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (len(d) == 1 and d[0][\"memory.total\"] > 0 and \"name\" in d[0]))'"
t "--noheader drops the CSV header" \
	sh -c "test \$('$SMI' --device sim --query=name --noheader | wc -l) -eq 1"
t "-l with --count repeats" \
	sh -c "test \$('$SMI' --device sim --query=name --noheader -l 0.01 --count 3 | wc -l) -eq 3"
mem=$("$SMI" --device sim -t memory)
t "-t memory lists pool statistics" \
	sh -c "echo '$mem' | grep -q 'Largest free block' && echo '$mem' | grep -q Fragmentation"

"$SMI" --query=bogus.field >/dev/null 2>&1
t "unknown --query field: exit status 2" test $? -eq 2
err=$("$SMI" --query=bogus.field 2>&1)
t "unknown --query field: names it" sh -c "echo '$err' | grep -q bogus.field"
"$SMI" --format=xml --query=name >/dev/null 2>&1
t "bad --format: exit status 2" test $? -eq 2
"$SMI" -l -1 >/dev/null 2>&1
t "bad -l: exit status 2" test $? -eq 2

# issue 16: NPU_DEVICE, the "info" command, a bad --device, --version
out=$(NPU_DEVICE=sim "$SMI" 2>&1)
t "NPU_DEVICE=sim selects the in-process device" \
	sh -c "echo '$out' | grep -q 'in-process'"
out=$("$SMI" info --device sim 2>&1)
t "npu-smi info (Ascend's spelling) shows the table" \
	sh -c "echo '$out' | grep -q 'in-process'"
out=$("$SMI" --device /dev/dri/no-such-node 2>&1)
rc=$?
t "a bad --device: exit 1 with a message naming it" \
	sh -c "test $rc -eq 1 && echo '$out' | grep -q -- '--device /dev/dri/no-such-node: ' &&
	       echo '$out' | grep -q 'device sim'"
out=$(NPU_DEVICE=/dev/dri/no-such-node "$SMI" 2>&1)
rc=$?
t "a bad NPU_DEVICE: exit 1 with a message naming it" \
	sh -c "test $rc -eq 1 && echo '$out' | grep -q 'no-such-node'"
# several in-process devices: each its own line, and one by sim:N
csv=$(NPU_SIM_DEVICES=3 "$SMI" --device sim --query=index,name --format=csv --noheader)
t "NPU_SIM_DEVICES=3: --device sim lists sim, sim:1, sim:2" \
	test "$(echo "$csv" | tr '\n' ';')" = "0, sim;1, sim:1;2, sim:2;"
csv=$(NPU_SIM_DEVICES=3 "$SMI" --device sim:2 --query=index,name --format=csv --noheader)
t "--device sim:2 shows that device only" test "$csv" = "2, sim:2"
NPU_SIM_DEVICES=3 "$SMI" --device sim:3 >/dev/null 2>&1
t "--device sim:3 of 3 devices: exit 1" test $? -eq 1
"$SMI" infos >/dev/null 2>&1
t "an unknown command: exit 2" test $? -eq 2
out=$("$SMI" --version)
t "--version ($out)" sh -c "echo '$out' | grep -q '^npu-smi [0-9.]* (uapi [0-9.]*)$'"

echo "1..$n"
[ $fails -eq 0 ]
