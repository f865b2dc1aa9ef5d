#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""An MLP with a symbolic batch and numpy's outputs for batches 1..MAX_B
(the weight-sharing test of the shape cache, test_shape_share.c).

Two [DIM, DIM] MatMuls with biases and a ReLU between: 520 KiB of weights
that do not depend on the batch, so every batch's compiled model has the
same weight bytes.

Writes OUT/model.onnx and OUT/cases.bin: u32 count, then per case u32
batch, float32 x[batch * DIM], float32 y[batch * DIM] (numpy, float64
then rounded).
Usage: mlp_dyn.py OUT
"""

import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DIM, MAX_B = 256, 5


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    w1 = (rng.standard_normal((DIM, DIM)) / 16).astype(np.float32)
    w2 = (rng.standard_normal((DIM, DIM)) / 16).astype(np.float32)
    b1 = rng.standard_normal(DIM).astype(np.float32)
    b2 = rng.standard_normal(DIM).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h1"]),
             helper.make_node("Relu", ["h1"], ["h2"]),
             helper.make_node("MatMul", ["h2", "w2"], ["h3"]),
             helper.make_node("Add", ["h3", "b2"], ["y"])]
    g = helper.make_graph(
        nodes, "mlp_dyn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", DIM])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", DIM])],
        [numpy_helper.from_array(a, n) for a, n in
         ((w1, "w1"), (w2, "w2"), (b1, "b1"), (b2, "b2"))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, "model.onnx"))
    with open(os.path.join(out, "cases.bin"), "wb") as f:
        f.write(struct.pack("<I", MAX_B))
        for b in range(1, MAX_B + 1):
            x = rng.standard_normal((b, DIM)).astype(np.float32)
            h = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
            y = (h @ w2 + b2).astype(np.float32)
            f.write(struct.pack("<I", b))
            f.write(x.tobytes())
            f.write(y.tobytes())


if __name__ == "__main__":
    main()
