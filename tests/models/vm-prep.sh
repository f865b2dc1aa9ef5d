#!/bin/sh
# SPDX-License-Identifier: MIT
#
# vm-prep.sh ROOT - put the e2e model tests into the VM's initramfs.
#
# Called by selftests/vm/vmtest.sh with the initramfs root it is packing.
# Compiles the bundled CNN (models/tinynet) and the squeezenet1_1 test model
# (exported by tests/models/export_models.py, cached) with the host's npuc,
# copies npu-run (with its shared libraries), the .om files, inputs and
# torch's expected outputs under ROOT/tests/e2e/, and writes
# ROOT/tests/vm.d/e2e-model.sh, which vm-tests.sh sources inside the VM with
# NPU_DEVICE set to the module's render node: each model runs on the kernel
# module and on the in-process device there, must match torch, and the two
# homes must give bit-identical outputs. Does nothing (and says so) while
# npuc or npu-run is not built.

set -u
ROOT=${1:?usage: vm-prep.sh INITRAMFS_ROOT}
BUILD=${BUILD:-build}
NPUC=${NPUC:-$BUILD/bin/npuc}
NPU_RUN=${NPU_RUN:-$BUILD/bin/npu-run}
E2E=$ROOT/tests/e2e

for t in "$NPUC" "$NPU_RUN"; do
	if [ ! -x "$t" ]; then
		echo "vm-prep: $t not built; no e2e model test in the VM" >&2
		exit 0
	fi
done

# add NAME DIR: compile DIR/model.onnx, copy DIR/inputs and DIR/expected.
add() {
	mkdir -p "$E2E/$1"
	if ! "$NPUC" "$2/model.onnx" -o "$E2E/$1/model.om" \
			> "$BUILD/vm-prep-$1.log" 2>&1; then
		echo "vm-prep: npuc failed on $2/model.onnx (see $BUILD/vm-prep-$1.log)" >&2
		rm -rf "${E2E:?}/$1"
		return 1
	fi
	cp -r "$2/inputs" "$2/expected" "$E2E/$1/"
	# Relative error 1e-4 of the largest |output|, as the host tests.
	/usr/bin/python3 -c 'import sys, numpy as np
print("%.9g" % (1e-4 * np.abs(np.load(sys.argv[1])).max()))' \
		"$2/expected/output_0.npy" > "$E2E/$1/atol" || return 1
	echo "$1" >> "$E2E/models"
}

mkdir -p "$E2E" "$ROOT/tests/vm.d"
: > "$E2E/models"
add tinynet models/tinynet
if /usr/bin/python3 tests/models/export_models.py --out "$BUILD/models" \
		squeezenet1_1 > /dev/null 2>&1; then
	add squeezenet1_1 "$BUILD/models/squeezenet1_1"
fi
cp "$NPU_RUN" "$ROOT/tests/npu-run"
ldd "$NPU_RUN" 2>/dev/null | awk '/=>/ { print $3 } /^\t\// { print $1 }' |
while read -r lib; do
	[ -f "$lib" ] || continue
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done

cat > "$ROOT/tests/vm.d/e2e-model.sh" <<'SNIP'
# Sourced by vm-tests.sh (busybox sh; its ok/not_ok/skip/diag/check helpers)
# with NPU_DEVICE set to the module's render node.
e2e_run() {	# $1: model, $2: device spec, $3: output tag
	/tests/npu-run "/tests/e2e/$1/model.om" --device "$2" \
		--input-dir "/tests/e2e/$1/inputs" -o "/tmp/e2e-$1-$3" \
		--compare "/tests/e2e/$1/expected" --rtol 0 --atol "$4"
}
e2e_check() {	# $1: description, rest: command
	e2e_desc=$1
	shift
	e2e_out=$("$@" 2>&1)
	e2e_rc=$?
	diag "$e2e_out"
	if [ $e2e_rc -eq 0 ]; then ok "$e2e_desc"; else not_ok "$e2e_desc (exit $e2e_rc)"; fi
}
for m in $(cat /tests/e2e/models); do
	atol=$(cat "/tests/e2e/$m/atol")
	if [ -n "${NPU_DEVICE:-}" ] && [ -e "$NPU_DEVICE" ]; then
		e2e_check "e2e: $m on the kernel module ($NPU_DEVICE) matches torch" \
			e2e_run "$m" "$NPU_DEVICE" kmod "$atol"
	else
		skip "e2e: $m on the kernel module" "no npu_drv render node"
	fi
	e2e_check "e2e: $m on the in-process device in the VM matches torch" \
		e2e_run "$m" sim sim "$atol"
	if [ -f "/tmp/e2e-$m-kmod/output_0.npy" ]; then
		check "e2e: $m: kernel module and in-process outputs bit-identical" \
			cmp -s "/tmp/e2e-$m-kmod/output_0.npy" "/tmp/e2e-$m-sim/output_0.npy"
	fi
done
SNIP
echo "vm-prep: e2e model tests ($(tr '\n' ' ' < "$E2E/models")) added to $ROOT"
