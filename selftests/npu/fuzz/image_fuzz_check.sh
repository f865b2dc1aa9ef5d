#!/bin/sh
# SPDX-License-Identifier: MIT
#
# image_fuzz_check.sh - the image decoder's part of `make check` (TAP):
#   1. the image corpus (selftests/npu/fuzz/image-corpus: baseline,
#      progressive, 4:2:0/4:2:2/4:4:4, odd-sized, grey and CMYK JPEGs;
#      RGB, grey, 16-bit, palette, 1-bit and alpha PNGs) and truncations of
#      every file replayed through the decoder (plain C);
#   2. a bounded libFuzzer run from that corpus under ASan and UBSan
#      (skipped without clang's libFuzzer).
# Environment: BUILD (build), NPU_IMAGE_FUZZ_SECONDS (20).

set -u
BUILD=${BUILD:-build}
SECS=${NPU_IMAGE_FUZZ_SECONDS:-20}
CORPUS=selftests/npu/fuzz/image-corpus
REPLAY=$BUILD/bin/npu_fuzz_image_replay
FUZZ=$BUILD/fuzz/npu_fuzz_image
WORK=$BUILD/fuzz/image-check
FINDINGS=$BUILD/fuzz/image-findings

echo "1..2"
rm -rf "$WORK"
mkdir -p "$WORK" "$FINDINGS"
cp "$CORPUS"/* "$WORK/"
# truncations at a third, a half and all but one byte
for f in "$CORPUS"/*; do
	n=$(wc -c < "$f")
	for cut in $((n / 3)) $((n / 2)) $((n - 1)); do
		head -c "$cut" "$f" > "$WORK/cut$cut-$(basename "$f")"
	done
done
if [ ! -x "$REPLAY" ]; then
	echo "not ok 1 - image corpus replay: $REPLAY not built"
else
	out=$(timeout 120 "$REPLAY" "$WORK"/* 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok 1 - image corpus and truncations replayed: $(echo "$out" | tail -n 1 | sed 's/^# //')"
	else
		echo "not ok 1 - image corpus replay (exit $rc)"
		echo "$out" | tail -n 5 | sed 's/^/# /'
	fi
fi

if [ ! -x "$FUZZ" ]; then
	echo "ok 2 - bounded libFuzzer run of the decoder # SKIP $FUZZ not built"
	exit 0
fi
timeout $((SECS + 60)) "$FUZZ" -max_total_time="$SECS" -seed=1 -timeout=10 \
	-max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$FINDINGS/" "$WORK" > "$BUILD/fuzz/image-check.log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz/image-check.log")
if [ $rc -eq 0 ]; then
	echo "ok 2 - bounded libFuzzer run of the decoder (${SECS}s): ${execs:-?} executions, no finding"
else
	echo "not ok 2 - bounded libFuzzer run of the decoder: exit $rc after ${execs:-?} executions"
	grep -E 'ERROR: |SUMMARY|runtime error|Test unit written' \
		"$BUILD/fuzz/image-check.log" | head -n 20 | sed 's/^/# /'
fi
