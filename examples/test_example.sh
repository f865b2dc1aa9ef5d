#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The installed library works for an outside program (TAP): `make install`
# into a temporary DESTDIR, build examples/run_model.c with only the
# installed header and `pkg-config --cflags --libs libnpurt`, run it on a
# model written through the .om writer and compare with the host reference.
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
PREFIX=/opt/npu
echo "1..6"
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}

make -s --no-print-directory install-npurt install-tools DESTDIR="$T/root" \
	PREFIX=$PREFIX >"$T/install.log" 2>&1
check "make install into DESTDIR with PREFIX" \
	"[ -f $T/root$PREFIX/include/npurt.h ] &&
	 [ -L $T/root$PREFIX/lib/libnpurt.so.1 ] &&
	 [ -f $T/root$PREFIX/lib/libnpurt.a ] &&
	 grep -q '^prefix=$PREFIX' $T/root$PREFIX/lib/pkgconfig/libnpurt.pc &&
	 [ -x $T/root$PREFIX/bin/npu-run ]"

export PKG_CONFIG_PATH="$T/root$PREFIX/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$T/root"
# Only the installed header: no include path into the source tree.
cc -std=c11 -Wall -Werror examples/run_model.c \
	$(pkg-config --cflags libnpurt) $(pkg-config --libs libnpurt) \
	-o "$T/run_model" 2>"$T/cc.log"
check "example builds from the installed header and pkg-config" \
	"[ -x $T/run_model ]"
check "it links the shared libnpurt.so.1" \
	"readelf -d $T/run_model | grep -q 'NEEDED.*libnpurt.so.1'"

$B/tests/libnpurt/mkmodels "$T/m" >/dev/null
$PY -c 'import numpy as np,sys; np.load(sys.argv[1]).astype("<f4").tofile(sys.argv[2])' \
	"$T/m/mlp_in/x.npy" "$T/x.raw"
LD_LIBRARY_PATH="$T/root$PREFIX/lib" "$T/run_model" "$T/m/mlp.om" \
	"$T/x.raw" >"$T/out.txt" 2>"$T/err.txt"
check "example runs the model" "[ $? -eq 0 ] && grep -q '^# y' $T/out.txt"
check "its output matches the host reference" \
	"$PY -c 'import numpy as np,sys; \
v=np.array([float(l) for l in open(sys.argv[1]) if not l.startswith(\"#\")]); \
r=np.load(sys.argv[2]).ravel(); assert v.shape == r.shape and np.allclose(v, r, 1e-4, 1e-5)' \
	$T/out.txt $T/m/mlp_ref/output_0.npy"

grep -oE '\bnpurt_[a-z0-9_]+\(' "$T/root$PREFIX/include/npurt.h" | tr -d '(' |
	sort -u >"$T/api.txt"
nm -D --defined-only "$T/root$PREFIX/lib/libnpurt.so.1" | awk '{print $3}' |
	grep -v '^LIBNPURT_' | sed 's/@.*//' | sort -u >"$T/abi.txt"
check "the library exports exactly the header's functions, versioned" \
	"cmp -s $T/api.txt $T/abi.txt &&
	 nm -D --defined-only $T/root$PREFIX/lib/libnpurt.so.1 |
	 grep -q 'npurt_init@@LIBNPURT_1.0'"
