#!/bin/sh
# SPDX-License-Identifier: MIT
#
# alloc-bench refuses malformed traces with exit status 2 and a message that
# names the file, the line and what was expected.
BUILD=${BUILD:-build}
BIN=$BUILD/bin/alloc-bench
if [ ! -x "$BIN" ]; then
	echo "1..0 # SKIP $BIN not built (run make)"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=0
fails=0
refused() {	# $1: what, $2: trace text, $3: expected message fragment
	n=$((n + 1))
	printf '%b' "$2" > "$dir/t.trace"
	out=$("$BIN" --quiet "$dir/t.trace" 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && echo "$out" | grep -q "t.trace:[0-9]*: .*$3"; then
		echo "ok $n - $1 is refused: $out"
	else
		echo "not ok $n - $1 (exit $rc): $out"
		fails=$((fails + 1))
	fi
}
echo "1..7"
refused "a free of an unknown id" "alloc 1 100 0\nfree 2\n" "not live"
refused "a double free" "alloc 1 100 0\nfree 1\nfree 1\n" "not live"
refused "an id allocated twice" "alloc 1 100 0\nalloc 1 100 0\n" "allocated twice"
refused "a size of 0" "alloc 1 0 0\n" "SIZE > 0"
refused "an unknown operation" "alloc 1 10 0\nrealloc 1 20\n" "unknown operation"
refused "a trace without allocations" "# nothing\nsync\n" "no allocations"
n=$((n + 1))
printf 'alloc 1 100 0\nfree 1\nalloc 1 200 0\nfree 1\n' > "$dir/t.trace"
if "$BIN" --quiet "$dir/t.trace" >/dev/null 2>&1; then
	echo "ok $n - an id may be allocated again after its free"
else
	echo "not ok $n - an id may be allocated again after its free"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
