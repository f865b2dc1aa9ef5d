#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-deb.sh DEBDIR - the built packages installed on a fresh Debian
# (TAP; `make check-deb`, run as root): mmdebstrap makes a minimal
# bookworm chroot with the kernel headers of the VM's kernel, apt installs
# every package of DEBDIR (not the -dbgsym ones) with its dependencies from
# the archive, then:
#   - the demo: the installed npuc compiles the bundled model, the
#     installed npu-run runs it on the in-process device and matches
#     torch's output;
#   - an outside program builds against libnpurt-dev with pkg-config and
#     runs on libnpurt1;
#   - man npuc works; the udev rule and modprobe options are in place;
#   - DKMS builds and installs npu_drv for the headers' kernel; that .ko
#     then runs the kernel module's VM suite (selftests/vm/vmtest.sh with
#     VMTEST_KO, whose first load is `modprobe npu_drv` from updates/dkms)
#     when QEMU and the kernel image are there.
# The chroot is kept in DEBDIR/chroot for inspection, rebuilt every run.
set -u
DEBS=${1:?usage: check-deb.sh DEBDIR}
CH=$DEBS/chroot
KREL=${KREL:-$(make -s --no-print-directory -C kernel/npu_drv krel)}
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
in_ch() { chroot "$CH" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 "$@"; }

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (chroot)"; exit 0; }
command -v mmdebstrap >/dev/null ||
	{ echo "1..0 # SKIP mmdebstrap not installed"; exit 0; }
ls "$DEBS"/*.deb >/dev/null 2>&1 || { echo "Bail out! no .deb in $DEBS"; exit 1; }

rm -rf "$CH"
mkdir -p "$CH"
pkgs=$(ls "$DEBS"/*.deb | grep -v -- '-dbgsym_')
mkdir -p "$DEBS/pool"
cp $pkgs "$DEBS/pool/"
mmdebstrap --variant=apt --include="man-db,gcc,libc6-dev,pkg-config,linux-headers-$KREL" \
	--customize-hook="mkdir -p \"\$1/tmp/debs\"" \
	--customize-hook="sync-in '$DEBS/pool' /tmp/debs" \
	--customize-hook="chroot \"\$1\" sh -c 'apt-get install -y --no-install-recommends /tmp/debs/*.deb'" \
	bookworm "$CH" >"$DEBS/chroot.log" 2>&1
st=$?
[ $st -eq 0 ] || tail -20 "$DEBS/chroot.log" | sed 's/^/# /'
t "mmdebstrap bookworm + apt install of $(echo $pkgs | wc -w) packages" test $st -eq 0
[ $st -eq 0 ] || { echo "1..$n"; exit 1; }

for p in npu-dkms libnpurt1 libnpurt-dev libnpuc1 libnpuc-dev libnpucl1 libnpucl-dev npu-tools python3-npu; do
	t "$p installed" sh -c "chroot '$CH' dpkg-query -W -f='\${Status}' $p | grep -q 'ok installed'"
done

mkdir -p "$CH/demo"
cp -r models/tinynet "$CH/demo/"
cp examples/run_model.c "$CH/demo/"
mount -t proc proc "$CH/proc"
trap 'umount "$CH/proc" 2>/dev/null' EXIT

in_ch npuc /demo/tinynet/model.onnx -o /demo/tinynet.om --report >"$DEBS/demo.log" 2>&1
t "demo: the installed npuc compiles models/tinynet" test $? -eq 0
in_ch npu-run /demo/tinynet.om --device sim --input-dir /demo/tinynet/inputs \
	-o /demo/out --compare /demo/tinynet/expected --rtol 1e-4 --atol 1e-6 \
	>>"$DEBS/demo.log" 2>&1
t "demo: the installed npu-run matches torch's output" \
	sh -c "[ $? -eq 0 ] && grep -q 'compare .*: OK' '$DEBS/demo.log'"
cat > "$CH/demo/py_demo.py" <<'PY'
import numpy as np
import npu
s = npu.InferenceSession("/demo/tinynet/model.onnx")
x = np.load("/demo/tinynet/inputs/input_0.npy")
y, = s.run(None, {s.get_inputs()[0].name: x})
ref = np.load("/demo/tinynet/expected/output_0.npy")
err = float(np.abs(y - ref).max() / np.abs(ref).max())
assert err <= 1e-4, err
print("python3-npu: tinynet from ONNX, relative error %.3g" % err)
PY
in_ch python3 /demo/py_demo.py >"$DEBS/python.log" 2>&1
t "python3-npu: import npu, InferenceSession on the ONNX model matches torch" \
	sh -c "[ $? -eq 0 ] && grep -q 'relative error' '$DEBS/python.log'"
t "npu-smi info honours NPU_DEVICE=sim" \
	sh -c "chroot '$CH' env NPU_DEVICE=sim npu-smi info | grep -q in-process"

in_ch sh -c 'cc -std=c11 -Wall -Werror /demo/run_model.c $(pkg-config --cflags --libs libnpurt) -o /demo/run_model' \
	>"$DEBS/example.log" 2>&1
t "libnpurt-dev: an outside program builds with pkg-config" test $? -eq 0
t "it links libnpurt.so.1 from the multiarch directory" \
	sh -c "in_ch() { :; }; chroot '$CH' ldd /demo/run_model | grep -q 'libnpurt.so.1 => /lib/.*-linux-gnu/libnpurt.so.1\\|libnpurt.so.1 => /usr/lib/.*-linux-gnu/libnpurt.so.1'"

t "man npuc renders" sh -c "chroot '$CH' env MANWIDTH=80 man npuc 2>/dev/null | grep -q 'ATC SPELLINGS'"
t "man 3 npurt renders" sh -c "chroot '$CH' env MANWIDTH=80 man 3 npurt 2>/dev/null | grep -q npurt_model_execute"
t "udev rule: render group, mode 0660" \
	sh -c "grep -q 'DRIVERS==\"npu_drv\", GROUP=\"render\", MODE=\"0660\"' '$CH'/lib/udev/rules.d/*npu*.rules"
t "modprobe.d options for npu_drv" \
	sh -c "grep -q '^options npu_drv ' '$CH'/etc/modprobe.d/npu-dkms.conf"

# DKMS: the postinst added the module; build it for the headers' kernel.
in_ch dkms status >"$DEBS/dkms.log" 2>&1
t "dkms knows npu_drv/1.0 after install" grep -q 'npu_drv/1.0' "$DEBS/dkms.log"
in_ch sh -c "dkms build -m npu_drv -v 1.0 -k $KREL && dkms install -m npu_drv -v 1.0 -k $KREL" \
	>>"$DEBS/dkms.log" 2>&1
st=$?
KO=$(ls "$CH/lib/modules/$KREL/updates/dkms/npu_drv.ko"* 2>/dev/null | head -n 1)
[ $st -eq 0 ] || tail -20 "$DEBS/dkms.log" | sed 's/^/# /'
t "dkms build + install npu_drv for $KREL" sh -c "[ $st -eq 0 ] && [ -n '$KO' ]"
t "the DKMS module is for $KREL" \
	sh -c "modinfo -F vermagic '$KO' | grep -q '^$KREL '"
t "modprobe --dry-run in the chroot resolves npu_drv with the package's options" \
	sh -c "chroot '$CH' modprobe -S $KREL --dry-run --show-depends npu_drv | grep -q 'npu_drv.ko.* vram_mb=256'"

umount "$CH/proc" 2>/dev/null
trap - EXIT
if [ -n "$KO" ] && command -v qemu-system-x86_64 >/dev/null; then
	cp "$KO" "$DEBS/npu_drv.ko"
	VMTEST_KO="$DEBS/npu_drv.ko" sh selftests/vm/vmtest.sh >"$DEBS/vmtest.log" 2>&1
	st=$?
	total=$(grep -c '^ok\|^not ok' "$DEBS/vmtest.log")
	t "the DKMS-built module passes the VM suite ($total tests)" \
		sh -c "[ $st -eq 0 ] && [ $total -gt 0 ] && ! grep -q '^not ok' '$DEBS/vmtest.log'"
else
	echo "ok $((n = n + 1)) # SKIP no DKMS module or no QEMU for the VM run"
fi

echo "1..$n"
[ $fails -eq 0 ]
