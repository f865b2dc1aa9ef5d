#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz_campaign.sh - `make fuzz-campaign`: a long libFuzzer run of
# PROGRAM_CREATE + SUBMIT that keeps going after a finding (fork mode),
# then the figures: executions, libFuzzer's coverage (cov/ft), the line
# coverage of the validator (llvm-cov over the campaign corpus) and one
# line per finding.
# Environment: BUILD (build), FUZZ_SECONDS (1800), FUZZ_JOBS (1), and
# NPU_FUZZ_MAX_ELEMS (npu_fuzz_target.c) to keep off merely huge tasks.
# Corpus: $BUILD/fuzz/campaign-corpus (grows from run to run, and gets
# selftests/npu/fuzz/corpus's new files at each start); findings:
# $BUILD/fuzz/findings/.

set -u
BUILD=${BUILD:-build}
SECS=${FUZZ_SECONDS:-1800}
JOBS=${FUZZ_JOBS:-1}
D=$BUILD/fuzz
FUZZ=$D/npu_fuzz
COV=$D/npu_fuzz_cov
CORPUS=$D/campaign-corpus
FINDINGS=$D/findings
LOG=$D/campaign.log

mkdir -p "$CORPUS" "$FINDINGS"
# the checked-in seeds and regressions every time: a corpus grown before
# an opcode existed would never start from that opcode's seeds
cp -n selftests/npu/fuzz/corpus/* "$CORPUS/"
echo "fuzz-campaign: ${SECS}s, $JOBS job(s), corpus $CORPUS, findings $FINDINGS"
start=$(date +%s)
"$FUZZ" -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
	-max_total_time="$SECS" -timeout=60 -max_len=512 -rss_limit_mb=4096 \
	-artifact_prefix="$FINDINGS/" "$CORPUS" > "$LOG" 2>&1
secs=$(( $(date +%s) - start ))
last=$(grep -E '^#[0-9]+' "$LOG" | tail -n 1)
echo "executions and coverage after ${secs}s (libFuzzer): $last"
echo "corpus: $(ls "$CORPUS" | wc -l) inputs"

# Line coverage of the validator: the corpus through a coverage build.
if [ -x "$COV" ] && command -v llvm-profdata >/dev/null 2>&1 &&
   command -v llvm-cov >/dev/null 2>&1; then
	rm -f "$D"/cov-*.profraw
	# merely huge tasks are validated but not run: a job that does not end
	# would stop the replay
	LLVM_PROFILE_FILE="$D/cov-%p.profraw" NPU_SIM_GUARD=1 \
		timeout 1200 "$COV" --device sim --job-ms 10000 \
		--max-elems "${NPU_FUZZ_MAX_ELEMS:-16777216}" "$CORPUS" \
		> "$D/cov-replay.log" 2>&1
	tail -n 3 "$D/cov-replay.log" | grep '^#' | sed 's/^# /corpus replay: /'
	llvm-profdata merge -o "$D/cov.profdata" "$D"/cov-*.profraw &&
	llvm-cov report "$COV" -instr-profile="$D/cov.profdata" \
		kernel/npu_drv/ops/npu_ops_check.c kernel/npu_drv/core/program.c \
		kernel/npu_drv/core/submit.c
	echo "(per-line: llvm-cov show $COV -instr-profile=$D/cov.profdata kernel/npu_drv/ops/npu_ops_check.c)"
else
	echo "line coverage: skipped (no $COV or llvm-cov)"
fi

# Findings: each input once more, alone, for what it does.
n=$(ls "$FINDINGS" | wc -l)
echo "findings: $n input(s) in $FINDINGS"
for f in "$FINDINGS"/*; do
	[ -f "$f" ] || continue
	what=$(timeout 60 "$FUZZ" -timeout=60 "$f" 2>&1 |
	       grep -E 'npu_fuzz: FINDING|npu_sim guard|ERROR: AddressSanitizer|runtime error|SEGV on|ALARM|timeout after' |
	       head -n 2 | tr '\n' ' ')
	echo "  $(basename "$f"): ${what:-no longer reproduces}"
	[ -x "$BUILD/bin/npu_fuzz_replay" ] &&
		"$BUILD/bin/npu_fuzz_replay" --decode "$f" | sed 's/^[^:]*: /    program: /'
done
