#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh - boots the npu_drv kernel module in a QEMU VM and reports TAP.
#
# Builds the module against Debian's linux-headers-*-amd64, packs an
# initramfs (busybox-static, the module and its DRM dependencies resolved
# through modules.dep, also as a module tree with depmod's modules.dep for
# `modprobe npu_drv`, the test programs with their shared libraries),
# boots /boot/vmlinuz-<kver> with slub_debug on, runs vm-tests.sh inside and
# turns its results (second serial port) into TAP. The kernel console (first
# serial port) must be free of WARN, BUG, oops and leak reports.
#
# Run from the repository root after `make` (or through `make vmtest`).
# Environment: BUILD (default build), KDIR, VMTEST_TIMEOUT (seconds, 600),
# VMTEST_ACCEL=kvm to use KVM instead of software emulation, VMTEST_KO=
# a module built elsewhere (DKMS: debian/tests/check-deb.sh) to test
# instead of building kernel/npu_drv.
#
# Another kernel (`make vmtest-debug` boots the KASAN/lockdep/kmemleak one):
#   KDIR       its build tree (the module is built against it)
#   KIMG       its image (default /boot/vmlinuz-<release of KDIR>)
#   MODDIR     its module tree, for npu_drv's dependencies (default
#              /lib/modules/<release>; not needed when they are built in)
#   MODBUILD   where to build npu_drv.ko (default kernel/npu_drv itself);
#              another directory gets a tree of links to the sources, so
#              that two kernels' objects do not overwrite each other
#   VMTEST_WORK     logs and initramfs (default $BUILD/vmtest)
#   VMTEST_CMDLINE  kernel command line (default
#              'console=ttyS0 panic=-1 slub_debug=FZPU')
#   VMTEST_MEM      guest memory (default 1G)
# When KDIR's .config enables KASAN, lockdep or kmemleak, the run also
# checks that each was active to the end, and kmemleak is scanned after the
# last rmmod.

set -u
BUILD=${BUILD:-build}
WORK=${VMTEST_WORK:-$BUILD/vmtest}
TIMEOUT=${VMTEST_TIMEOUT:-600}
CMDLINE=${VMTEST_CMDLINE:-console=ttyS0 panic=-1 slub_debug=FZPU}
MEM=${VMTEST_MEM:-1G}
HERE=selftests/vm

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	skip_all "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
# busybox-static installs /bin/busybox (a dynamic busybox works too: its
# libraries are copied like the test programs' ones).
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] || skip_all "busybox not installed (apt-get install busybox-static)"
command -v cpio >/dev/null 2>&1 || skip_all "cpio not installed"
KDIR=${KDIR:-$(make -s --no-print-directory -C kernel/npu_drv kdir)}
[ -f "$KDIR/Makefile" ] ||
	skip_all "no kernel headers (apt-get install linux-headers-amd64)"
KREL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$KDIR/include/generated/utsrelease.h" 2>/dev/null)
KIMG=${KIMG:-/boot/vmlinuz-$KREL}
[ -r "$KIMG" ] || skip_all "no readable kernel image $KIMG (apt-get install linux-image-amd64)"
MODDIR=${MODDIR:-/lib/modules/$KREL}
MODBUILD=${MODBUILD:-kernel/npu_drv}
# The checkers the kernel was built with.
kconfig_y() { grep -qx "$1=y" "$KDIR/.config" 2>/dev/null; }

mkdir -p "$WORK"
# One run at a time per build directory: a second `make check` in the same
# tree waits instead of rebuilding the module and the initramfs under us.
exec 9> "$WORK/.lock"
if command -v flock >/dev/null 2>&1 && ! flock -w 600 9; then
	echo "1..0 # SKIP another vmtest holds $WORK/.lock"
	exit 0
fi
rm -rf "$WORK/root"
ROOT=$WORK/root

# 1. The module, in kernel/npu_drv or in a tree of links to its sources
# (rebuilt each run: sources may have come or gone; objects stay).
if [ "$MODBUILD" != kernel/npu_drv ] && [ -z "${VMTEST_KO:-}" ]; then
	mkdir -p "$MODBUILD/uapi/drm"
	find "$MODBUILD" -type l -delete
	top=$(pwd)
	(cd kernel/npu_drv && find . \( -name '*.[ch]' ! -name '*.mod.c' \) \
		-o -name Kbuild -o -name Makefile) |
	while read -r f; do
		mkdir -p "$MODBUILD/$(dirname "$f")"
		ln -s "$top/kernel/npu_drv/$f" "$MODBUILD/$f"
	done
	ln -s "$top/uapi/drm/npu_drm.h" "$MODBUILD/uapi/drm/npu_drm.h"
fi
MODULE=${VMTEST_KO:-$MODBUILD/npu_drv.ko}
if [ -n "${VMTEST_KO:-}" ]; then
	[ -f "$MODULE" ] || { echo "1..1"; echo "not ok 1 - VMTEST_KO=$MODULE: no such file"; exit 1; }
elif ! make -s --no-print-directory -C "$MODBUILD" KDIR="$(cd "$KDIR" && pwd)" NPU_WERROR=1 \
		>"$WORK/kbuild.log" 2>&1; then
	echo "1..1"
	echo "not ok 1 - build npu_drv.ko against $KDIR"
	sed 's/^/# /' "$WORK/kbuild.log" | tail -n 40
	exit 1
fi
DEPS=$(modinfo -F depends "$MODULE" | tr ',' ' ')
[ -z "$DEPS" ] || [ -r "$MODDIR/modules.dep" ] || skip_all "no $MODDIR/modules.dep"

# 2. The initramfs.
mkdir -p "$ROOT/bin" "$ROOT/sbin" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" \
	"$ROOT/tmp" "$ROOT/tests" "$ROOT/lib/modules" "$ROOT/usr/bin"
# The shared libraries of a program (none for static ones), with the
# loader, at their host paths.
copy_libs() {
	ldd "$1" 2>/dev/null | awk '/=>/ { print $3 } /^\t\// { print $1 }' |
	while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$ROOT$(dirname "$lib")"
		cp -L "$lib" "$ROOT$lib"
	done
}
cp "$BUSYBOX" "$ROOT/bin/busybox"
copy_libs "$BUSYBOX"
for a in $("$BUSYBOX" --list); do
	[ -e "$ROOT/bin/$a" ] || ln -s busybox "$ROOT/bin/$a"
done
cp "$HERE/vm-init.sh" "$ROOT/init"
cp "$HERE/vm-tests.sh" "$ROOT/tests/"
cp "$MODULE" "$ROOT/lib/modules/npu_drv.ko"

# Dependencies of npu_drv.ko in load order, through modules.dep.
deps_of() {
	awk -v m="$1" -F': *' '$1 ~ "/" m "\\.ko(\\.[a-z]+)?$" { print $2 }' \
		"$MODDIR/modules.dep"
}
: > "$ROOT/lib/modules/load-order"
add_module() {	# $1: path relative to $MODDIR
	for d in $(awk -v p="$1" -F': *' '$1 == p { print $2 }' "$MODDIR/modules.dep"); do
		add_module "$d"
	done
	grep -qx "$(basename "$1" | sed 's/\.xz$//;s/\.zst$//')" \
		"$ROOT/lib/modules/load-order" && return
	case $1 in
	*.ko.xz) xz -dc "$MODDIR/$1" > "$ROOT/lib/modules/$(basename "$1" .xz)" ;;
	*.ko.zst) zstd -qdc "$MODDIR/$1" > "$ROOT/lib/modules/$(basename "$1" .zst)" ;;
	*) cp "$MODDIR/$1" "$ROOT/lib/modules/" ;;
	esac
	basename "$1" | sed 's/\.xz$//;s/\.zst$//' >> "$ROOT/lib/modules/load-order"
	# ... and at its place in the kernel's tree, for modprobe
	t=$ROOT/lib/modules/$KREL/$(echo "$1" | sed 's/\.xz$//;s/\.zst$//')
	mkdir -p "$(dirname "$t")"
	ln "$ROOT/lib/modules/$(basename "$t")" "$t"
}
for dep in $DEPS; do
	path=$(awk -F: -v m="$dep" '{ n = $1; sub(".*/", "", n); sub("\\.ko.*", "", n);
		gsub("-", "_", n) } n == m { print $1; exit }' "$MODDIR/modules.dep")
	[ -n "$path" ] || { echo "1..0 # SKIP module $dep not in $MODDIR"; exit 0; }
	add_module "$path"
done
# A module tree for modprobe: the dependencies where the kernel has them,
# npu_drv where DKMS (updates/dkms) or kbuild's modules_install (extra)
# puts it, and modules.dep made by the host's depmod for that tree.
# vm-tests.sh's first load is `modprobe npu_drv`.
if command -v depmod >/dev/null 2>&1 || [ -x /sbin/depmod ]; then
	DEPMOD=$(command -v depmod || echo /sbin/depmod)
	sub=extra
	[ -n "${VMTEST_KO:-}" ] && sub=updates/dkms
	mkdir -p "$ROOT/lib/modules/$KREL/$sub"
	ln "$ROOT/lib/modules/npu_drv.ko" "$ROOT/lib/modules/$KREL/$sub/npu_drv.ko"
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		[ -r "$MODDIR/$f" ] && cp "$MODDIR/$f" "$ROOT/lib/modules/$KREL/"
	done
	"$DEPMOD" -b "$ROOT" "$KREL" 2> "$WORK/depmod.log" ||
		rm -f "$ROOT/lib/modules/$KREL/modules.dep"
fi

# Test programs, with their shared libraries (static ones need none).
add_program() {	# $1: host path, $2: name in /tests
	[ -x "$1" ] || return 0
	cp "$1" "$ROOT/tests/$2"
	copy_libs "$1"
}
for p in npu_vmtest npu-smi npu_uapi_test npu_pool_devtest npu_fuzz_replay; do
	add_program "$BUILD/bin/$p" "$p"
done
# The collectives' test, and what it computes on four in-process devices:
# the VM runs it on four kernel devices and compares bit for bit.
if [ -x "$BUILD/tests/libnpucl/npucl_test" ] &&
   NPU_SIM_DEVICES=4 NPU_SIM_VRAM_MB=32 NPUCL_BUFFSIZE=65536 NPU_DEVICE= \
	NPUCL_TEST_RANKS=4 NPUCL_TEST_QUICK=1 \
	"$BUILD/tests/libnpucl/npucl_test" "$ROOT/tests/npucl_ref" \
	> "$WORK/npucl-sim.log" 2>&1; then
	rm -f "$ROOT"/tests/npucl_ref/*/in_*.bin
	add_program "$BUILD/tests/libnpucl/npucl_test" npucl_test
else
	rm -rf "$ROOT/tests/npucl_ref"
fi
# libdrm's own enumeration client (Debian's libdrm-tests), if installed.
add_program /usr/bin/drmdevice drmdevice
# The fuzzer's seed corpus, replayed against the module (vm-tests.sh).
if [ -d selftests/npu/fuzz/corpus ]; then
	mkdir -p "$ROOT/tests/fuzz_corpus"
	cp selftests/npu/fuzz/corpus/* "$ROOT/tests/fuzz_corpus/"
fi

# The bundled model, compiled here and run here on the in-process device:
# the VM runs it on the kernel node and compares bit for bit.
if [ -x "$BUILD/bin/npuc" ] && [ -x "$BUILD/bin/npu-run" ] &&
   [ -f models/tinynet/model.onnx ]; then
	M=$ROOT/tests/model
	mkdir -p "$M"
	if "$BUILD/bin/npuc" models/tinynet/model.onnx -o "$M/tinynet.om" \
			> "$WORK/npuc.log" 2>&1 &&
	   "$BUILD/bin/npu-run" "$M/tinynet.om" --device sim \
			--input-dir models/tinynet/inputs -o "$M/sim-out" \
			> "$WORK/npu-run-sim.log" 2>&1; then
		cp -r models/tinynet/inputs models/tinynet/expected "$M/"
		add_program "$BUILD/bin/npu-run" npu-run
	else
		rm -rf "$M"
	fi
fi
# Host tasks (operator plugins, Documentation/plugins.rst): the example
# plugin's RoIAlign model and the faulty plugin's models, compiled here;
# the VM runs them on the kernel node (the host engine there waits on and
# signals the module's semaphores).
P=$ROOT/tests/plugin
if [ -x "$BUILD/bin/npuc" ] && [ -x "$BUILD/tests/libnpurt/test_host_tasks" ] &&
   [ -f "$BUILD/examples/libexample_ops.so" ] &&
   [ -f "$BUILD/examples/tests/libfaulty_ops.so" ] &&
   mkdir -p "$P/plugins" &&
   /usr/bin/python3 examples/plugin/make_models.py "$P" > "$WORK/plugin.log" 2>&1 &&
   "$BUILD/bin/npuc" --no-cache --plugin "$BUILD/examples/libexample_ops.so" \
		"$P/roi.onnx" -o "$P/roi.om" >> "$WORK/plugin.log" 2>&1; then
	for m in 0 1 2 3 4; do
		"$BUILD/bin/npuc" --no-cache \
			--plugin "$BUILD/examples/tests/libfaulty_ops.so" \
			"$P/faulty$m.onnx" -o "$P/faulty$m.om" >> "$WORK/plugin.log" 2>&1
	done
	for f in roi_in_x roi_in_rois roi_in_bidx roi_ref_0 roi_ref_1; do
		/usr/bin/python3 -c 'import numpy as np,sys; np.load(sys.argv[1]).tofile(sys.argv[2])' \
			"$P/$f.npy" "$P/$f.raw"
	done
	mkdir -p "$P/ref"
	cp "$P/roi_ref_0.npy" "$P/ref/output_0.npy"
	cp "$P/roi_ref_1.npy" "$P/ref/output_1.npy"
	rm -f "$P"/*.onnx
	cp "$BUILD/examples/libexample_ops.so" "$P/plugins/"
	cp "$BUILD/examples/tests/libfaulty_ops.so" "$P/"
	copy_libs "$BUILD/examples/libexample_ops.so"
	add_program "$BUILD/tests/libnpurt/test_host_tasks" test_host_tasks
	add_program "$BUILD/bin/npu-run" npu-run
else
	rm -rf "$P"
fi
[ -d "$ROOT/lib64" ] || ln -s lib "$ROOT/lib64"

(cd "$ROOT" && find . | cpio -o -H newc --quiet) | gzip -1 > "$WORK/initramfs.gz"

# The uapi selftest on the in-process device, for comparison with the VM.
host_totals=""
if [ -x "$BUILD/bin/npu_uapi_test" ]; then
	out=$(NPU_DEVICE=sim timeout 300 "$BUILD/bin/npu_uapi_test" 2>&1)
	host_totals="pass=$(echo "$out" | grep -c '^ok') fail=$(echo "$out" | grep -c '^not ok') skip=$(echo "$out" | grep -c '^ok.*# *SKIP')"
fi

# 3. Boot. Console (kernel log) on ttyS0, TAP results on ttyS1.
rm -f "$WORK/console.log" "$WORK/results.log"
start=$(date +%s)
# Software emulation, with one host thread per vCPU where the host is x86
# (same memory model as the guest). VMTEST_ACCEL=kvm opts in to KVM: not by
# default, as a /dev/kvm that exists does not always work (nested hosts).
case $(uname -m) in
x86_64 | i?86) ACCEL="-accel tcg,thread=multi" ;;
*) ACCEL="-accel tcg" ;;
esac
[ "${VMTEST_ACCEL:-}" = kvm ] && ACCEL="-accel kvm"
# -cpu max: QEMU's emulation offers AVX2 and FMA, so the module runs the
# op kernels' AVX2 level inside kernel_fpu_begin()/end() (Documentation/
# ops.rst); VMTEST_CPU=qemu64 tests the baseline level instead.
ACCEL="$ACCEL -cpu ${VMTEST_CPU:-max}"
# shellcheck disable=SC2086
timeout "$TIMEOUT" qemu-system-x86_64 $ACCEL -m "$MEM" -smp 2 -kernel "$KIMG" \
	-initrd "$WORK/initramfs.gz" \
	-append "$CMDLINE" \
	-display none -monitor none -no-reboot \
	-serial "file:$WORK/console.log" -serial "file:$WORK/results.log" \
	> "$WORK/qemu.log" 2>&1
qrc=$?
secs=$(( $(date +%s) - start ))

# 4. TAP.
n=0
fails=0
emit() {	# $1: ok|not ok, rest: description
	n=$((n + 1))
	r=$1
	shift
	echo "$r $n - $*"
	[ "$r" = ok ] || fails=$((fails + 1))
}
tr -d '\r' < "$WORK/results.log" > "$WORK/results.txt"
while IFS= read -r line; do
	case $line in
	"ok - "*) emit ok "${line#ok - }" ;;
	"not ok - "*) emit "not ok" "${line#not ok - }" ;;
	"#"*) echo "$line" ;;
	esac
done < "$WORK/results.txt"

grep -q 'vm-init: tests finished' "$WORK/console.log" 2>/dev/null
finished=$?
if [ $qrc -eq 0 ] && [ $finished -eq 0 ]; then
	emit ok "VM ran the tests and powered off (${secs}s)"
else
	emit "not ok" "VM ran the tests and powered off (qemu exit $qrc after ${secs}s)"
	tail -n 30 "$WORK/console.log" 2>/dev/null | sed 's/^/# console: /'
fi

# Both homes must pass everything they can run; the kernel node runs a few
# more checks (PRIME sharing, which the in-process device refuses in one
# check) and skips the in-process ones (a wait that serves), so its passes
# and skips together cover the in-process passes.
if [ -n "$host_totals" ]; then
	vm_totals=$(sed -n 's/^# uapi-totals: //p' "$WORK/results.txt")
	hp=$(echo "$host_totals" | sed 's/.*pass=\([0-9]*\).*/\1/')
	vp=$(echo "$vm_totals" | sed 's/.*pass=\([0-9]*\).*/\1/')
	vs=$(echo "$vm_totals" | sed -n 's/.*skip=\([0-9]*\).*/\1/p')
	case "$host_totals $vm_totals" in
	*fail=[1-9]*) same=0 ;;
	*) [ -n "$vp" ] && [ $((vp + ${vs:-0})) -ge "$hp" ] && same=1 ||
		same=0 ;;
	esac
	if [ "$vm_totals" = "$host_totals" ]; then
		emit ok "uapi selftest totals match the in-process device ($vm_totals)"
	elif [ $same -eq 1 ]; then
		emit ok "uapi selftest passes on both homes (kernel $vm_totals, in-process $host_totals)"
	else
		emit "not ok" "uapi selftest totals: kernel '$vm_totals', in-process '$host_totals'"
	fi
fi

# Kernel log: any of these fails the run. KASAN, lockdep, DEBUG_ATOMIC_SLEEP,
# the soft-lockup and RCU-stall detectors report as "BUG:" or "WARNING:";
# the others are named.
BAD='WARNING:|BUG[: ]|Oops|general protection|Call Trace:|Kernel panic|corruption|UBSAN|Objects remaining|npu_drv: leak|refcount_t:|blocked for more than|stall|soft lockup|possible circular locking|inconsistent lock state|turning off the locking correctness validator|ODEBUG:|unreferenced object|suspected memory leak'
tr -d '\r' < "$WORK/console.log" > "$WORK/console.txt"

# The checkers of a debug kernel must have been on to the end of the run.
if kconfig_y CONFIG_KASAN; then
	if grep -q 'KernelAddressSanitizer initialized' "$WORK/console.txt"; then
		emit ok "KASAN was active"
	else
		emit "not ok" "KASAN was active (no 'KernelAddressSanitizer initialized' on the console)"
	fi
fi
if kconfig_y CONFIG_PROVE_LOCKING; then
	if grep -q 'vm-init: debug_locks: *1$' "$WORK/console.txt"; then
		emit ok "lockdep was active to the end (debug_locks 1)"
	else
		emit "not ok" "lockdep was active to the end ($(grep -o 'vm-init: debug_locks.*' "$WORK/console.txt" || echo 'no /proc/lockdep_stats report'))"
	fi
fi
if kconfig_y CONFIG_DEBUG_KMEMLEAK; then
	if grep -q 'vm-init: kmemleak scanned' "$WORK/console.txt"; then
		emit ok "kmemleak scanned after the last rmmod"
	else
		emit "not ok" "kmemleak scanned after the last rmmod"
	fi
fi
if grep -Eq "$BAD" "$WORK/console.txt"; then
	emit "not ok" "kernel log free of WARN/BUG/oops/leak reports"
	grep -En -B2 -A12 "$BAD" "$WORK/console.txt" | head -n 60 | sed 's/^/# /'
else
	emit ok "kernel log free of WARN/BUG/oops/leak reports"
fi
echo "1..$n"
echo "# logs in $WORK/console.txt and $WORK/results.txt"
[ $fails -eq 0 ]
