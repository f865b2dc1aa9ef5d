#!/bin/sh
# SPDX-License-Identifier: MIT
#
# npuc's command line (TAP): every unsupported operator of a model named in
# one message with a pointer to the operator table; the ATC spellings
# (--model, --output, --framework=5, --input_shape, --soc_version, --log);
# --list-ops, --list-passes, --version.
set -u
B=${BUILD:-build}
NPUC=$B/bin/npuc
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PY=/usr/bin/python3

echo "1..14"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

$PY - "$T" <<'PYEOF'
import sys, onnx
from onnx import helper, TensorProto
d = sys.argv[1]
def save(nodes, name, opset=13):
    g = helper.make_graph(nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
        [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset),
                                            helper.make_opsetid("com.microsoft", 1)])
    onnx.save(m, f"{d}/{name}.onnx")
N = helper.make_node
save([N("Relu", ["x"], ["a"], name="relu"),
      N("FooBar", ["a"], ["b"], name="foo1"),
      N("Baz", ["b"], ["c"], name="baz"),
      N("FooBar", ["c"], ["e"], name="foo2"),
      N("Gelu", ["e"], ["f"], name="ms_gelu", domain="com.microsoft"),
      N("Relu", ["f"], ["y"], name="relu2")], "unsupported")
save([N("Relu", ["x"], ["y"], name="relu")], "relu")
PYEOF

$NPUC "$T/unsupported.onnx" -o "$T/u.om" --no-cache >"$T/o1" 2>&1
st=$?
check "unsupported ops: exit 1, every one named in one message" \
	"[ $st -eq 1 ] && [ \$(wc -l <$T/o1) -eq 1 ] &&
	 grep -q \"op 'FooBar' (2 nodes, first 'foo1')\" $T/o1 &&
	 grep -q \"op 'Baz' (node 'baz')\" $T/o1 &&
	 grep -q \"op 'Gelu' of domain 'com.microsoft' (node 'ms_gelu')\" $T/o1"
check "unsupported ops: points to npuc --list-ops and Documentation/ops.rst" \
	"grep -q 'npuc --list-ops' $T/o1 && grep -q 'Documentation/ops.rst' $T/o1 &&
	 [ -f Documentation/ops.rst ] && grep -q '^ONNX operators' Documentation/ops.rst"
check "unsupported ops: the supported Relu is not named" \
	"! grep -q Relu $T/o1"

mkdir "$T/out"
$NPUC --model="$T/relu.onnx" --framework=5 --output="$T/out/relu" \
	--input_shape="x:2,4" --soc_version=sim910-lite --log=info \
	--no-cache >"$T/o2" 2>"$T/e2"
st=$?
check "ATC spellings compile; --output=NAME writes NAME.om" \
	"[ $st -eq 0 ] && [ -s $T/out/relu.om ] && [ ! -e $T/out/relu ]"
check "--input_shape fixes the shape, --soc_version picks the profile, --log=info prints the report" \
	"$B/bin/npu-om $T/out/relu.om | grep -q '\[2,4\]' &&
	 grep -q 'sim910-lite' $T/e2"
$NPUC --model "$T/relu.onnx" --output "$T/out/r2.om" --input_shape x:1,4 \
	--no-cache >/dev/null 2>&1
check "--output ending in .om is used as it is" \
	"[ $? -eq 0 ] && [ -s $T/out/r2.om ] && [ ! -e $T/out/r2.om.om ]"
$NPUC --model="$T/relu.onnx" --framework=0 -o "$T/x.om" >"$T/o3" 2>&1
check "--framework other than 5 (ONNX): exit 2, says npuc reads ONNX" \
	"[ $? -eq 2 ] && grep -q 'ONNX only' $T/o3"
$NPUC --model="$T/relu.onnx" --soc_version=Ascend310P3 -o "$T/x.om" >"$T/o4" 2>&1
check "--soc_version of a real SoC: exit 2, names npuc's targets" \
	"[ $? -eq 2 ] && grep -q 'sim910 (default), sim910-lite' $T/o4"
$NPUC --model="$T/relu.onnx" --log=verbose -o "$T/x.om" >/dev/null 2>&1
check "--log with an unknown level: exit 2" "[ $? -eq 2 ]"

$NPUC --list-ops >"$T/ops"
check "--list-ops lists the imported ops, not the internal npu.* ones" \
	"grep -qw Conv $T/ops && grep -qw LayerNormalization $T/ops &&
	 ! grep -q 'npu\\.' $T/ops"
# every op of the documented table is in --list-ops
missing=$(sed -n '/^.. optable-begin/,/^.. optable-end/p' Documentation/ops.rst |
	awk '/^[A-Z][A-Za-z]* / && $1 != "ONNX" { print $1 }' | while read -r op; do
		grep -qw "$op" "$T/ops" || echo "$op"; done)
check "--list-ops covers every op of Documentation/ops.rst ($missing)" \
	"[ -z '$missing' ]"

$NPUC "$T/relu.onnx" -o "$T/x.om" --input-shape x:1,4 --disable-pass=nosuch >"$T/o5" 2>&1
st=$?
check "an unknown pass names the listing option, and it exists" \
	"[ $st -eq 2 ] && grep -q 'npuc --list-passes' $T/o5 &&
	 $NPUC --list-passes | grep -q '^const-fold'"

v=$($NPUC --version)
check "--version ($v)" \
	"echo '$v' | grep -q '^npuc [0-9.]* (compiler [0-9.]*, .om format [0-9.]*)$'"
$NPUC "$T/relu.onnx" >/dev/null 2>&1
check "no output: usage error (exit 2)" "[ $? -eq 2 ]"
