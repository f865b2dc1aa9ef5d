#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Real models end to end (TAP): resnet18, mobilenet_v2 and a transformer
# encoder exported with torch (random weights, fixed seed; cached in
# build/fe-models), imported, optimised and interpreted; outputs must match
# torch within 1e-4 relative error before and after all passes, BatchNorm
# must fold into every Conv and every Conv-BN-ReLU/Clip fuse, the
# transformer must get its GELU, LayerNorm and attention patterns fused.
# The DOT dump of each optimised model must render (when graphviz is here).

BUILD=${BUILD:-build}
FE=$BUILD/bin/npuc-fe
DIR=$BUILD/fe-models
PY=/usr/bin/python3

echo "1..20"
if ! $PY -c 'import torch, torchvision' 2>/dev/null; then
	for i in $(seq 1 20); do echo "ok $i # SKIP no torch/torchvision"; done
	exit 0
fi
if ! $PY compiler/tests/gen_models.py "$DIR" >"$DIR.log" 2>&1; then
	echo "# model export failed:"; sed 's/^/# /' "$DIR.log"
	for i in $(seq 1 20); do echo "not ok $i - models exported"; done
	exit 1
fi

n=0
fail=0
tap() {	# tap STATUS MESSAGE
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; fail=1; fi
}

check_model() {	# check_model NAME EXPECT-ARGS...
	name=$1; shift
	out=$($FE "$DIR/$name.onnx" --verify --report \
		--run="$DIR/$name.in.bin" --compare="$DIR/$name.out.bin" \
		--rtol=1e-4 --report-json="$DIR/$name.report.json" "$@" 2>&1)
	st=$?
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q '^before passes: max relative error'
	tap $? "$name: imports and matches torch before the passes"
	echo "$out" | grep -q '^after passes: max relative error'
	tap $? "$name: matches torch after all passes"
	tap $st "$name: within 1e-4 and every expected fusion happened"
	# the DOT dump of the optimised graph renders
	$FE "$DIR/$name.onnx" --dump-ir-after=dce-final --dump-format=dot \
		--dump-file="$DIR/$name.dot" >/dev/null 2>&1
	st=$?
	if [ $st -eq 0 ] && command -v dot >/dev/null 2>&1; then
		dot -Tsvg "$DIR/$name.dot" -o "$DIR/$name.svg"; st=$?
	elif [ $st -eq 0 ]; then
		grep -q '^digraph' "$DIR/$name.dot"; st=$?
	fi
	tap $st "$name: the DOT dump renders"
}

check_model resnet18 --expect-none=BatchNormalization,Relu \
	--expect-min=act:relu:17,Conv:20
check_model mobilenet_v2 --expect-none=BatchNormalization,Clip \
	--expect-min=act:clip:35,Conv:52
check_model transformer --expect-none=Erf,ReduceMean,Sqrt,Pow,Softmax \
	--expect-min=LayerNormalization:4,act:gelu:2,npu.Attention:2

# symbolic dims: batch and seq flow through the whole transformer (Shape ->
# Gather -> Concat -> Reshape chains, -1 resolved), the patterns still fuse
out=$($FE "$DIR/transformer_dyn.onnx" --print-io --verify \
	--expect-min=npu.Attention:2,LayerNormalization:4,act:gelu:2 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '^output output: f32\[batch,seq,16\]'
tap $? "transformer_dyn: output shape is [batch,seq,16]"
tap $st "transformer_dyn: attention, LayerNorm and GELU fuse with symbolic dims"
$FE "$DIR/transformer_dyn.onnx" --input-shape=input:2,10,64 --verify \
	--run="$DIR/transformer_dyn.in.bin" \
	--compare="$DIR/transformer_dyn.out.bin" \
	--expect-none=Shape,Gather,Concat,Unsqueeze >/dev/null 2>&1
tap $? "transformer_dyn bound to 2x10: shape arithmetic folds away, matches torch"

# the per-pass report names what changed
grep -q '"name": "bn-fold", "enabled": true, "runs": [0-9]*, "removed": 0, "fused": 20' \
	"$DIR/resnet18.report.json"
tap $? "resnet18 report: bn-fold fused 20 BatchNorms"
grep -q '"name": "layernorm-fusion", "enabled": true' "$DIR/transformer.report.json"
tap $? "transformer report lists layernorm-fusion"
# --disable-pass switches a pass off
$FE "$DIR/resnet18.onnx" --disable-pass=bn-fold \
	--expect-min=BatchNormalization:20 >/dev/null 2>&1
tap $? "--disable-pass=bn-fold keeps the 20 BatchNorms"
# every pass can be switched off on its own and the rest still agree
# with torch (this runs BatchNorm, Clip, residual Adds, ... in NC1HWC0
# when the fusions before the layout pass are off)
bad=0
for p in $($FE --list-passes | awk 'NR > 1 { print $1 }'); do
	for m in mobilenet_v2 transformer; do
		if ! $FE "$DIR/$m.onnx" --disable-pass=$p --verify \
			--run="$DIR/$m.in.bin" --compare="$DIR/$m.out.bin" \
			>/dev/null 2>&1; then
			echo "# $m with --disable-pass=$p fails"
			bad=1
		fi
	done
done
tap $bad "each pass switched off alone: outputs still match torch"

# truncated copies of every exported model fail with a clear error
bad=0
for m in resnet18 mobilenet_v2 transformer transformer_dyn; do
	size=$(stat -c %s "$DIR/$m.onnx")
	for cut in 1 $((size / 3)) $((size / 2)) $((size - 1)); do
		head -c $cut "$DIR/$m.onnx" >"$DIR/trunc.onnx"
		msg=$($FE "$DIR/trunc.onnx" 2>&1)
		st=$?
		if [ $st -ne 2 ] || ! echo "$msg" | grep -q 'npuc-fe: .*: .'; then
			echo "# $m cut at $cut: status $st: $msg"
			bad=1
		fi
	done
done
rm -f "$DIR/trunc.onnx"
tap $bad "truncated copies of every model are refused with a message"
exit $fail
