#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A minimal post-training quantizer for the int8 benchmark.

  quantize_simple.py MODEL.onnx CALIB.npy [CALIB.npy ...] -o OUT.onnx

`make bench-models` uses it to make the int8 twin of a float CNN while the
stack's own PTQ tool (tools/npu-quant) is not there: BatchNormalization
folded into the Conv before it, symmetric per-channel int8 weights
(max |w| / 127), per-tensor uint8 activations from the min/max over the
calibration inputs (always including 0), ONNX QDQ format
(QuantizeLinear -> DequantizeLinear around every Conv/Gemm input, after
every Conv [+ Relu] output; a MaxPool keeps its input's parameters, as
ONNX Runtime's quantizer does). Float biases stay float (npuc quantizes
them to int32 with scale sx * sw).

The float evaluation for calibration is tests/quant/qdq_models.py's numpy
reference.
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "quant"))
import qdq_models as qm  # noqa: E402


def fold_bn(model):
    """Conv -> BatchNormalization (inference) becomes one Conv."""
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    cons = {}
    for n in g.node:
        for x in n.input:
            cons.setdefault(x, []).append(n)
    drop = []
    for n in list(g.node):
        if n.op_type != "Conv":
            continue
        c = cons.get(n.output[0], [])
        if len(c) != 1 or c[0].op_type != "BatchNormalization":
            continue
        bn = c[0]
        eps = 1e-5
        for a in bn.attribute:
            if a.name == "epsilon":
                eps = a.f
        sc, b, mean, var = (numpy_helper.to_array(inits[x])
                            for x in bn.input[1:5])
        w = numpy_helper.to_array(inits[n.input[1]])
        bias = numpy_helper.to_array(inits[n.input[2]]) \
            if len(n.input) > 2 else np.zeros(w.shape[0], np.float32)
        k = (sc / np.sqrt(var + eps)).astype(np.float32)
        w2 = (w * k.reshape(-1, 1, 1, 1)).astype(np.float32)
        b2 = ((bias - mean) * k + b).astype(np.float32)
        inits[n.input[1]].CopyFrom(numpy_helper.from_array(w2, n.input[1]))
        bname = n.name + "_bnbias"
        g.initializer.append(numpy_helper.from_array(b2, bname))
        del n.input[2:]
        n.input.append(bname)
        n.output[0] = bn.output[0]
        drop.append(bn)
    for bn in drop:
        g.node.remove(bn)
    return model


def eval_all(model, feeds):
    """Every tensor of the float model (numpy reference)."""
    env = {}
    m = onnx.ModelProto()
    m.CopyFrom(model)
    names = [o for n in m.graph.node for o in n.output]
    del m.graph.output[:]
    for nm in names:
        m.graph.output.append(helper.make_tensor_value_info(
            nm, onnx.TensorProto.FLOAT, None))
    outs = qm.qdq_eval(m, feeds)
    env.update(zip(names, outs))
    return env


def act_params(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    s = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    z = int(np.clip(np.round(-lo / s), 0, 255))
    return s, z


def quantize(model, calib):
    model = fold_bn(model)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    in_name = g.input[0].name
    ranges = {}
    for x in calib:
        env = eval_all(model, {in_name: x})
        env[in_name] = x
        for k, v in env.items():
            if v.dtype != np.float32:
                continue
            lo, hi = float(v.min()), float(v.max())
            if k in ranges:
                lo, hi = min(lo, ranges[k][0]), max(hi, ranges[k][1])
            ranges[k] = (lo, hi)
    prod = {o: n for n in g.node for o in n.output}
    cons = {}
    for n in g.node:
        for x in n.input:
            cons.setdefault(x, []).append(n)
    params = {}
    # MaxPool outputs share their input's parameters
    for n in g.node:
        if n.op_type == "MaxPool":
            ranges[n.output[0]] = ranges[n.input[0]]
    want = []           # activation tensors to quantize, in order
    for n in g.node:
        if n.op_type in ("Conv", "Gemm"):
            want.append(n.input[0])
            y = n.output[0]
            c = cons.get(y, [])
            if len(c) == 1 and c[0].op_type in ("Relu", "Clip"):
                y = c[0].output[0]
            want.append(y)
        if n.op_type == "MaxPool":
            want.append(n.output[0])
    new_nodes, new_inits = [], []
    rename = {}
    for t in dict.fromkeys(want):
        s, z = act_params(*ranges[t])
        params[t] = (s, z)
        new_inits += [numpy_helper.from_array(np.array(s, np.float32),
                                              t + "_qs"),
                      numpy_helper.from_array(np.array(z, np.uint8),
                                              t + "_qz")]
        rename[t] = t + "_qdq"
    for n in g.node:
        # inputs read the QDQ'd tensor
        for i, x in enumerate(n.input):
            if x in rename:
                n.input[i] = rename[x]
        if n.op_type in ("Conv", "Gemm"):
            wname = n.input[1]
            w = numpy_helper.to_array(inits[wname])
            tb = n.op_type == "Conv" or any(
                a.name == "transB" and a.i for a in n.attribute)
            axis = 0 if tb else 1
            red = tuple(d for d in range(w.ndim) if d != axis)
            sw = (np.abs(w).max(axis=red) / 127.0).astype(np.float32)
            sw = np.maximum(sw, np.float32(1e-12))
            shape = [1] * w.ndim
            shape[axis] = -1
            wq = np.clip(np.round(w / sw.reshape(shape)), -127, 127).astype(
                np.int8)
            new_inits += [numpy_helper.from_array(wq, wname + "_q"),
                          numpy_helper.from_array(sw, wname + "_s"),
                          numpy_helper.from_array(
                              np.zeros(sw.size, np.int8), wname + "_z")]
            new_nodes.append(helper.make_node(
                "DequantizeLinear", [wname + "_q", wname + "_s",
                                     wname + "_z"], [wname + "_dq"],
                axis=axis))
            n.input[1] = wname + "_dq"
        new_nodes.append(n)
        for y in n.output:
            if y in rename:
                new_nodes.append(helper.make_node(
                    "QuantizeLinear", [y, y + "_qs", y + "_qz"],
                    [y + "_q"]))
                new_nodes.append(helper.make_node(
                    "DequantizeLinear", [y + "_q", y + "_qs", y + "_qz"],
                    [rename[y]]))
    if in_name in rename:
        y = in_name
        new_nodes = [helper.make_node("QuantizeLinear",
                                      [y, y + "_qs", y + "_qz"],
                                      [y + "_q"]),
                     helper.make_node("DequantizeLinear",
                                      [y + "_q", y + "_qs", y + "_qz"],
                                      [rename[y]])] + new_nodes
    for o in g.output:
        if o.name in rename:    # the int8 result, dequantized
            o.name = rename[o.name]
    del g.node[:]
    g.node.extend(new_nodes)
    used = {x for n in g.node for x in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep + [i for i in new_inits if i.name in used])
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("calib", nargs="+")
    p.add_argument("-o", "--out", required=True)
    a = p.parse_args()
    model = onnx.load(a.model)
    calib = [np.load(c).astype(np.float32) for c in a.calib]
    q = quantize(model, calib)
    onnx.save(q, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
