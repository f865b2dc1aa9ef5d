#!/bin/sh
# SPDX-License-Identifier: MIT
#
# examples/image_pipeline.c (TAP): built like an outside program (the
# installed header, pkg-config, libjpeg for its host pipeline), run on
# 960x720 JPEGs made here with a resnet18 (64x64) compiled twice - with an
# RGB888 AIPP config and plain f32 - it reports both pipelines' images/s in
# JSON; the device pipeline (decode i+1 while i runs, media and inference
# on two streams) must beat the host float pipeline, with host decoding
# and the media unit's resize of image i+1 both overlapping the inference
# of image i, and both must agree on the top class.
set -u
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PREFIX=/opt/npu
echo "1..4"
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}

make -s --no-print-directory install-npurt DESTDIR="$T/root" \
	PREFIX=$PREFIX >"$T/install.log" 2>&1
export PKG_CONFIG_PATH="$T/root$PREFIX/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$T/root"
cc -std=c11 -D_GNU_SOURCE -Wall -Werror examples/image_pipeline.c \
	$(pkg-config --cflags libnpurt) $(pkg-config --libs libnpurt) -ljpeg \
	-o "$T/image_pipeline" 2>"$T/cc.log"
check "image_pipeline builds from the installed header and pkg-config" \
	"[ -x $T/image_pipeline ]"

/usr/bin/python3 tests/media/aipp_ref.py "$T" >/dev/null 2>&1 &&
mkdir -p "$T/photos" && /usr/bin/python3 - "$T/photos" <<'PY'
import sys
import numpy as np
from PIL import Image
for i in range(8):
    rng = np.random.default_rng(i)
    yy, xx = np.mgrid[0:720, 0:960].astype(np.float32)
    img = np.stack([128 + 100 * np.sin(xx / (9 + c) + i) *
                    np.cos(yy / (13 - c)) for c in range(3)], -1)
    img += rng.normal(0, 10, img.shape)
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(
        "%s/%d.jpg" % (sys.argv[1], i), quality=85)
PY
printf 'aipp_op {\n input_format : RGB888_U8\n min_chn_0 : 123.675\n min_chn_1 : 116.28\n min_chn_2 : 103.53\n var_reci_chn_0 : 0.0171247538\n var_reci_chn_1 : 0.0175070028\n var_reci_chn_2 : 0.0174291939\n}\n' >"$T/aipp.conf"
$B/bin/npuc "$T/model.onnx" -o "$T/float.om" --no-cache >/dev/null 2>&1 &&
	$B/bin/npuc "$T/model.onnx" -o "$T/aipp.om" --insert-op-conf "$T/aipp.conf" \
	--no-cache >/dev/null 2>&1
run() {
	LD_LIBRARY_PATH="$T/root$PREFIX/lib" "$T/image_pipeline" "$T/aipp.om" \
		"$T/float.om" "$T/photos" --rounds 3 --json "$T/p.json" \
		--trace "$T/p.trace" >"$T/out.txt" 2>&1
}
run
st=$?
check "it runs both pipelines and writes the JSON (exit $st)" \
	"[ $st -eq 0 ] && /usr/bin/python3 -c 'import json; json.load(open(\"$T/p.json\")); json.load(open(\"$T/p.trace\"))'"
field() {
	/usr/bin/python3 -c "import json; d = json.load(open('$T/p.json')); print($1)" 2>/dev/null
}
# one retry: the machine is shared, a burst of load can stall one run
good='d["speedup"] > 1.0 and d["device_pipeline"]["media_overlapping_inference_s"] > 0'
s=$(field "$good")
[ "$s" = True ] || { run; s=$(field "$good"); }
check "the device pipeline beats the host float pipeline: $(field '"%.1f vs %.1f images/s, ratio %.2f" % (d["device_pipeline"]["images_per_s"], d["host_float_pipeline"]["images_per_s"], d["speedup"])'); decode overlapping inference $(field '"%.3f of %.3f s" % (d["device_pipeline"]["decode_overlapping_inference_s"], d["device_pipeline"]["decode_s"])'), media overlapping inference $(field '"%.4f s" % d["device_pipeline"]["media_overlapping_inference_s"]')" \
	"[ \"$s\" = True ] && [ \"\$(field 'd[\"device_pipeline\"][\"decode_overlapping_inference_s\"] > 0 and d[\"device_pipeline\"][\"media_overlapping_inference_s\"] > 0')\" = True ]"
check "both pipelines agree on the top class of $(field 'd["top1_agree"]') of 8 images" \
	"[ \"\$(field 'd[\"top1_agree\"]')\" = 8 ]"
