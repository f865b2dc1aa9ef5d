#!/bin/sh
# SPDX-License-Identifier: MIT
#
# npu-run end to end (TAP): models written through the .om writer API with
# host-computed references; --compare, --json, --profile (both streams of a
# two-stream model on their own tracks), variants from input shapes, exit
# statuses and input error messages.
set -u
B=${BUILD:-build}
RUN=$B/bin/npu-run
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3

echo "1..14"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

$B/tests/libnpurt/mkmodels "$T" || { echo "Bail out! mkmodels failed"; exit 1; }

$RUN "$T/mlp.om" --input-dir "$T/mlp_in" --compare "$T/mlp_ref" \
	--loop 5 --warmup 2 --json "$T/mlp.json" >"$T/out1" 2>&1
check "MLP matches the reference (exit 0)" "[ $? -eq 0 ]"
check "report has compare OK, latency and throughput" \
	"grep -q 'compare      y: OK' $T/out1 && grep -q 'p50' $T/out1 &&
	 grep -q 'inferences/s' $T/out1 && grep -q '5 runs, 2 warmup' $T/out1"
check "JSON summary parses and says ok" \
	"$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); \
assert d[\"compare\"][\"ok\"] and d[\"runs\"] == 5 and d[\"p99_ms\"] >= d[\"p50_ms\"] > 0' $T/mlp.json"

$RUN "$T/mlp.om" --input-dir "$T/mlp_in" --compare "$T/mlp_bad" \
	>"$T/out2" 2>&1
st=$?
check "a wrong reference fails the comparison (exit 1)" \
	"[ $st -eq 1 ] && grep -q 'y: FAILED' $T/out2"

$RUN "$T/mlp.om" -i "x=$T/mlp_wrong/x.npy" >"$T/out3" 2>&1
st=$?
check "a wrong input shape is a usage error naming name, shape, dtype" \
	"[ $st -eq 2 ] && grep -q '\"x\"' $T/out3 && grep -q '\[2,8\]' $T/out3 &&
	 grep -q 'float32' $T/out3"

$RUN "$T/mlp.om" -o "$T/outdir" --input-dir "$T/mlp_in" >/dev/null 2>&1
check "-o writes NAME.npy and output_K.npy equal to the reference" \
	"$PY -c 'import numpy as np,sys; d=sys.argv[1]; \
a=np.load(d+\"/outdir/y.npy\"); b=np.load(d+\"/outdir/output_0.npy\"); \
r=np.load(d+\"/mlp_ref/output_0.npy\"); \
assert a.shape == (2,4) and (a == b).all() and np.allclose(a, r, 1e-4, 1e-5)' $T"

$RUN "$T/mlp_dyn.om" --input-dir "$T/dyn_in" --compare "$T/dyn_ref" \
	>"$T/out4" 2>&1
check "dynamic batch: the variant follows the input shape (batch=4)" \
	"[ $? -eq 0 ] && grep -q 'variant batch=4' $T/out4"

$RUN "$T/mlp_dyn.om" --variant batch=2 >"$T/out5" 2>&1
check "--variant selects a gear; inputs random" \
	"[ $? -eq 0 ] && grep -q 'variant batch=2' $T/out5"

$RUN "$T/two_branch.om" --input-dir "$T/tb_in" --compare "$T/tb_ref" \
	--loop 3 --profile "$T/trace.json" >"$T/out6" 2>&1
check "two-stream model matches the reference" \
	"[ $? -eq 0 ] && grep -q '2 stream(s)' $T/out6"
check "Chrome trace: device tasks on two stream tracks plus host API" \
	"$PY -c 'import json,sys; d=json.load(open(sys.argv[1]))[\"traceEvents\"]; \
x=[e for e in d if e[\"ph\"]==\"X\"]; \
assert {e[\"tid\"] for e in x if e[\"pid\"]==1} == {0,1}; \
assert {\"h2d\",\"execute\",\"d2h\"} <= {e[\"name\"] for e in x if e[\"pid\"]==2}; \
assert any(e[\"name\"]==\"MatMul\" for e in x)' $T/trace.json"

head -c 1000 "$T/mlp.om" >"$T/trunc.om"
$RUN "$T/trunc.om" >"$T/out7" 2>&1
st=$?
check "a truncated model is refused (exit 2) with the reason" \
	"[ $st -eq 2 ] && grep -q 'invalid .om file' $T/out7"

$RUN >/dev/null 2>&1
check "no model is a usage error (exit 2)" "[ $? -eq 2 ]"

$RUN "$T/mlp.om" -i "nosuch=$T/mlp_in/x.npy" >"$T/out8" 2>&1
st=$?
check "an unknown input name is a usage error listing the inputs" \
	"[ $st -eq 2 ] && grep -q 'no input named \"nosuch\"' $T/out8 &&
	 grep -q '\"x\"' $T/out8"

# torch names outputs like "/blk/Relu_output_0": the .npy file name must not
# become a path.
$PY - "$T/slash.onnx" <<'PYEOF'
import sys, onnx
from onnx import helper, TensorProto
o = "/blk/Relu_output_0"
g = helper.make_graph([helper.make_node("Relu", ["x"], [o])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
    [helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, 4])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PYEOF
$B/bin/npuc "$T/slash.onnx" -o "$T/slash.om" --no-cache >/dev/null 2>&1 &&
	$RUN "$T/slash.om" -o "$T/slash_out" >"$T/out9" 2>&1
check "an output named with '/' is written as _blk_Relu_output_0.npy" \
	"[ -f $T/slash_out/_blk_Relu_output_0.npy ] && [ -f $T/slash_out/output_0.npy ]"
