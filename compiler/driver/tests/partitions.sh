#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The partition cache (compiler/cache/partition.h, online.rst) on real
# models (exported at test time, random weights, fixed seed):
#  - resnet50 with a new head (10 classes, tests/models/new_head.py)
#    compiled after resnet50 reuses >= 90% of its nodes, and its .om has
#    the bytes of a compile without any cache;
#  - a second new head (20 classes) stores one entry more: the two models
#    share the backbone's entries;
#  - resnet18 exported again under other names (and a new head) finds
#    every partition but the head's;
#  - resnet18 with a changed first conv (and the renamed model's head)
#    derives that partition's weights again and reuses the rest, the
#    same bytes as without the cache;
#  - resnet18 at batch 2 finds every partition of batch 1 (the keys
#    leave the values' dims out), to the bytes of a compile without it;
#  - two models with the same backbone compiled at once into an empty
#    cache both store its entries (a temporary file each, renamed): a
#    third model then finds them whole;
#  - damaged entries are found out, removed and derived again;
#  - an int8 QAT model's packed conv weights come from the cache the
#    second time, to the same bytes.
# Compile times are printed (cold vs reused), never asserted.
BUILD=${BUILD:-build}
NPUC=$BUILD/bin/npuc
PY=/usr/bin/python3
MODELS=$BUILD/models
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
export NPU_CACHE_DIR="$TMP/cache"

if [ ! -x "$PY" ] || ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "1..0 # SKIP /usr/bin/python3 with torch, torchvision and onnx is needed to export the models"
	exit 0
fi
echo "1..12"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { if [ "$1" = 1 ]; then ok "$2"; else nok "$2"; fi; }

"$PY" tests/models/export_models.py --out "$MODELS" resnet18 resnet50 \
	>"$TMP/export.log" 2>&1 || sed 's/^/# /' "$TMP/export.log"
r50="$MODELS/resnet50/model.onnx"
r18="$MODELS/resnet18/model.onnx"
head() { "$PY" tests/models/new_head.py "$@" >>"$TMP/head.log" 2>&1; }
head "$r50" "$TMP/r50_10.onnx" 10
head "$r50" "$TMP/r50_20.onnx" 20
head "$r18" "$TMP/r18_ren.onnx" 7 --rename
head "$r18" "$TMP/r18_first.onnx" 7 --perturb-first-conv
[ -s "$TMP/head.log" ] && sed 's/^/# /' "$TMP/head.log"

# compile NAME MODEL [npuc options]: report in $TMP/NAME.json, .om in NAME.om
compile() {
	name=$1 model=$2
	shift 2
	"$NPUC" "$model" -o "$TMP/$name.om" --report-json "$TMP/$name.json" \
		"$@" >"$TMP/$name.log" 2>&1 || sed 's/^/# /' "$TMP/$name.log"
}
# q NAME EXPR: a Python expression over the report `r` and its
# partitions `p`
q() {
	"$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); p=r.get('partitions',{}); print($2)" "$TMP/$1.json" 2>/dev/null
}
entries() { ls "$NPU_CACHE_DIR" 2>/dev/null | grep -c '\.npup$'; }
same() { cmp -s "$TMP/$1.om" "$TMP/$2.om" && echo 1; }

compile r50 "$r50"
compile r50_10 "$TMP/r50_10.onnx"
compile r50_10_cold "$TMP/r50_10.onnx" --no-cache
echo "# resnet50, cold: $(q r50 "'%.0f ms, %d partitions stored' % (r['total_ms'], p['stored'])")"
echo "# new head after it: $(q r50_10 "'%.0f ms; %d of %d nodes reused, %d of %d partitions found, %d of %d derived constants (%.1f MB) fetched, %.0f ms saved' % (r['total_ms'], p['nodes_reused'], p['nodes'], p['found'], p['count'], p['derived_hit'], p['derived'], p['bytes_reused'] / 1e6, p['saved_ms'])")"
echo "# new head without the cache: $(q r50_10_cold "'%.0f ms' % r['total_ms']")"
check "$(q r50 "int(p['found'] == 0 and p['stored'] > 0)")" \
	"resnet50 cold: no partition found, $(q r50 "p['stored']") entries stored"
check "$(q r50_10 "int(p['nodes_reused'] >= 0.9 * p['nodes'] and p['derived_hit'] >= p['derived'] - 1)")" \
	"resnet50 with a new head reuses >= 90% of its nodes ($(q r50_10 "'%d of %d' % (p['nodes_reused'], p['nodes'])"))"
check "$(same r50_10 r50_10_cold)" \
	"the reused compile has the bytes of a compile without the cache"

before=$(entries)
compile r50_20 "$TMP/r50_20.onnx"
after=$(entries)
check "$(q r50_20 "int(p['found'] == p['count'] - 1 and p['stored'] == 1)")$( [ $((after - before)) = 1 ] || echo x)" \
	"a second head: one entry more ($before -> $after), the backbone's shared"

# Two heads compiled at once into an empty cache: the backbone's entries
# written by both, renamed over each other; resnet50 itself then finds
# every partition but its head's, none damaged.
(export NPU_CACHE_DIR="$TMP/cc"; compile par10 "$TMP/r50_10.onnx") &
pid=$!
(export NPU_CACHE_DIR="$TMP/cc"; compile par20 "$TMP/r50_20.onnx")
wait $pid
(export NPU_CACHE_DIR="$TMP/cc"; compile par50 "$r50")
check "$(q par50 "int(p['found'] == p['count'] - 1 and p['corrupt'] == 0 and p['derived_hit'] == p['derived'] - 1)")" \
	"two heads compiled at once, then resnet50: $(q par50 "'%d of %d partitions found, %d damaged' % (p['found'], p['count'], p['corrupt'])")"

compile r18 "$r18"
compile r18_ren "$TMP/r18_ren.onnx"
check "$(q r18_ren "int(p['found'] >= p['count'] - 1 and p['nodes_reused'] >= 0.9 * p['nodes'])")" \
	"resnet18 renamed (every node and tensor) with a new head: $(q r18_ren "'%d of %d partitions found' % (p['found'], p['count'])")"

compile r18_first "$TMP/r18_first.onnx"
compile r18_first_cold "$TMP/r18_first.onnx" --no-cache
# (its 7-class head has the renamed model's weights: found; resnet18 keeps
# its BatchNormalizations, so the conv derives two constants: the folded
# weights and their reordering)
check "$(q r18_first "int(p['found'] == p['count'] - 1 and p['derived_hit'] == p['derived'] - 2)")" \
	"a changed first conv: its partition alone derives again ($(q r18_first "'%d of %d derived constants fetched' % (p['derived_hit'], p['derived'])"))"
check "$(same r18_first r18_first_cold)" "... to the bytes of a compile without the cache"

# Another batch: the same partitions, the same derived weights.
compile r18_b2 "$r18" --input-shape "input:2,3,224,224"
compile r18_b2_cold "$r18" --input-shape "input:2,3,224,224" --no-cache
v="$(q r18_b2 "int(p['found'] == p['count'] and p['derived_hit'] == p['derived'] > 0)")$(same r18_b2 r18_b2_cold)"
check "$([ "$v" = 11 ] && echo 1)" \
	"resnet18 at batch 2 after batch 1: $(q r18_b2 "'%d of %d partitions found, %d of %d derived constants fetched' % (p['found'], p['count'], p['derived_hit'], p['derived'])"), the same bytes"

# Damage every entry that holds data, then compile again (not from the
# whole-model cache).
for f in "$NPU_CACHE_DIR"/*.npup; do
	[ "$(wc -c <"$f")" -gt 8192 ] || continue
	printf 'garbage!' | dd of="$f" bs=1 seek=4000 conv=notrunc 2>/dev/null
done
rm -f "$NPU_CACHE_DIR"/*.npuc "$NPU_CACHE_DIR"/*.ref
compile r18_dmg "$TMP/r18_first.onnx"
check "$(q r18_dmg "int(p['corrupt'] > 0 and p['derived_hit'] < p['derived'])")" \
	"damaged entries: $(q r18_dmg "'%d damaged, %d of %d fetched' % (p['corrupt'], p['derived_hit'], p['derived'])")"
check "$(same r18_dmg r18_first_cold)" "... derived again: the same bytes"

# int8: the packed QConv weights (qconv-weight-pack) are kept and found.
"$PY" -c "import sys; sys.path.insert(0, 'tests/quant'); import qdq_models; qdq_models.torch_qat(sys.argv[1])" \
	"$TMP/qat.onnx" >"$TMP/qat.log" 2>&1 || sed 's/^/# /' "$TMP/qat.log"
compile qat1 "$TMP/qat.onnx"
rm -f "$NPU_CACHE_DIR"/*.npuc "$NPU_CACHE_DIR"/*.ref
compile qat2 "$TMP/qat.onnx"
compile qat_cold "$TMP/qat.onnx" --no-cache
v="$(q qat2 "int(p['derived'] > 0 and p['derived_hit'] == p['derived'] and 'qconv-weight-pack:0/0/0/0' not in r['passes'])")$(same qat2 qat_cold)"
check "$([ "$v" = 11 ] && echo 1)" \
	"int8 QAT model: $(q qat2 "'%d of %d packed weights fetched' % (p['derived_hit'], p['derived'])"), the same bytes"
