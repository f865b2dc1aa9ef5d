#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the npu Python package (python/npu) against the built libraries,
# with Debian's python3 (python/tests/test_npu.py prints the TAP).
cd "$(dirname "$0")/../.." || exit 1
lib=${BUILD:-build}/lib/libnpurt.so.1
if [ ! -e "$lib" ]; then
	echo "1..0 # SKIP $lib not built yet"
	exit 0
fi
exec /usr/bin/python3 python/tests/test_npu.py
