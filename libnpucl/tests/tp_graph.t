#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tp_graph.t - collectives in graph mode (TAP): the tensor-parallel MLP of
# tp_graph.py compiled by npuc with com.npu::AllReduce nodes (the
# libnpucl_ops.so plugin, on the host engine) and run by tp_graph_test as
# 2 and 4 ranks on in-process devices, against the single-device model.
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PLUGIN=$B/lib/libnpucl_ops.so
if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
	echo "1..0 # SKIP no python3-onnx"
	exit 0
fi
/usr/bin/python3 libnpucl/tests/tp_graph.py "$T" 2 4 || {
	echo "Bail out! tp_graph.py failed"; exit 1; }
for f in "$T"/*.onnx; do
	"$B/bin/npuc" "$f" -o "${f%.onnx}.om" --no-cache --plugin "$PLUGIN" \
		>"$T/npuc.log" 2>&1 || {
		echo "Bail out! npuc $(basename "$f"): $(tail -n 3 "$T/npuc.log")"
		exit 1
	}
done
echo "1..2"
n=0
for ranks in 2 4; do
	n=$((n + 1))
	out=$(NPU_DEVICE=sim NPU_SIM_DEVICES=$ranks NPU_SIM_VRAM_MB=64 \
		NPUC_PLUGIN_PATH="$PLUGIN" timeout 300 \
		"$B/tests/libnpucl/tp_graph_test" "$T" "$ranks" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && ! echo "$out" | grep -q '^not ok'; then
		echo "ok $n - $ranks ranks: $(echo "$out" | grep -c '^ok') checks pass"
	else
		echo "not ok $n - $ranks ranks (exit $rc)"
	fi
	echo "$out" | sed 's/^/# /'
done
