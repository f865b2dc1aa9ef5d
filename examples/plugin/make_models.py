#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Custom-domain ONNX models for the example plugin's test, with numpy
references (examples/plugin/test_plugin.sh; Documentation/plugins.rst).

  swish.onnx   Conv -> com.example::Swish(beta) -> Relu: decomposition
  roi.onnx     Conv -> com.example::RoIAlign (host) -> Sigmoid, and an
               independent Conv branch (overlaps the host task)
  mixed.onnx   Swish and RoIAlign and an op no plugin serves (for the
               error naming every unknown op)
Each model gets <name>_in.npy inputs and <name>_ref.npy outputs.
"""
import sys
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

out = sys.argv[1]
rng = np.random.default_rng(7)
EX = h.make_opsetid("com.example", 1)


def conv_ref(x, w, b):
    n, c, hh, ww = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, o, hh, ww), np.float64)
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + hh, j:j + ww],
                           w[:, :, i, j])
    return (y + b[None, :, None, None]).astype(np.float32)


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def save(model, name, inputs, refs):
    onnx.checker.check_model(model, full_check=False)
    onnx.save(model, f"{out}/{name}.onnx")
    for k, v in inputs.items():
        np.save(f"{out}/{name}_in_{k}.npy", v)
    for k, v in enumerate(refs):
        np.save(f"{out}/{name}_ref_{k}.npy", v)


def conv_node(name, x, y, cin, cout, inits):
    w = (rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(cin * 9)).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    inits += [nh.from_array(w, name + "_w"), nh.from_array(b, name + "_b")]
    return h.make_node("Conv", [x, name + "_w", name + "_b"], [y], name=name,
                       pads=[1, 1, 1, 1]), w, b


# ---- swish: decomposition ----
inits = []
x = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
c1, w1, b1 = conv_node("conv1", "x", "c1", 4, 8, inits)
beta = 1.5
nodes = [c1,
         h.make_node("Swish", ["c1"], ["s1"], name="swish1", domain="com.example",
                     beta=beta),
         h.make_node("Relu", ["s1"], ["y"], name="relu1")]
g = h.make_graph(nodes, "swish", [h.make_tensor_value_info("x", T.FLOAT, x.shape)],
                 [h.make_tensor_value_info("y", T.FLOAT, [1, 8, 8, 8])], inits)
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13), EX])
cv = conv_ref(x, w1, b1)
save(m, "swish", {"x": x}, [np.maximum(cv * sigmoid(beta * cv), 0).astype(np.float32)])


# ---- roi: host kernel ----
def roi_ref(X, rois, bidx, oh, ow, sr, scale):
    n, c, hh, ww = X.shape
    out = np.zeros((len(rois), c, oh, ow), np.float32)

    def bil(p, y, x):
        if y < -1.0 or y > hh or x < -1.0 or x > ww:
            return 0.0
        y = max(y, 0.0)
        x = max(x, 0.0)
        y0, x0 = int(y), int(x)
        if y0 >= hh - 1:
            y0 = y1 = hh - 1
            y = float(y0)
        else:
            y1 = y0 + 1
        if x0 >= ww - 1:
            x0 = x1 = ww - 1
            x = float(x0)
        else:
            x1 = x0 + 1
        ly, lx = y - y0, x - x0
        return ((1 - ly) * (1 - lx) * p[y0, x0] + (1 - ly) * lx * p[y0, x1] +
                ly * (1 - lx) * p[y1, x0] + ly * lx * p[y1, x1])

    for r, (x1, y1, x2, y2) in enumerate(rois):
        x1, y1, x2, y2 = [v * scale - 0.5 for v in (x1, y1, x2, y2)]
        rh, rw = y2 - y1, x2 - x1
        bh, bw = rh / oh, rw / ow
        gh = sr if sr > 0 else max(int(np.ceil(rh / oh)), 1)
        gw = sr if sr > 0 else max(int(np.ceil(rw / ow)), 1)
        for k in range(c):
            p = X[bidx[r], k]
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for u in range(gh):
                        for v in range(gw):
                            acc += bil(p, y1 + i * bh + (u + 0.5) * bh / gh,
                                       x1 + j * bw + (v + 0.5) * bw / gw)
                    out[r, k, i, j] = acc / (gh * gw)
    return out


inits = []
x = rng.standard_normal((2, 3, 16, 16)).astype(np.float32)
rois = np.array([[0, 0, 8, 8], [2.5, 3.0, 14.0, 12.5], [4, 4, 30, 28],
                 [1, 9, 7, 15], [0, 0, 31, 31], [10, 2, 20, 12]], np.float32)
bidx = np.array([0, 1, 1, 0, 1, 0], np.int64)
c1, w1, b1 = conv_node("conv1", "x", "feat", 3, 4, inits)
# an independent branch long enough to run while the host works
side = [conv_node("side0", "x", "s0", 3, 16, inits)]
for i in range(1, 6):
    side.append(conv_node(f"side{i}", f"s{i - 1}", f"s{i}", 16, 16, inits))
nodes = [c1] + [n for n, _, _ in side] + [
         h.make_node("RoIAlign", ["feat", "rois", "bidx"], ["pooled"], name="roi1",
                     domain="com.example", output_height=7, output_width=7,
                     sampling_ratio=2, spatial_scale=0.5),
         h.make_node("Sigmoid", ["pooled"], ["y"], name="sig1"),
         h.make_node("Tanh", ["s5"], ["z"], name="tanh1")]
g = h.make_graph(nodes, "roi",
                 [h.make_tensor_value_info("x", T.FLOAT, x.shape),
                  h.make_tensor_value_info("rois", T.FLOAT, rois.shape),
                  h.make_tensor_value_info("bidx", T.INT64, bidx.shape)],
                 [h.make_tensor_value_info("y", T.FLOAT, [6, 4, 7, 7]),
                  h.make_tensor_value_info("z", T.FLOAT, [2, 16, 16, 16])], inits)
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13), EX])
feat = conv_ref(x, w1, b1)
pooled = roi_ref(feat, rois, bidx, 7, 7, 2, 0.5)
s = x
for _, w, b in side:
    s = conv_ref(s, w, b)
save(m, "roi", {"x": x, "rois": rois, "bidx": bidx},
     [sigmoid(pooled).astype(np.float32), np.tanh(s).astype(np.float32)])

# ---- mixed: ops no plugin serves ----
nodes = [h.make_node("Swish", ["x"], ["a"], name="sw", domain="com.example"),
         h.make_node("FancyNorm", ["a"], ["b"], name="fn1", domain="com.acme"),
         h.make_node("FancyNorm", ["b"], ["c"], name="fn2", domain="com.acme"),
         h.make_node("Blur", ["c"], ["y"], name="blur", domain="com.acme")]
g = h.make_graph(nodes, "mixed", [h.make_tensor_value_info("x", T.FLOAT, [1, 4])],
                 [h.make_tensor_value_info("y", T.FLOAT, [1, 4])])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13), EX,
                                   h.make_opsetid("com.acme", 1)])
onnx.save(m, f"{out}/mixed.onnx")

# ---- faulty: Relu -> test.faulty::Faulty(mode) -> Neg, for modes 0..4 ----
x = rng.standard_normal((8, 16)).astype(np.float32)
np.save(f"{out}/faulty_in_x.npy", x)
for mode in range(5):
    rows = 4 if mode == 3 else 8
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu"),
             h.make_node("Faulty", ["r"], ["f"], name=f"faulty{mode}",
                         domain="test.faulty", mode=mode),
             h.make_node("Neg", ["f"], ["y"], name="neg")]
    g = h.make_graph(nodes, f"faulty{mode}",
                     [h.make_tensor_value_info("x", T.FLOAT, x.shape)],
                     [h.make_tensor_value_info("y", T.FLOAT, [rows, 16])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13),
                                       h.make_opsetid("test.faulty", 1)])
    onnx.save(m, f"{out}/faulty{mode}.onnx")
np.save(f"{out}/faulty_ref_0.npy", (-2 * np.maximum(x, 0)).astype(np.float32))
