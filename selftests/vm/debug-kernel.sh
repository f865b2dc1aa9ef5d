#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - builds the debug kernel of the VM harness.
#
# Extracts Debian's linux-source tarball under DIR (build/debug-kernel),
# configures it as `tinyconfig` + selftests/vm/debug-kernel.config (KASAN,
# lockdep, kmemleak, DEBUG_ATOMIC_SLEEP, DRM built in) and builds bzImage
# and Module.symvers out of tree in DIR/obj, which is then the KDIR of
# npu_drv.ko. A second run with the same tarball, fragment and compiler
# does nothing; a changed fragment reconfigures from scratch and rebuilds
# incrementally. See Documentation/build.rst, "The debug kernel".
#
# Usage: selftests/vm/debug-kernel.sh [DIR]
# Environment: LINUX_SOURCE (tarball, default the newest
# /usr/src/linux-source-*.tar.xz), CC (gcc), JOBS (nproc).

set -eu
DIR=${1:-build/debug-kernel}
FRAG=selftests/vm/debug-kernel.config
CC=${CC:-gcc}
# Kbuild picks its own compiler unless told; "cc" is gcc on Debian.
[ "$CC" = cc ] && CC=gcc
JOBS=${JOBS:-$(nproc)}
TARBALL=${LINUX_SOURCE:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null |
	sort -V | tail -n 1)}

if [ -z "$TARBALL" ] || [ ! -r "$TARBALL" ]; then
	echo "debug-kernel: no linux-source tarball" \
		"(apt-get install linux-source-6.1, or set LINUX_SOURCE)" >&2
	exit 2
fi
[ -r "$FRAG" ] || { echo "debug-kernel: run from the repository root" >&2; exit 2; }

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
OBJ=$DIR/obj
KIMG=$OBJ/arch/x86/boot/bzImage

# What the built kernel depends on: the tarball, the fragment, this script
# and the compiler. The same stamp means the same kernel.
stamp=$( {
	ls -l --time-style=+%s "$TARBALL" | awk '{ print $5, $6, $7 }'
	cat "$FRAG" "$0"
	"$CC" --version | head -n 1
} | sha256sum | cut -d' ' -f1)
if [ -f "$KIMG" ] && [ -f "$OBJ/Module.symvers" ] &&
   [ "$(cat "$OBJ/.npu-stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "debug-kernel: $KIMG is up to date"
	exit 0
fi

# 1. The source, once per tarball.
src_id=$(ls -l --time-style=+%s "$TARBALL" | awk '{ print $5, $6, $7 }')
if [ "$(cat "$DIR/.npu-source" 2>/dev/null)" != "$src_id" ]; then
	echo "debug-kernel: extracting $TARBALL"
	rm -rf "$DIR/src" "$OBJ"
	mkdir -p "$DIR/src"
	tar -xJf "$TARBALL" -C "$DIR/src" --strip-components=1
	echo "$src_id" > "$DIR/.npu-source"
fi
SRC=$DIR/src

# 2. The configuration: tinyconfig plus the fragment, from scratch whenever
# the fragment changed (olddefconfig over an old .config would keep what
# the fragment no longer asks for).
kmake() {
	make -C "$SRC" O="$OBJ" ARCH=x86_64 CC="$CC" HOSTCC="$CC" "$@"
}
if ! cmp -s "$FRAG" "$OBJ/.npu-fragment"; then
	echo "debug-kernel: configuring (tinyconfig + $FRAG)"
	mkdir -p "$OBJ"
	rm -f "$OBJ/.npu-stamp"
	kmake -s tinyconfig > "$OBJ/.npu-config.log" 2>&1
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
		"$FRAG" >> "$OBJ/.npu-config.log" 2>&1
	kmake -s olddefconfig >> "$OBJ/.npu-config.log" 2>&1
	# Every line of the fragment must have survived the dependencies.
	bad=0
	sed -n 's/^\(CONFIG_[A-Z0-9_]*=.*\)$/\1/p; s/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p' \
		"$FRAG" > "$OBJ/.npu-want"
	while IFS= read -r want; do
		key=${want%%=*}
		case $want in
		*=n) got=$(grep -E "^$key=" "$OBJ/.config" || true)
		     [ -z "$got" ] && continue ;;
		*) grep -qxF "$want" "$OBJ/.config" && continue
		   got=$(grep -E "^$key=" "$OBJ/.config" || echo "$key unset") ;;
		esac
		echo "debug-kernel: $FRAG asks for $want, the config has $got" >&2
		bad=1
	done < "$OBJ/.npu-want"
	[ $bad -eq 0 ] || exit 1
	cp "$FRAG" "$OBJ/.npu-fragment"
fi

# 3. bzImage, and Module.symvers for the out-of-tree module.
echo "debug-kernel: building in $OBJ with -j$JOBS (log: $OBJ/.npu-build.log)"
start=$(date +%s)
if ! kmake -j"$JOBS" all > "$OBJ/.npu-build.log" 2>&1; then
	tail -n 40 "$OBJ/.npu-build.log" >&2
	echo "debug-kernel: build failed, see $OBJ/.npu-build.log" >&2
	exit 1
fi
echo "debug-kernel: built $(cat "$OBJ/include/config/kernel.release") in $(( $(date +%s) - start ))s"
echo "$stamp" > "$OBJ/.npu-stamp"
