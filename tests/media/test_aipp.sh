#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Images end to end (TAP): a torchvision resnet18 compiled with an AIPP
# config (u8 RGB input, centre crop, ImageNet mean/std) classifies JPEG and
# PNG files made at test time; its logits match the float model fed by PIL
# decode + torchvision CenterCrop/ToTensor/Normalize (the files are made at
# the post-resize size: the media unit's resize is the identity, so resize
# conventions do not enter). An NV12 variant (CSC on the device) matches
# the float model fed by the same frame converted in numpy with the Q8
# formula, and stays near a float BT.601 conversion. Bad files are reported
# one by one while the good one is classified. Tolerances:
# Documentation/media.rst, "Numerics".
set -u
B=${BUILD:-build}
NPUC=$B/bin/npuc
RUN=$B/bin/npu-run
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

echo "1..12"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

/usr/bin/python3 tests/media/aipp_ref.py "$T" > "$T/gen.log" 2>&1 ||
	{ echo "Bail out! tests/media/aipp_ref.py failed"; cat "$T/gen.log"; exit 1; }

check "npuc --insert-op-conf (RGB888, crop, mean/std) compiles resnet18" \
	"$NPUC $T/model.onnx -o $T/rgb.om --insert-op-conf $T/rgb.conf --no-cache >$T/c1 2>&1"
$B/bin/npu-om "$T/rgb.om" > "$T/om1" 2>&1
check "the .om input is u8 NHWC [1,72,80,3]; one AIPP task writes the first conv's input (read as NCHW; one TransData left, after the pool)" \
	"grep -q 'input  0 .* x  *uint8  *NHWC  *\[1,72,80,3\]' $T/om1 &&
	 grep -q 'AIPP x1' $T/om1 && grep -q 'TRANSDATA x1' $T/om1"

$RUN "$T/rgb.om" --images "$T/imgs" --top-k 10 --json "$T/rgb.json" \
	> "$T/run1" 2>&1
st=$?
check "npu-run --images classifies 3 JPEG and 1 PNG (exit $st)" \
	"[ $st -eq 0 ] && grep -q '# 4 classified, 0 refused' $T/run1"
cmp=$(/usr/bin/python3 - "$T" <<'PY'
import json, sys
import numpy as np
t = sys.argv[1]
ref = json.load(open(t + "/ref_rgb.json"))
got = json.load(open(t + "/rgb.json"))
worst, spread, n = 0.0, 1e9, 0
for im in got["images"]:
    g = np.zeros(10)
    for c in im["top"]:
        g[c["class"]] = c["score"]
    r = np.array(ref[im["file"]])
    worst = max(worst, float(np.abs(g - r).max()))
    spread = min(spread, float(np.ptp(r)))
    n += 1
# images differ from each other by far more than the tolerance
a, b = np.array(ref["a.jpg"]), np.array(ref["b.jpg"])
print("%d %.3g %.3g %.3g" % (n, worst, spread, float(np.abs(a - b).max())))
PY
)
set -- $cmp
check "AIPP logits match PIL + torchvision (4 files): max |err| ${2:-?} (logit spread ${3:-?}; a.jpg vs b.jpg differ by ${4:-?}), tolerance 1e-4" \
	"[ \"${1:-0}\" = 4 ] && /usr/bin/python3 -c 'import sys; sys.exit(not (float(\"${2:-1}\") <= 1e-4 < float(\"${4:-0}\")))'"

$RUN "$T/rgb.om" --images "$T/bad" > "$T/run2" 2> "$T/err2"
st=$?
check "a directory with bad files exits 2 and still classifies the good one" \
	"[ $st -eq 2 ] && grep -q '^good.jpg' $T/run2 &&
	 grep -q '# 1 classified, 3 refused' $T/run2"
check "each bad file is reported by name and reason" \
	"grep -q 'truncated.jpg: corrupt JPEG: Premature end' $T/err2 &&
	 grep -q 'bomb.png: 100000x100000 pixels declared, above the limit' $T/err2 &&
	 grep -q 'garbage.jpg: corrupt JPEG' $T/err2"

check "npuc compiles the NV12 variant (YUV420SP_U8, csc_switch, BT.601 matrix)" \
	"$NPUC $T/model.onnx -o $T/nv12.om --insert-op-conf $T/nv12.conf --no-cache >$T/c2 2>&1"
$RUN "$T/nv12.om" -i x="$T/nv12/x.npy" -o "$T/nv12out" > "$T/run3" 2>&1
cmp=$(/usr/bin/python3 -c "
import numpy as np
a = np.load('$T/nv12out/logits.npy')
print('%.3g %.3g' % (np.abs(a - np.load('$T/ref_nv12.npy')).max(),
                     np.abs(a - np.load('$T/ref_nv12_float.npy')).max()))" 2>&1)
set -- $cmp
check "NV12 through CSC matches the Q8 reference: max |err| ${1:-?} (tolerance 1e-4); vs a float BT.601 conversion ${2:-?} (tolerance 2e-2)" \
	"/usr/bin/python3 -c 'import sys; sys.exit(not (float(\"${1:-1}\") <= 1e-4 and float(\"${2:-1}\") <= 2e-2))'"

printf 'aipp_op {\n input_format : RGB888_U8\n mean_chn_9 : 1\n}\n' > "$T/bad1.conf"
$NPUC "$T/model.onnx" -o "$T/x.om" --insert-op-conf "$T/bad1.conf" --no-cache > "$T/e1" 2>&1
st=$?
check "an unknown key is refused, naming the line (exit $st)" \
	"[ $st -eq 1 ] && grep -q ':3: unknown key .mean_chn_9.' $T/e1"
printf 'aipp_op {\n input_format : RGB888_U8\n src_image_size_w : 64\n src_image_size_h : 64\n crop : true\n load_start_pos_w : 8\n crop_size_w : 64\n crop_size_h : 64\n}\n' > "$T/bad2.conf"
$NPUC "$T/model.onnx" -o "$T/x.om" --insert-op-conf "$T/bad2.conf" --no-cache > "$T/e2" 2>&1
st=$?
check "a crop outside the source image is refused (exit $st)" \
	"[ $st -eq 1 ] && grep -q 'crop 64x64 at (8,0) does not fit the source image 64x64' $T/e2"

check "npuc compiles a dynamic AIPP model (aipp_mode : dynamic): a second input x_aipp u8 [76]" \
	"$NPUC $T/model.onnx -o $T/dyn.om --insert-op-conf $T/dyn.conf --no-cache >$T/c3 2>&1 &&
	 $B/bin/npu-om $T/dyn.om | grep -q 'input  1 .* x_aipp  *uint8  *ND  *\[76\]'"
$RUN "$T/dyn.om" --input-dir "$T/dyn" -o "$T/dynout" > "$T/run4" 2>&1
cmp=$(/usr/bin/python3 -c "
import json
import numpy as np
a = np.load('$T/dynout/logits.npy')[0]
r = np.array(json.load(open('$T/ref_rgb.json'))['a.jpg'])
print('%.3g' % np.abs(a - r).max())" 2>&1)
check "dynamic AIPP with ImageNet parameters per execution matches PIL + torchvision: max |err| $cmp" \
	"/usr/bin/python3 -c 'import sys; sys.exit(not float(\"$cmp\") <= 1e-4)'"
