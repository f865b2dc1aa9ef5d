#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""new_head.py IN.onnx OUT.onnx CLASSES [--rename] [--perturb-first-conv]

The model IN with a new classifier head: the last Gemm's weight and bias
get CLASSES rows (random, fixed seed), the output CLASSES columns; what a
user does to fine-tune a backbone for another task. --rename gives every
node and tensor another name (a re-export); --perturb-first-conv changes
one weight of the first Conv (a changed first layer). Used by
compiler/driver/tests/partitions.sh.
"""
import argparse

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("classes", type=int)
    ap.add_argument("--rename", action="store_true")
    ap.add_argument("--perturb-first-conv", action="store_true")
    a = ap.parse_args()
    m = onnx.load(a.src)
    g = m.graph
    gemm = [n for n in g.node if n.op_type == "Gemm"][-1]
    rng = np.random.default_rng(a.classes)
    inits = {t.name: t for t in g.initializer}
    w = inits[gemm.input[1]]
    k = numpy_helper.to_array(w).shape[1]
    w.CopyFrom(numpy_helper.from_array(
        (rng.standard_normal((a.classes, k)) * 0.01).astype(np.float32),
        w.name))
    if len(gemm.input) > 2:
        b = inits[gemm.input[2]]
        b.CopyFrom(numpy_helper.from_array(
            np.zeros(a.classes, np.float32), b.name))
    g.output[0].type.tensor_type.shape.dim[-1].dim_value = a.classes
    if a.perturb_first_conv:
        conv = [n for n in g.node if n.op_type == "Conv"][0]
        t = inits[conv.input[1]]
        v = numpy_helper.to_array(t).copy()
        v.flat[0] += 0.5
        t.CopyFrom(numpy_helper.from_array(v, t.name))
    if a.rename:
        names = {}
        for n in g.node:
            n.name = "renamed_" + n.name
            for io in (n.input, n.output):
                for i, x in enumerate(io):
                    if x:
                        io[i] = names.setdefault(x, "r%d_%s" % (len(names), x))
        for t in g.initializer:
            t.name = names.get(t.name, t.name)
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            vi.name = names.get(vi.name, vi.name)
    onnx.save(m, a.dst)


if __name__ == "__main__":
    main()
