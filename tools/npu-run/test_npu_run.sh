#!/bin/sh
# SPDX-License-Identifier: MIT
#
# npu-run end to end (TAP): models written through the .om writer API with
# host-computed references; --compare, --json, --profile (both streams of a
# two-stream model on their own tracks, and the modeled schedule beside
# the wall times), variants from input shapes, exit
# statuses and input error messages; the paths that used to mislead: a
# missing or empty --input-dir, --json -, an -o that cannot be created, out
# of device memory and of semaphores, --duration, the progress line on a
# terminal only, Ctrl-C printing the statistics so far, --version.
set -u
B=${BUILD:-build}
RUN=$B/bin/npu-run
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3

echo "1..34"
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
$B/bin/npu-om --timing-json "$T/mlp-timing.json" "$T/mlp.om" >/dev/null 2>&1
check "JSON summary: the modeled view, the same as npu-om --timing-json's" \
	"$PY -c 'import json,sys; d=json.load(open(sys.argv[1]))[\"modeled\"]; \
t=json.load(open(sys.argv[2]))[\"variants\"][0][\"modeled\"]; \
assert d == t and d[\"latency_us\"] > 0 and d[\"macs\"] > 0' $T/mlp.json $T/mlp-timing.json &&
	 grep -q '^modeled .* us on the device.s timing model' $T/out1"

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
check "... and the modeled schedule beside it: both streams' tasks on modeled cores" \
	"$PY -c 'import json,sys; d=json.load(open(sys.argv[1]))[\"traceEvents\"]; \
m=[e for e in d if e[\"ph\"]==\"X\" and e[\"pid\"]>=100]; \
w=[e for e in d if e[\"ph\"]==\"X\" and e[\"pid\"]==1]; \
assert {e[\"args\"][\"stream\"] for e in m} == {0,1}; \
assert {e[\"tid\"] for e in m} <= {\"cube\",\"vector\",\"queue\"}; \
assert len({e[\"args\"][\"task\"] for e in m}) * 3 == len(w)' $T/trace.json"

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

# ---- misleading paths (issue 16) ----
$RUN "$T/mlp.om" --input-dir "$T/no_such_dir" >"$T/o10" 2>&1
st=$?
check "--input-dir of a missing directory: exit 2, names it, runs nothing" \
	"[ $st -eq 2 ] && grep -q 'no_such_dir: No such file' $T/o10 &&
	 ! grep -q latency $T/o10"
mkdir "$T/empty"
$RUN "$T/mlp.om" --input-dir "$T/empty" >"$T/o11" 2>&1
st=$?
check "--input-dir of an empty directory: exit 2, says it is empty" \
	"[ $st -eq 2 ] && grep -q 'is empty' $T/o11 && ! grep -q latency $T/o11"
$PY - "$T/noinput.onnx" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
c = numpy_helper.from_array(np.arange(4, dtype=np.float32), "c")
g = helper.make_graph([helper.make_node("Constant", [], ["y"], value=c)], "noin",
    [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PYEOF
$B/bin/npuc "$T/noinput.onnx" -o "$T/noinput.om" --no-cache >/dev/null 2>&1
$RUN "$T/noinput.om" --input-dir "$T/empty" >"$T/o11b" 2>&1
check "an empty --input-dir is fine for a model without inputs" \
	"[ $? -eq 0 ] && grep -q latency $T/o11b"
mkdir "$T/wrong_in" && cp "$T/mlp_in/x.npy" "$T/wrong_in/other.npy"
$RUN "$T/mlp.om" --input-dir "$T/wrong_in" >"$T/o12" 2>&1
st=$?
check "--input-dir without the model's input: exit 2, names the files looked for and found" \
	"[ $st -eq 2 ] && grep -q 'wrong_in/x.npy nor .*wrong_in/input_0.npy' $T/o12 &&
	 grep -q 'has other.npy' $T/o12"

(cd "$T" && "$OLDPWD/$RUN" mlp.om --input-dir mlp_in --json - >json_out 2>text_out)
st=$?
check "--json - writes JSON to stdout (no file named -), the text to stderr" \
	"[ $st -eq 0 ] && [ ! -e $T/- ] && grep -q latency $T/text_out &&
	 $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"runs\"] == 1' $T/json_out"

: >"$T/a_file"
start=$(date +%s)
timeout 20 $RUN "$T/mlp.om" --loop 100000000 -o "$T/a_file/b/c" >"$T/o13" 2>&1
st=$?
check "-o that cannot be created fails before the run (exit 2, names the cause)" \
	"[ $st -eq 2 ] && grep -q 'a_file: Not a directory' $T/o13 &&
	 ! grep -q latency $T/o13 && [ $(($(date +%s) - start)) -lt 10 ]"
$RUN "$T/mlp.om" --input-dir "$T/mlp_in" -o "$T/new/deep/dir" >/dev/null 2>&1
check "-o creates missing parent directories" \
	"[ $? -eq 0 ] && [ -f $T/new/deep/dir/y.npy ]"
$RUN "$T/mlp.om" --json "$T/no/such/dir/x.json" >"$T/o14" 2>&1
check "--json into a missing directory fails before the run" \
	"[ $? -eq 2 ] && grep -q 'cannot write' $T/o14 && ! grep -q latency $T/o14"

# Weights larger than the device: a model of 2.4 MiB on 1 MiB of VRAM.
$PY - "$T/big.onnx" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
w = numpy_helper.from_array(np.ones((1024, 600), np.float32), "w")
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "big",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 600])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PYEOF
$B/bin/npuc "$T/big.onnx" -o "$T/big.om" --no-cache >/dev/null 2>&1
NPU_SIM_VRAM_MB=1 $RUN "$T/big.om" >"$T/o15" 2>&1
st=$?
check "out of device memory: DEVICE_NOMEM with the sizes asked and available" \
	"[ $st -eq 3 ] && grep -q NPURT_ERR_DEVICE_NOMEM $T/o15 &&
	 grep -q 'asked for 2.3 MiB (2457600 bytes)' $T/o15 &&
	 grep -q '1.0 MiB in all' $T/o15"
check "out of device memory: says what to do, not 'report it'" \
	"grep -q 'hint: larger than the whole device.*NPU_SIM_VRAM_MB' $T/o15 &&
	 ! grep -q 'report it' $T/o15 && ! grep -q 'Argument list' $T/o15"
NPU_SIM_SEMS=2 $RUN "$T/two_branch.om" >"$T/o16" 2>&1
st=$?
check "out of semaphores: NO_RESOURCE naming semaphores, not out of memory" \
	"[ $st -eq 3 ] && grep -q 'NPURT_ERR_NO_RESOURCE.*semaphores used up: asked for 1, got 0; the device has 2' $T/o16 &&
	 ! grep -qi 'out of memory' $T/o16"

start=$(date +%s%N)
$RUN "$T/mlp.om" --duration 1 --json "$T/dur.json" >"$T/o17" 2>&1
st=$?
el=$(( ($(date +%s%N) - start) / 1000000 ))
check "--duration 1 runs for about a second ($el ms), many runs" \
	"[ $st -eq 0 ] && [ $el -ge 1000 ] && [ $el -lt 6000 ] &&
	 $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"runs\"] > 10 and not d[\"interrupted\"]' $T/dur.json"
$RUN "$T/mlp.om" --duration 30 --loop 7 >"$T/o18" 2>&1
check "--loop caps --duration" "[ $? -eq 0 ] && grep -q '(7 runs' $T/o18"
$RUN "$T/mlp.om" --duration 0 >/dev/null 2>&1
check "--duration 0 is a usage error" "[ $? -eq 2 ]"

# The progress line: on a terminal (script(1) gives a pty), not in a file.
if command -v script >/dev/null; then
	script -qfec "$RUN $T/mlp.om --duration 1.6" /dev/null >"$T/o19" 2>&1
	check "progress line on a terminal" \
		"grep -q 'npu-run: run [0-9]*, .* of 1.6 s, mean' $T/o19 && grep -q latency $T/o19"
else
	ok "# SKIP script(1) missing"
fi
check "no progress line when stderr is not a terminal" \
	"! grep -q 'npu-run: run' $T/o17"

$RUN "$T/mlp.om" --duration 60 --json "$T/int.json" >"$T/o20" 2>"$T/e20" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
st=$?
check "Ctrl-C: exit 130 with the statistics so far (text and JSON)" \
	"[ $st -eq 130 ] && grep -q 'interrupted after [1-9][0-9]* timed runs' $T/e20 &&
	 grep -q 'latency .* runs, 0 warmup, interrupted' $T/o20 &&
	 $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"interrupted\"] and d[\"runs\"] > 0' $T/int.json"

v=$($RUN --version)
check "--version prints the version ($v)" \
	"echo '$v' | grep -q '^npu-run [0-9][0-9.]* (runtime library [0-9.]*)$'"
