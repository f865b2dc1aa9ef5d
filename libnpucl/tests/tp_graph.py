#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Tensor-parallel ONNX models for tp_graph.t (Documentation/collectives.rst).

  tp_graph.py OUT_DIR N [N ...]

A two-layer MLP, y = relu(x W1 + b1) W2 + b2 (x [B, D], W1 [D, H],
W2 [H, D]), on two micro-batches xa and xb: two independent branches, so
that npuc puts them on two streams and one branch's AllReduce overlaps the
other's products. Writes

  full.onnx            the model on one device (no collective)
  tp<N>_r<k>.onnx      rank k of N (Megatron's split): columns k of W1 and
                       b1, rows k of W2, then com.npu::AllReduce (sum,
                       rank k, world_size N) of the partial product; b2
                       added after it, once
  in/xa.npy, in/xb.npy the inputs; ref/ya.npy, ref/yb.npy numpy's outputs
                       (float64, rounded to float32); each also as .bin
                       (raw float32, for tp_graph_test.c)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

B, D, H = 32, 128, 512


def weights():
    rng = np.random.default_rng(5)
    w1 = (rng.standard_normal((D, H)) / np.sqrt(D)).astype(np.float32)
    b1 = (rng.standard_normal(H) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((H, D)) / np.sqrt(H)).astype(np.float32)
    b2 = (rng.standard_normal(D) * 0.1).astype(np.float32)
    return w1, b1, w2, b2


def branch(p, w1, b1, w2, b2, coll):
    """Nodes of one micro-batch's MLP (prefix p), and its initializers."""
    init = [numpy_helper.from_array(a, p + n) for n, a in
            (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2))]
    nodes = [helper.make_node("MatMul", ["x" + p, p + "w1"], [p + "h0"],
                              name="/%s/fc1/MatMul" % p),
             helper.make_node("Add", [p + "h0", p + "b1"], [p + "h1"],
                              name="/%s/fc1/Add" % p),
             helper.make_node("Relu", [p + "h1"], [p + "h"],
                              name="/%s/Relu" % p),
             helper.make_node("MatMul", [p + "h", p + "w2"], [p + "z"],
                              name="/%s/fc2/MatMul" % p)]
    z = p + "z"
    if coll:
        nodes.append(helper.make_node("AllReduce", [z], [p + "zs"],
                                      name="/%s/AllReduce" % p,
                                      domain="com.npu", **coll))
        z = p + "zs"
    nodes.append(helper.make_node("Add", [z, p + "b2"], ["y" + p],
                                  name="/%s/fc2/Add" % p))
    return nodes, init


def model(path, w1, b1, w2, b2, coll=None):
    nodes, init = [], []
    for p in ("a", "b"):
        n, i = branch(p, w1, b1, w2, b2, coll)
        nodes += n
        init += i
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, D])
          for n in ("xa", "xb", "ya", "yb")]
    g = helper.make_graph(nodes, "tp_mlp", io[:2], io[2:], init)
    ops = [helper.make_opsetid("", 13)]
    if coll:
        ops.append(helper.make_opsetid("com.npu", 1))
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 7
    onnx.save(m, path)


def main():
    out = sys.argv[1]
    for d in ("in", "ref"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    w1, b1, w2, b2 = weights()
    model(os.path.join(out, "full.onnx"), w1, b1, w2, b2)
    rng = np.random.default_rng(9)
    for p in ("a", "b"):
        x = rng.standard_normal((B, D)).astype(np.float32)
        np.save(os.path.join(out, "in", "x%s.npy" % p), x)
        x.tofile(os.path.join(out, "in", "x%s.bin" % p))
        h = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
        y = (h @ w2 + b2).astype(np.float32)
        np.save(os.path.join(out, "ref", "y%s.npy" % p), y)
        y.tofile(os.path.join(out, "ref", "y%s.bin" % p))
    for n in (int(a) for a in sys.argv[2:]):
        c = H // n
        for k in range(n):
            s = slice(k * c, (k + 1) * c)
            model(os.path.join(out, "tp%d_r%d.onnx" % (n, k)),
                  np.ascontiguousarray(w1[:, s]), b1[s].copy(),
                  np.ascontiguousarray(w2[s, :]), b2,
                  {"rank": k, "world_size": n, "group": "tp%d" % n})


if __name__ == "__main__":
    main()
