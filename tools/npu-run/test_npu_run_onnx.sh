#!/bin/sh
# SPDX-License-Identifier: MIT
#
# npu-run on an ONNX file (TAP): compiled online with libnpuc, any input
# shape (compiled on demand, the shape cache in the report), the .om files
# kept in the on-disk compile cache, and the reference outputs of torch
# (tests/online/bert_dyn.py: a BERT-like encoder, symbolic batch and
# sequence).
set -u
B=${BUILD:-build}
RUN=$B/bin/npu-run
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

echo "1..6"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

/usr/bin/python3 tests/online/bert_dyn.py "$T" 7 23 2x12 ||
	{ echo "Bail out! tests/online/bert_dyn.py failed"; exit 1; }
export NPU_CACHE_DIR="$T/cache"

for c in 1x7 1x23 2x12; do
	$RUN "$T/model.onnx" --input-dir "$T/$c/in" --compare "$T/$c/ref" \
		--rtol 1e-3 --atol 1e-4 >"$T/out_$c" 2>&1
	st=$?
	b=${c%x*}; s=${c#*x}
	check "ONNX at $c compiled online matches torch" \
		"[ $st -eq 0 ] && grep -q 'variant input_ids:$b,$s' $T/out_$c &&
		 grep -q 'compare      logits: OK' $T/out_$c"
done
check "the report shows the shape cache (one miss)" \
	"grep -q 'shape cache  0 hits, 1 misses, 0 evictions' $T/out_1x7"

check "the compiled shapes are in the compile cache (NPU_CACHE_DIR)" \
	"[ \$(find $T/cache -type f | wc -l) -ge 4 ]"

$RUN "$T/model.onnx" --input-dir "$T/1x7/in" --compare "$T/1x7/ref" \
	--rtol 1e-3 --atol 1e-4 --no-cache --shape-cache 0 >"$T/bad" 2>&1
check "--shape-cache 0 is a usage error" "[ $? -eq 2 ]"
