#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The done-when checks of the allocation benchmark on small traces (so that
# the test stays fast): with compaction every trace completes in at most
# 1.05 x its peak live bytes, no backend needs less capacity than ours, and
# no allocation fails while total free >= request with compaction on.
# alloc-bench --tap prints the TAP lines itself.
set -e
BUILD=${BUILD:-build}
BIN=$BUILD/bin/alloc-bench
if [ ! -x "$BIN" ]; then
	echo "1..0 # SKIP $BIN not built (run make)"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 bench/alloc/gen_traces.py "$dir" --scale small --seed 7
exec "$BIN" --tap --quiet --json "$dir/out.json" \
	"$dir/cnn_infer.trace" "$dir/transformer_infer.trace" \
	"$dir/training.trace" "$dir/kv_cache.trace" "$dir/adversarial.trace"
