#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Operator plugins end to end (TAP; Documentation/plugins.rst): custom-
# domain ONNX models made here by /usr/bin/python3 (make_models.py),
# compiled by npuc with the example plugin, run by npu-run and compared
# with numpy; unknown ops named, the host engine switched off, a model
# refused without its plugin or with another build of it; the host
# engine's safety and overlap checks (test_host_tasks).
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3
EX=$B/examples/libexample_ops.so
FP=$B/examples/tests/libfaulty_ops.so
NPUC="$B/bin/npuc --no-cache"
RUN=$B/bin/npu-run
echo "1..20"
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}

$PY examples/plugin/make_models.py "$T" >"$T/py.log" 2>&1
check "the custom-domain models are made" "[ -f $T/swish.onnx ] && [ -f $T/roi.onnx ]"

$NPUC "$T/mixed.onnx" -o "$T/mixed.om" >"$T/o1" 2>&1
check "without plugins npuc names every unknown op and how to provide it" \
	"grep -q \"'Swish' of domain 'com.example'\" $T/o1 &&
	 grep -q \"'FancyNorm' of domain 'com.acme' (2 nodes\" $T/o1 &&
	 grep -q \"'Blur' of domain 'com.acme'\" $T/o1 &&
	 grep -q -- '--plugin PATH' $T/o1 && grep -q NPUC_PLUGIN_PATH $T/o1"
$NPUC --plugin $EX "$T/mixed.onnx" -o "$T/mixed.om" >"$T/o2" 2>&1
check "with the plugin only the ops nobody serves are named" \
	"! grep -q Swish $T/o2 && grep -q FancyNorm $T/o2 && grep -q Blur $T/o2"

$NPUC --plugin $EX "$T/swish.onnx" -o "$T/swish.om" --report >"$T/r1" 2>&1
check "Swish compiles by decomposition; the report names the plugin" \
	"grep -q \"node 'swish1' com.example::Swish: plugin example-ops 1.0.0 [0-9a-f]*, decomposed\" $T/r1"
mkdir -p "$T/ref_sw"
cp "$T/swish_ref_0.npy" "$T/ref_sw/output_0.npy"
$RUN "$T/swish.om" -i x="$T/swish_in_x.npy" --compare "$T/ref_sw" >"$T/run1" 2>&1
check "Swish model matches numpy" "grep -q 'compare      y: OK' $T/run1"

NPUC_PLUGIN_PATH=$B/examples $NPUC "$T/roi.onnx" -o "$T/roi.om" --report \
	--report-json "$T/roi.json" >"$T/r2" 2>&1
check "RoIAlign compiles to a host task (plugin from \$NPUC_PLUGIN_PATH)" \
	"grep -q \"node 'roi1' com.example::RoIAlign: plugin example-ops 1.0.0 [0-9a-f]*, host\" $T/r2 &&
	 grep -q '\"host_tasks\": 1' $T/roi.json"
$B/bin/npu-om "$T/roi.om" >"$T/om" 2>&1
check "the .om (format 1.2 or later) has the host task with plugin and digest" \
	"grep -Eq 'format *1\\.([2-9]|[1-9][0-9])' $T/om && grep -q HOST_TASKS $T/om &&
	 grep -q 'host task 0: node \"roi1\" com.example::RoIAlign.*plugin example-ops 1.0.0 digest [0-9a-f]\{16\}' $T/om"
$NPUC --plugin $EX --no-host-engine "$T/roi.onnx" -o "$T/x.om" >"$T/o3" 2>&1
check "--no-host-engine refuses it naming the node" \
	"[ ! -f $T/x.om ] && grep -q \"host engine is off.*'roi1' (RoIAlign)\" $T/o3"

mkdir -p "$T/ref_roi"
cp "$T/roi_ref_0.npy" "$T/ref_roi/output_0.npy"
cp "$T/roi_ref_1.npy" "$T/ref_roi/output_1.npy"
RIN="-i x=$T/roi_in_x.npy -i rois=$T/roi_in_rois.npy -i bidx=$T/roi_in_bidx.npy"
$RUN "$T/roi.om" $RIN >"$T/run2" 2>&1
check "npu-run without the plugin refuses the model naming op and plugin" \
	"grep -q 'node \"roi1\" (com.example::RoIAlign) runs on the host with plugin example-ops 1.0.0 (digest [0-9a-f]*), which is not loaded' $T/run2"
$RUN "$T/roi.om" --plugin $EX $RIN --compare "$T/ref_roi" \
	--loop 3 --profile "$T/trace.json" >"$T/run3" 2>&1
check "RoIAlign model (host task; npu-run --plugin) matches numpy" \
	"grep -q 'compare      y: OK' $T/run3 && grep -q 'compare      z: OK' $T/run3"
check "the profile has a host engine track with RoIAlign" \
	"grep -q '\"name\":\"host engine\"' $T/trace.json &&
	 grep -q '\"name\":\"RoIAlign\".*\"core\":4294967295' $T/trace.json"
NPURT_MAX_QUEUES=1 NPUC_PLUGIN_PATH=$B/examples $RUN "$T/roi.om" $RIN \
	--compare "$T/ref_roi" --loop 3 >"$T/run6" 2>&1
check "with its streams merged onto one queue (NPURT_MAX_QUEUES=1)" \
	"grep -q 'compare      y: OK' $T/run6 && grep -q 'compare      z: OK' $T/run6"
NPUC_PLUGIN_PATH=$B/examples $RUN "$T/roi.om" $RIN --dump "$T/dump" \
	>"$T/run7" 2>&1
check "a dump has the host task's output (pooled.npy) as numpy computes it" \
	"$PY -c 'import numpy as np,sys; p=np.load(sys.argv[1]); y=np.load(sys.argv[2]); \
assert np.allclose(1/(1+np.exp(-p)), y, 1e-5, 1e-6)' $T/dump/pooled.npy $T/roi_ref_0.npy"
NPUC_PLUGIN_PATH=$B/examples $RUN "$T/roi.onnx" $RIN --compare "$T/ref_roi" \
	--no-cache >"$T/run5" 2>&1
check "the ONNX model runs through online compilation (\$NPUC_PLUGIN_PATH)" \
	"grep -q 'compare      y: OK' $T/run5 && grep -q 'compare      z: OK' $T/run5"
mkdir -p "$T/other"
cp $EX "$T/other/libexample_ops.so"
printf 'x' >>"$T/other/libexample_ops.so"
NPUC_PLUGIN_PATH=$T/other $RUN "$T/roi.om" $RIN >"$T/run4" 2>&1
check "a plugin of another digest is refused naming the op and both digests" \
	"grep -q 'node \"roi1\" (com.example::RoIAlign) was compiled with plugin example-ops 1.0.0 digest [0-9a-f]*; the loaded .*other/libexample_ops.so .* has digest' $T/run4"

# The host engine's safety and overlap checks, through the library.
for m in 0 1 2 3 4; do
	$NPUC --plugin $FP "$T/faulty$m.onnx" -o "$T/faulty$m.om" >>"$T/fc" 2>&1
done
for f in roi_in_x roi_in_rois roi_in_bidx roi_ref_0 roi_ref_1; do
	$PY -c 'import numpy as np,sys; np.load(sys.argv[1]).tofile(sys.argv[2])' \
		"$T/$f.npy" "$T/$f.raw"
done
check "the faulty plugin's models compile" "[ -f $T/faulty4.om ]"
$B/tests/libnpurt/test_host_tasks "$T" $EX $FP >"$T/ht" 2>&1
rc=$?
sed 's/^/# /' "$T/ht"
check "test_host_tasks: faulty kernels fail only their execution" \
	"[ $rc -eq 0 ] && [ \$(grep -c '^ok .*mode [1-4] fails its execution only' $T/ht) -eq 4 ]"
check "test_host_tasks: RoIAlign matches and its host task overlaps stream 1" \
	"[ $rc -eq 0 ] && grep -q '^ok .*overlaps [1-9][0-9]* device task' $T/ht"

sed 's/NPUC_PLUGIN_ABI_VERSION,/NPUC_PLUGIN_ABI_VERSION + 1,/' \
	examples/plugin/example_ops.c >"$T/bad_abi.c"
cc -std=c11 -fPIC -shared -Icompiler/include "$T/bad_abi.c" -lm \
	-o "$T/bad_abi.so" 2>"$T/cc.log"
$NPUC --plugin "$T/bad_abi.so" "$T/swish.onnx" -o "$T/y.om" >"$T/o4" 2>&1
check "a plugin of another ABI version is refused naming both" \
	"grep -q 'built for plugin ABI 2; this npuc/libnpurt speaks ABI 1' $T/o4"
$B/bin/npu-om --timing "$T/roi.om" >"$T/timing" 2>&1
check "the timing model schedules a model with a host task" \
	"grep -q 'modeled: .* us' $T/timing"
