#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the uapi header keeps the layout rules of botching-up-ioctls.rst.
#
# 1. No struct has implicit padding (gcc -Wpadded, drm.h's own structs
#    excluded). With only fixed-size __u/__s fields, a struct without holes
#    or tail padding on x86-64 has the same layout on i386, where __u64 is
#    4-byte aligned: this is the check the header's comment refers to.
# 2. No field has a type whose size depends on the ABI (long, pointers,
#    size_t, plain int/short/char): user pointers travel as __u64.
cd "$(dirname "$0")/../.." || exit 1
CC=${CC:-cc}
echo "1..2"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/layout.c" <<'C'
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpadded"
#include <drm.h>
#pragma GCC diagnostic pop
#include "drm/npu_drm.h"
C
if $CC -std=c11 -Wpadded -Werror -fsyntax-only -Iuapi \
	$(pkg-config --cflags libdrm) "$tmp/layout.c" 2>"$tmp/err"; then
	echo "ok 1 - npu_drm.h structs have no implicit padding"
else
	echo "not ok 1 - npu_drm.h structs have implicit padding"
	sed 's/^/# /' "$tmp/err"
fi
# Field declarations only: lines inside structs/unions that end in ';'.
bad=$(awk '/^(struct|union) [a-z_0-9]+ \{/ { in_s = 1 }
	in_s && /;/ && !/^ \*/ && !/^\/\*/ { print FILENAME ":" FNR ": " $0 }
	/^\};/ { in_s = 0 }' uapi/drm/npu_drm.h |
	grep -E '[[:space:]](unsigned |signed )?(long|int|short|char|size_t|void)[[:space:]*]' |
	grep -v '__[us](8|16|32|64)')
if [ -z "$bad" ]; then
	echo "ok 2 - npu_drm.h fields use fixed-size types only"
else
	echo "not ok 2 - npu_drm.h fields with ABI-dependent types"
	echo "$bad" | sed 's/^/# /'
fi
