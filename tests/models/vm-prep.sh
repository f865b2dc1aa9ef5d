#!/bin/sh
# SPDX-License-Identifier: MIT
#
# vm-prep.sh ROOT - put the e2e model test into the VM's initramfs.
#
# Called by selftests/vm/vmtest.sh with the initramfs root it is packing.
# Compiles the bundled CNN (models/tinynet) with the host's npuc, copies
# npu-run (with its shared libraries), the .om, the input and torch's
# expected output under ROOT/tests/e2e/, and a vm.d snippet that
# vm-tests.sh sources inside the VM: it runs the model on the kernel
# module's render node ($NPU_DEVICE) and compares with torch, and also runs
# it on the in-process device there, so both homes are checked on one
# machine. Does nothing (and says so) while npuc or npu-run is not built.

set -u
ROOT=${1:?usage: vm-prep.sh INITRAMFS_ROOT}
BUILD=${BUILD:-build}
NPUC=${NPUC:-$BUILD/bin/npuc}
NPU_RUN=${NPU_RUN:-$BUILD/bin/npu-run}
M=models/tinynet

for t in "$NPUC" "$NPU_RUN"; do
	if [ ! -x "$t" ]; then
		echo "vm-prep: $t not built; no e2e model test in the VM" >&2
		exit 0
	fi
done

mkdir -p "$ROOT/tests/e2e" "$ROOT/tests/vm.d"
if ! "$NPUC" "$M/model.onnx" -o "$ROOT/tests/e2e/tinynet.om" \
		> "$BUILD/vm-prep-npuc.log" 2>&1; then
	echo "vm-prep: npuc failed on $M/model.onnx (see $BUILD/vm-prep-npuc.log)" >&2
	exit 1
fi
cp -r "$M/inputs" "$M/expected" "$ROOT/tests/e2e/"
cp "$NPU_RUN" "$ROOT/tests/npu-run"
ldd "$NPU_RUN" 2>/dev/null | awk '/=>/ { print $3 } /^\t\// { print $1 }' |
while read -r lib; do
	[ -f "$lib" ] || continue
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done

cat > "$ROOT/tests/vm.d/e2e-model.sh" <<'SNIP'
# Sourced by vm-tests.sh (busybox sh) with NPU_DEVICE set to the module's
# render node: the bundled CNN on the kernel module, then in-process.
e2e_run() {	# $1: device spec
	/tests/npu-run /tests/e2e/tinynet.om --device "$1" \
		--input-dir /tests/e2e/inputs -o "/tmp/e2e-$2" \
		--compare /tests/e2e/expected --rtol 1e-4 --atol 1e-6
}
if [ -n "${NPU_DEVICE:-}" ] && [ -e "$NPU_DEVICE" ]; then
	run_tap "e2e: tinynet on the kernel module ($NPU_DEVICE) matches torch" \
		e2e_run "$NPU_DEVICE" kmod
else
	skip "e2e: tinynet on the kernel module" "no npu_drv render node"
fi
run_tap "e2e: tinynet on the in-process device in the VM matches torch" \
	e2e_run sim sim
if [ -f /tmp/e2e-kmod/output_0.npy ] && [ -f /tmp/e2e-sim/output_0.npy ]; then
	check "e2e: kernel module and in-process outputs are bit-identical" \
		cmp -s /tmp/e2e-kmod/output_0.npy /tmp/e2e-sim/output_0.npy
fi
SNIP
echo "vm-prep: tinynet e2e test added to $ROOT"
