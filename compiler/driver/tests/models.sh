#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The compiler back end on real models (exported at test time by the e2e
# exporter, tests/models/export_models.py, random weights, fixed seed):
#  - resnet18, resnet50, mobilenet_v2 and a transformer encoder compile and
#    their planned workspace is within 2% of the lower bound;
#  - a two-branch CNN gets two streams and exactly two signal/wait pairs
#    (on one reused semaphore), and runs
#    correctly (npu-run against torch's output);
#  - compiling resnet50 twice hits the cache (both times printed); a
#    damaged cache entry is detected and recompiled to the same bytes; a
#    copy of the file hits by its content, one weight changed misses;
#  - --dynamic-batch=1,2,4,8 gives four variants.
BUILD=${BUILD:-build}
NPUC=$BUILD/bin/npuc
NPU_RUN=$BUILD/bin/npu-run
PY=/usr/bin/python3
MODELS=$BUILD/models
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
export NPU_CACHE_DIR="$TMP/cache"

if [ ! -x "$PY" ] || ! "$PY" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "1..0 # SKIP /usr/bin/python3 with torch, torchvision and onnx is needed to export the models"
	exit 0
fi
if [ ! -x "$NPUC" ]; then
	echo "1..1"
	echo "not ok 1 - $NPUC not built (run make)"
	exit 1
fi
echo "1..22"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }

"$PY" tests/models/export_models.py --out "$MODELS" \
	resnet18 resnet50 mobilenet_v2 bert_encoder two_branch_cnn >"$TMP/export.log" 2>&1 ||
	{ sed 's/^/# /' "$TMP/export.log"; }

# json FILE EXPR: evaluate a Python expression over the report `r`.
json() {
	"$PY" -c "import json,sys; r=json.load(open(sys.argv[1])); v=r['variants'][0]; p=v['plan']; print($2)" "$1"
}

for m in resnet18 resnet50 mobilenet_v2 bert_encoder; do
	j="$TMP/$m.json"
	if ! "$NPUC" "$MODELS/$m/model.onnx" -o "$TMP/$m.om" --no-cache \
		--report-json "$j" >"$TMP/$m.log" 2>&1; then
		sed 's/^/# /' "$TMP/$m.log"
		nok "$m compiles"
		continue
	fi
	json "$j" "'# %s: workspace %d, lower bound %d (+%.2f%%), no reuse %d (saves %.1f%%), %d streams, %d semaphores, by %s' % (r['model'], p['workspace'], p['lower_bound'], 100.0*(p['workspace']-p['lower_bound'])/max(p['lower_bound'],1), p['no_reuse'], 100.0*(p['no_reuse']-p['workspace'])/max(p['no_reuse'],1), v['streams'], v['semaphores'], p['best'])"
	if [ "$(json "$j" "int(p['lower_bound'] <= p['workspace'] <= p['lower_bound'] * 1.02)")" = 1 ]; then
		ok "$m: planned workspace within 2% of the lower bound"
	else
		nok "$m: planned workspace within 2% of the lower bound"
	fi
done

# Two branches: two streams, exactly the fork and the join semaphore.
j="$TMP/tb.json"
if "$NPUC" "$MODELS/two_branch_cnn/model.onnx" -o "$TMP/tb.om" --no-cache \
	--report-json "$j" >"$TMP/tb.log" 2>&1 &&
   [ "$(json "$j" "'%d %d %d' % (v['streams'], v['sync_pairs'], v['semaphores'])")" = "2 2 1" ]; then
	ok "two_branch_cnn: 2 streams, 2 signal/wait pairs on 1 semaphore ($(json "$j" "'tasks %s, cross-stream edges %d' % (v['tasks_per_stream'], v['cross_stream_edges'])"))"
else
	sed 's/^/# /' "$TMP/tb.log"
	nok "two_branch_cnn: 2 streams, 2 signal/wait pairs on 1 semaphore"
fi
for m in two_branch_cnn bert_encoder resnet18 resnet50 mobilenet_v2; do
	om="$TMP/$m.om"
	[ $m = two_branch_cnn ] && om="$TMP/tb.om"
	if [ ! -x "$NPU_RUN" ]; then
		ok "# SKIP $NPU_RUN not built"
		continue
	fi
	if NPU_DEVICE=sim "$NPU_RUN" "$om" --input-dir "$MODELS/$m/inputs" \
		--compare "$MODELS/$m/expected" --rtol 1e-3 --atol 1e-4 \
		>"$TMP/run.log" 2>&1; then
		ok "$m runs on the device and matches torch: $(grep compare "$TMP/run.log" | sed 's/  */ /g')"
	else
		sed 's/^/# /' "$TMP/run.log"
		nok "$m runs on the device and matches torch"
	fi
done

# -O0 runs no passes: host ops (Shape ...) are evaluated while lowering.
if "$NPUC" "$MODELS/bert_encoder/model.onnx" -o "$TMP/o0.om" --no-cache -O0 \
	>"$TMP/o0.log" 2>&1 && { [ ! -x "$NPU_RUN" ] ||
	NPU_DEVICE=sim "$NPU_RUN" "$TMP/o0.om" --input-dir "$MODELS/bert_encoder/inputs" \
		--compare "$MODELS/bert_encoder/expected" --rtol 1e-3 --atol 1e-4 \
		>>"$TMP/o0.log" 2>&1; }; then
	ok "-O0: bert_encoder (no passes, Shape ops evaluated at compile time) compiles and matches torch"
else
	sed 's/^/# /' "$TMP/o0.log"
	nok "-O0: bert_encoder compiles and matches torch"
fi

# The cache: cold, hit, damaged entry.
r50="$MODELS/resnet50/model.onnx"
c1=$("$NPUC" "$r50" -o "$TMP/c1.om" --report 2>&1 | grep '^time:')
c2=$("$NPUC" "$r50" -o "$TMP/c2.om" --report 2>&1 | grep '^time:')
echo "# cold:      $c1"
echo "# cache hit: $c2"
case "$c1 $c2" in
*"cache miss"*"cache hit"*) ok "resnet50 compiled twice: a miss, then a cache hit" ;;
*) nok "resnet50 compiled twice: a miss, then a cache hit" ;;
esac
if cmp -s "$TMP/c1.om" "$TMP/c2.om"; then
	ok "the cache hit gives the same .om bytes"
else
	nok "the cache hit gives the same .om bytes"
fi
entry=$(ls "$NPU_CACHE_DIR"/*.npuc 2>/dev/null | head -1)
if [ -n "$entry" ]; then
	printf 'garbage!' | dd of="$entry" bs=1 seek=4096 conv=notrunc 2>/dev/null
fi
c3=$("$NPUC" "$r50" -o "$TMP/c3.om" --report 2>&1 | grep '^time:')
echo "# damaged:   $c3"
case "$c3" in
*"corrupt entry replaced"*) ok "a damaged cache entry is detected and recompiled" ;;
*) nok "a damaged cache entry is detected and recompiled" ;;
esac
c4=$("$NPUC" "$r50" -o "$TMP/c4.om" --report 2>&1 | grep '^time:')
if cmp -s "$TMP/c1.om" "$TMP/c3.om" && case "$c4" in *"cache hit"*) true ;; *) false ;; esac; then
	ok "the recompiled entry has the same bytes and hits again"
else
	nok "the recompiled entry has the same bytes and hits again"
fi

# A copy of the file (another path, so no file key) hits by its content:
# the key hashes the weights where they lie in the file (onnx_lift.c);
# one weight changed in a copy misses.
cp "$r50" "$TMP/copy.onnx"
c5=$("$NPUC" "$TMP/copy.onnx" -o "$TMP/c5.om" --report 2>&1 | grep '^time:')
echo "# a copy:    $c5"
if case "$c5" in *"cache hit"*) true ;; *) false ;; esac &&
   cmp -s "$TMP/c1.om" "$TMP/c5.om"; then
	ok "a copy of the model hits by its content, same bytes"
else
	nok "a copy of the model hits by its content, same bytes"
fi
"$PY" - "$r50" "$TMP/one.onnx" <<'PYEOF'
import sys, onnx
m = onnx.load(sys.argv[1])
w = max(m.graph.initializer, key=lambda t: len(t.raw_data))
b = bytearray(w.raw_data)
b[len(b) // 2] ^= 0x40
w.raw_data = bytes(b)
onnx.save(m, sys.argv[2])
PYEOF
c6=$("$NPUC" "$TMP/one.onnx" -o "$TMP/c6.om" --report 2>&1 | grep '^time:')
echo "# one weight changed: $c6"
case "$c6" in
*"cache miss"*) ok "one weight byte changed: a miss" ;;
*) nok "one weight byte changed: a miss" ;;
esac

# Two compiles of one model at once: the key's lock makes one compile and
# the other wait and hit.
cc="$TMP/cc"
NPU_CACHE_DIR="$cc" "$NPUC" "$MODELS/resnet18/model.onnx" -o "$TMP/p1.om" \
	--report >"$TMP/p1.log" 2>&1 &
pid=$!
NPU_CACHE_DIR="$cc" "$NPUC" "$MODELS/resnet18/model.onnx" -o "$TMP/p2.om" \
	--report >"$TMP/p2.log" 2>&1
wait $pid
misses=$(cat "$TMP/p1.log" "$TMP/p2.log" | grep -c 'cache miss')
hits=$(cat "$TMP/p1.log" "$TMP/p2.log" | grep -c 'cache hit')
if [ "$misses" = 1 ] && [ "$hits" = 1 ] && cmp -s "$TMP/p1.om" "$TMP/p2.om"; then
	ok "two concurrent compiles of resnet18: one compiled, one waited and hit, same bytes"
else
	cat "$TMP/p1.log" "$TMP/p2.log" | sed 's/^/# /'
	nok "two concurrent compiles of resnet18: one compiled, one waited and hit"
fi

# Shape gears.
j="$TMP/dyn.json"
if "$NPUC" "$MODELS/two_branch_cnn/model.onnx" -o "$TMP/dyn.om" --no-cache \
	--input-shape "input:batch,3,64,64" --dynamic-batch=1,2,4,8 \
	--report-json "$j" >"$TMP/dyn.log" 2>&1 &&
   [ "$(json "$j" "','.join(x['name'] for x in r['variants'])")" = "batch=1,batch=2,batch=4,batch=8" ]; then
	ok "--dynamic-batch=1,2,4,8: four variants, each with its plan"
else
	sed 's/^/# /' "$TMP/dyn.log"
	nok "--dynamic-batch=1,2,4,8: four variants, each with its plan"
fi
j="$TMP/dd.json"
if "$NPUC" "$MODELS/resnet18/model.onnx" -o "$TMP/dd.om" --no-cache \
	--input-shape "input:1,3,h,w" --dynamic-dims="224,224;160,192" \
	--report-json "$j" >"$TMP/dd.log" 2>&1 &&
   [ "$(json "$j" "','.join('%s:%d' % (x['name'], x['plan']['workspace'] <= x['plan']['lower_bound'] * 1.02) for x in r['variants'])")" = "h=224,w=224:1,h=160,w=192:1" ]; then
	ok "--dynamic-dims: resnet18 gears h=224,w=224 and h=160,w=192, each planned within 2%"
else
	sed 's/^/# /' "$TMP/dd.log"
	nok "--dynamic-dims: resnet18 gears h=224,w=224 and h=160,w=192"
fi
if "$NPUC" "$MODELS/two_branch_cnn/model.onnx" -o "$TMP/x.om" \
	--dynamic-batch=1,2 >"$TMP/err.log" 2>&1; then
	nok "--dynamic-batch on a fixed batch is refused"
else
	ok "--dynamic-batch on a fixed batch is refused: $(head -1 "$TMP/err.log")"
fi

# The graph's input and output names are its interface: two models that
# differ only in an output's name must not share a cache entry.
cn="$TMP/cn"
for y in logits scores; do
	"$PY" - "$TMP/$y.onnx" "$y" <<'PYEOF'
import sys
from onnx import helper, TensorProto
path, out = sys.argv[1], sys.argv[2]
g = helper.make_graph([helper.make_node("Relu", ["x"], [out])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
    [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 4])])
import onnx
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
PYEOF
	NPU_CACHE_DIR="$cn" "$NPUC" "$TMP/$y.onnx" -o "$TMP/$y.om" >/dev/null 2>&1
done
if "$BUILD/bin/npu-om" "$TMP/logits.om" | grep -q logits &&
   "$BUILD/bin/npu-om" "$TMP/scores.om" | grep -q scores; then
	ok "models differing only in an output name get their own cache entries"
else
	nok "models differing only in an output name get their own cache entries"
fi
