#!/bin/sh
# SPDX-License-Identifier: MIT
# npu-om on the runtime's test models (TAP).
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "1..9"
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
$B/bin/npu-om --timing --tasks "$T/two_branch.om" >"$T/t1"
check "--timing: modeled latency, unit use, the overlapped branches" \
	"[ $? -eq 0 ] && grep -q 'modeled: .* us (.* cycles at 1000 MHz, 4 cores), 9 tasks' $T/t1 &&
	 grep -q 'stream 1  cube   core 1  task' $T/t1 &&
	 grep -q 'VRAM: .* bytes moved' $T/t1"
$B/bin/npu-om --timing-json "$T/t.json" --timing-trace "$T/t.trace" \
	--timing-params cores=1 "$T/two_branch.om"
check "--timing-json and --timing-trace write JSON; cores=1 is slower" \
	"[ $? -eq 0 ] && grep -q '\"cores\": 1' $T/t.json &&
	 grep -q '\"traceEvents\"' $T/t.trace && grep -q '\"tid\":\"cube\"' $T/t.trace &&
	 [ \$(sed 's/.*latency_cycles\": \([0-9]*\).*/\\1/' $T/t.json) -gt \
	   \$(sed -n 's/.*modeled: [0-9.]* us (\([0-9]*\) cycles.*/\\1/p' $T/t1) ]"
$B/bin/npu-om --timing --timing-params cores=0 "$T/two_branch.om" \
	>/dev/null 2>"$T/t2"
check "a bad timing parameter is named (exit 2)" \
	"[ $? -eq 2 ] && grep -q 'cores' $T/t2"
NPU_TIMING=warp=1 $B/bin/npu-om --timing "$T/two_branch.om" >/dev/null 2>"$T/t3"
check "NPU_TIMING is read and checked too" \
	"[ $? -eq 2 ] && grep -q \"unknown timing parameter 'warp'\" $T/t3"
