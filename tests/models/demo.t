#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: `make demo`'s script (models/demo.py) compiles and runs the bundled
# model on the in-process device and agrees with torch.
cd "$(dirname "$0")/../.." || exit 1
echo 1..1
for t in "${NPUC:-${BUILD:-build}/bin/npuc}" \
	 "${NPU_RUN:-${BUILD:-build}/bin/npu-run}"; do
	if [ ! -x "$t" ]; then
		echo "ok 1 - demo # SKIP $t not built yet"
		exit 0
	fi
done
# A directory of its own: other runs of the demo may share the tree.
NPU_DEMO_DIR=${BUILD:-build}/demo.$$
export NPU_DEMO_DIR
trap 'rm -rf "$NPU_DEMO_DIR"' EXIT
if out=$(/usr/bin/python3 models/demo.py 2>&1); then
	echo "ok 1 - demo: bundled tinynet compiles, runs and agrees with torch"
else
	echo "$out" | tail -30 | sed 's/^/# /'
	echo "not ok 1 - demo: bundled tinynet compiles, runs and agrees with torch"
fi
