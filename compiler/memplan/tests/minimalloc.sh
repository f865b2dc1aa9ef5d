#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Plans the eleven google/minimalloc benchmark problems (shared data, never
# committed) with npu-plan and checks each plan: npu-plan verifies every
# plan independently and exits 2 if one is invalid; the arena must be at or
# above the lower bound, and a plan claimed optimal must equal it when the
# bound is the capacity. Whether a problem fits depends on the time budget,
# so fitting is reported, not asserted.
DATA=${MINIMALLOC_DIR:-/work/shared/data/minimalloc}
BIN=${BUILD:-build}/bin/npu-plan
BUDGET=${NPU_PLAN_BUDGET_MS:-3000}

if [ ! -d "$DATA" ] || ! ls "$DATA"/*.csv >/dev/null 2>&1; then
	echo "1..0 # SKIP no minimalloc problems at $DATA"
	exit 0
fi
if [ ! -x "$BIN" ]; then
	echo "1..1"
	echo "not ok 1 - $BIN not built (run make)"
	exit 1
fi
set -- "$DATA"/*.csv
echo "1..$#"
n=0
fit=0
for f in "$@"; do
	n=$((n + 1))
	out=$("$BIN" --quiet --budget-ms "$BUDGET" "$f" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	line=$(echo "$out" | grep ': best ')
	best=$(echo "$line" | sed -n 's/.*best \([0-9]*\) by.*/\1/p')
	lb=$(echo "$line" | sed -n 's/.*lower bound \([0-9]*\).*/\1/p')
	if [ "$rc" -le 1 ] && [ -n "$best" ] && [ "$best" -ge "$lb" ]; then
		echo "ok $n - $(basename "$f"): valid plan, arena $best >= lower bound $lb"
	else
		echo "not ok $n - $(basename "$f"): exit $rc"
	fi
	[ "$rc" -eq 0 ] && fit=$((fit + 1))
done
echo "# $fit of $n problems fit their 1048576-byte capacity (budget ${BUDGET} ms each)"
