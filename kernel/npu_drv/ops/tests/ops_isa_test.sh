#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The product-kernel and QADD tests at every ISA level (NPU_ISA=1 baseline,
# 2 AVX2+FMA, 3 AVX-512; a level this CPU lacks runs at its best level,
# which the test says). Each run is one TAP line.
BUILD=${BUILD:-build}
tests="ops_conv_test ops_chunk_test ops_basic_test ops_more_test ops_hostile_test
       ops_qlinear_test"
echo "1..$((3 * 6))"
n=0
for isa in 1 2 3; do
	for t in $tests; do
		n=$((n + 1))
		out=$(NPU_ISA=$isa "$BUILD/bin/$t" 2>&1)
		rc=$?
		bad=$(echo "$out" | grep -c '^not ok')
		if [ $rc -eq 0 ] && [ "$bad" -eq 0 ]; then
			echo "ok $n - $t at ISA level $isa"
		else
			echo "not ok $n - $t at ISA level $isa ($bad failed)"
			echo "$out" | grep '^not ok' | sed 's/^/# /'
		fi
	done
done
