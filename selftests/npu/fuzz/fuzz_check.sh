#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz_check.sh - the fuzzer's part of `make check` (TAP):
#   1. the seed corpus replayed through the ioctls on the in-process device
#      in guard-page mode (npu_fuzz_replay: plain C, always available);
#   2. a bounded libFuzzer run from that corpus, under ASan and UBSan, in
#      guard-page mode (skipped when clang's libFuzzer is not installed).
# Environment: BUILD (build), NPU_FUZZ_SECONDS (120), NPU_FUZZ_SEED (1).
# A finding leaves its input in $BUILD/fuzz/check-findings/.

set -u
BUILD=${BUILD:-build}
SECS=${NPU_FUZZ_SECONDS:-120}
SEED=${NPU_FUZZ_SEED:-1}
CORPUS=selftests/npu/fuzz/corpus
REPLAY=$BUILD/bin/npu_fuzz_replay
FUZZ=$BUILD/fuzz/npu_fuzz
WORK=$BUILD/fuzz/check
FINDINGS=$BUILD/fuzz/check-findings

echo "1..2"
if [ ! -x "$REPLAY" ]; then
	echo "not ok 1 - corpus replay: $REPLAY not built"
else
	out=$(NPU_SIM_GUARD=1 timeout 300 "$REPLAY" --device sim "$CORPUS" 2>&1)
	rc=$?
	n=$(echo "$out" | grep -c '^ok')
	bad=$(echo "$out" | grep -c '^not ok')
	if [ $rc -eq 0 ] && [ "$bad" -eq 0 ] && [ "$n" -gt 0 ]; then
		echo "ok 1 - corpus replay in guard-page mode: $n inputs, no finding"
		echo "$out" | grep '^# [0-9]* refused' | sed 's/^#/#  /'
	else
		echo "not ok 1 - corpus replay in guard-page mode (exit $rc, $bad findings)"
		echo "$out" | grep -A3 '^not ok' | head -n 40 | sed 's/^/# /'
		echo "$out" | tail -n 5 | sed 's/^/# /'
	fi
fi

if [ ! -x "$FUZZ" ]; then
	echo "ok 2 - bounded libFuzzer run # SKIP $FUZZ not built (clang and libclang-rt-14-dev: scripts/install-deps.sh)"
	exit 0
fi
rm -rf "$WORK" "$FINDINGS"
mkdir -p "$WORK" "$FINDINGS"
cp "$CORPUS"/* "$WORK/"
# -timeout: a unit that never ends (the watchdog cannot stop a kernel loop)
# fails the run even before the fuzzer's own job limit.
# The time-based findings (a watchdog period without progress, a budget
# fault that comes late, a job that does not end) get four times the
# campaign's slack here: a loaded machine must not fail `make check` on a
# large but abortable unit under the sanitizers, while a kernel that
# ignores aborts still runs far past them. (A QCONV2D input of 7 s under
# ASan was reported once, in a campaign beside other builds, and never
# again in 21 replays.)
export NPU_SIM_WATCHDOG_MS=${NPU_SIM_WATCHDOG_MS:-20000}
export NPU_FUZZ_UNIT_MS=${NPU_FUZZ_UNIT_MS:-20000}
export NPU_FUZZ_JOB_MS=${NPU_FUZZ_JOB_MS:-45000}
timeout $((SECS + 120)) "$FUZZ" -max_total_time="$SECS" -seed="$SEED" \
	-timeout=60 -max_len=512 -rss_limit_mb=4096 -print_final_stats=1 \
	-artifact_prefix="$FINDINGS/" "$WORK" > "$BUILD/fuzz/check.log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz/check.log")
last=$(grep -E '^#[0-9]+' "$BUILD/fuzz/check.log" | tail -n 1)
cov=$(echo "$last" | sed -n 's/.*\(cov: [0-9]*\).*\(ft: [0-9]*\).*/\1 \2/p')
if [ $rc -eq 0 ]; then
	echo "ok 2 - bounded libFuzzer run (${SECS}s): ${execs:-?} executions, $cov, no finding"
else
	echo "not ok 2 - bounded libFuzzer run (${SECS}s): exit $rc after ${execs:-?} executions ($cov)"
	# prove shows stderr but not TAP comments: the finding goes to both,
	# with the input itself in base64, so that a CI log is enough to
	# replay it (base64 -d > f; npu_fuzz_replay --device sim f)
	{
		grep -E 'npu_fuzz: FINDING|npu_fuzz: program|npu_sim guard|ERROR: |SUMMARY|runtime error|Test unit written|npu: warning' \
			"$BUILD/fuzz/check.log" | head -n 40
		grep -E -A12 '^==[0-9]+==ERROR|runtime error' "$BUILD/fuzz/check.log" |
			head -n 60
		for f in "$FINDINGS"/*; do
			[ -f "$f" ] || continue
			echo "finding input $(basename "$f"): $(base64 -w0 "$f")"
		done
		echo "full log: $BUILD/fuzz/check.log"
	} | sed 's/^/# /' | tee /dev/stderr
fi
