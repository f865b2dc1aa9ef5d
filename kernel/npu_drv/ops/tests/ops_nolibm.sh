#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The op kernels carry their own math: libnpuops.a may reference nothing
# outside itself but memcpy/memmove/memset/memcmp (what the kernel module
# provides too; _GLOBAL_OFFSET_TABLE_ is the linker's, for -fPIC data)
# provides too). Catches a stray libm call or a builtin that did not
# become an instruction.
lib=${BUILD:-build}/lib/libnpuops.a
echo "1..1"
if [ ! -f "$lib" ]; then
	echo "not ok 1 - $lib not built (run make)"
	exit 1
fi
undef=$(nm -u "$lib" | awk 'NF == 2 { print $2 }' | sort -u)
def=$(nm --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
extra=$(printf '%s\n' "$undef" | grep -vxF -e memcpy -e memmove -e memset \
	-e memcmp -e _GLOBAL_OFFSET_TABLE_ | while read -r s; do
		[ -n "$s" ] && ! printf '%s\n' "$def" | grep -qxF "$s" && echo "$s"
	done)
if [ -z "$extra" ]; then
	echo "ok 1 - libnpuops.a needs only memcpy/memmove/memset/memcmp"
else
	echo "not ok 1 - libnpuops.a references: $(echo $extra)"
	exit 1
fi
