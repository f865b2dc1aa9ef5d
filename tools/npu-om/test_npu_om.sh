#!/bin/sh
# SPDX-License-Identifier: MIT
# npu-om on the runtime's test models (TAP).
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "1..5"
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
$B/tests/libnpurt/mkmodels "$T" || { echo "Bail out! mkmodels"; exit 1; }
$B/bin/npu-om --tasks "$T/two_branch.om" >"$T/o1"
check "two-branch: header, sections, streams, semaphore, tasks" \
	"[ $? -eq 0 ] && grep -q 'target.*0x910' $T/o1 &&
	 grep -q 'WEIGHTS' $T/o1 && grep -q 'stream 1: 4 task' $T/o1 &&
	 grep -q 'semaphore 0: +1 per execution' $T/o1 &&
	 grep -q 'SEM_WAIT' $T/o1 && grep -q 'branch_b' $T/o1"
$B/bin/npu-om --tasks "$T/mlp.om" >"$T/o4"
check "provenance: the fused task names its ONNX nodes and tensor" \
	"grep -q 'from onnx fc1, relu1' $T/o4 &&
	 grep -q 'makes h float32\[[0-9]*,16\] ND at slot 1+64' $T/o4"
$B/bin/npu-om "$T/mlp_dyn.om" >"$T/o2"
check "dynamic model: symbolic dim and three variants" \
	"grep -q 'x .*\[batch,8\]' $T/o2 && grep -q 'variant 2 \"batch=4\"' $T/o2"
cp "$T/mlp.om" "$T/bad.om"
printf '\377' | dd of="$T/bad.om" bs=1 seek=200 conv=notrunc 2>/dev/null
$B/bin/npu-om "$T/bad.om" >/dev/null 2>"$T/o3"
check "a corrupt file is refused with the reason (exit 1)" \
	"[ $? -eq 1 ] && grep -q 'checksum' $T/o3"
$B/bin/npu-om >/dev/null 2>&1
check "usage error exits 2" "[ $? -eq 2 ]"
