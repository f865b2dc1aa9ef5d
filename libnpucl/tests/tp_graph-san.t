#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP (make check-san): tp_graph.t with npuc, the runtime, the test and
# the AllReduce plugin built with ASan+UBSan (build-san/): the ranks'
# rendezvous, the host engine and the plugin leak- and UB-checked.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${SAN_BUILD:-build-san}
for f in bin/npuc lib/libnpucl_ops.so tests/libnpucl/tp_graph_test; do
	if [ ! -e "$BUILD/$f" ]; then
		echo "1..0 # SKIP $BUILD/$f not built (run make check-san)"
		exit 0
	fi
done
export BUILD
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec sh libnpucl/tests/tp_graph.t
