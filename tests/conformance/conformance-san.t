#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP (make check-san): the ONNX node tests and the small e2e models through
# npuc and npu-run built with ASan+UBSan (build-san/), with an empty compile
# cache so that every model is really compiled. A sanitizer report makes the
# tool exit non-zero, which fails the test that triggered it.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${SAN_BUILD:-build-san}
for t in npuc npu-run; do
	if [ ! -x "$BUILD/bin/$t" ]; then
		echo "1..0 # SKIP $BUILD/bin/$t not built (run make check-san)"
		exit 0
	fi
done
NPU_CACHE_DIR=$(mktemp -d) || exit 1
trap 'rm -rf "$NPU_CACHE_DIR"' EXIT
export BUILD NPU_CACHE_DIR
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec /usr/bin/python3 tests/conformance/run_conformance.py --tap \
	--known tests/conformance/known_failures_san.txt
