#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP (make check-san): the smaller e2e model tests with npuc and npu-run
# built with ASan+UBSan (build-san/) and an empty compile cache, so every
# model is really compiled. Each model test's TAP is folded into one line.
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
set -- two_branch_cnn bert_encoder mobilenet_v2 torch_ops dynamic_batch demo \
	decoder_kv
echo "1..$#"
n=0
for m in "$@"; do
	n=$((n + 1))
	out=$("tests/models/$m.t" 2>&1)
	rc=$?
	# A model test exits non-zero exactly when a step failed (not TODO).
	if [ $rc -eq 0 ]; then
		echo "ok $n - $m under ASan+UBSan ($(echo "$out" | grep -c '^ok') ok)"
	else
		echo "$out" | grep -v '^ok' | tail -40 | sed 's/^/# /'
		echo "not ok $n - $m under ASan+UBSan (exit $rc)"
	fi
done
