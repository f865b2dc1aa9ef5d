#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP (make check-san): test_npu_quant.py with npu-quant built with
# ASan+UBSan (build-san/): every run of the tool there, calibration, the
# sensitivity runs, the writer and the error paths, leak- and UB-checked.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${SAN_BUILD:-build-san}
if [ ! -x "$BUILD/bin/npu-quant" ]; then
	echo "1..0 # SKIP $BUILD/bin/npu-quant not built (run make check-san)"
	exit 0
fi
export BUILD
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec /usr/bin/python3 tools/npu-quant/test_npu_quant.py
