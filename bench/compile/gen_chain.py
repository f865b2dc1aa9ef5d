#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A chain of MatMul+Relu+Add+LayerNorm blocks (4 nodes each) as ONNX.

    x -> [MatMul(W_i) -> Relu -> Add(residual) -> LayerNormalization] * B -> y

Every block has its own weights (no two blocks are the same to CSE), so
the graph has 4*B nodes and 3*B initializers. The compile-time benchmark
(bench_compile.py) and the scaling test use it.
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make(nodes, width=16, seed=0):
    blocks = max(1, nodes // 4)
    rng = np.random.default_rng(seed)
    inits, graph_nodes = [], []
    cur = "x"
    for b in range(blocks):
        w = (rng.standard_normal((width, width)) / np.sqrt(width))
        inits.append(numpy_helper.from_array(w.astype(np.float32),
                                             "w%d" % b))
        inits.append(numpy_helper.from_array(
            (1.0 + 0.01 * rng.standard_normal(width)).astype(np.float32),
            "g%d" % b))
        inits.append(numpy_helper.from_array(
            (0.01 * rng.standard_normal(width)).astype(np.float32),
            "b%d" % b))
        mm, act, add = "mm%d" % b, "act%d" % b, "add%d" % b
        out = "y" if b == blocks - 1 else "ln%d" % b
        graph_nodes += [
            helper.make_node("MatMul", [cur, "w%d" % b], [mm],
                             name="MatMul_%d" % b),
            helper.make_node("Relu", [mm], [act], name="Relu_%d" % b),
            helper.make_node("Add", [act, cur], [add], name="Add_%d" % b),
            helper.make_node("LayerNormalization",
                             [add, "g%d" % b, "b%d" % b], [out],
                             name="LayerNorm_%d" % b, axis=-1,
                             epsilon=1e-5),
        ]
        cur = out
    g = helper.make_graph(
        graph_nodes, "chain%d" % (4 * blocks),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])],
        inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="npu-bench-compile")
    m.ir_version = 8
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodes", type=int)
    ap.add_argument("out")
    ap.add_argument("--width", type=int, default=16)
    a = ap.parse_args()
    onnx.save(make(a.nodes, a.width), a.out)


if __name__ == "__main__":
    main()
