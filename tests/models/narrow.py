#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Find the first node of a model whose output the NPU gets wrong.

  narrow.py NAME|MODEL.onnx [--inputs DIR] [--npuc-arg=-O0 ...]
            [--tol 1e-4] [--linear]

Evaluates the model in float64 with onnx_ref.py (an independent numpy
evaluator), then cuts the graph at a node's output (that tensor becomes the
only graph output, unneeded nodes and weights are dropped), compiles the cut
model with npuc (plus any --npuc-arg, e.g. --npuc-arg=--disable-pass=fuse)
and runs it with npu-run on the in-process device, comparing
max|npu - ref| / max|ref| with --tol. A binary search over the nodes in
graph order finds the first cut that fails (--linear checks every node).
Prints the guilty node: op, name, attributes, input shapes, and the commands
that reproduce it. Work files go to build/narrow/<name>/.
"""

import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npu_e2e as e2e  # noqa: E402
import onnx_ref  # noqa: E402

NP2ONNX = {np.dtype("float32"): onnx.TensorProto.FLOAT,
           np.dtype("float64"): onnx.TensorProto.FLOAT,
           np.dtype("int64"): onnx.TensorProto.INT64,
           np.dtype("int32"): onnx.TensorProto.INT32,
           np.dtype("bool"): onnx.TensorProto.BOOL}


def cut(model, tensor, value):
    """A copy of model whose only output is tensor (pruned)."""
    g = model.graph
    need = {tensor}
    keep = []
    for node in reversed(g.node):
        if any(o in need for o in node.output):
            keep.append(node)
            need.update(i for i in node.input if i)
    keep.reverse()
    inits = [i for i in g.initializer if i.name in need]
    inputs = [i for i in g.input if i.name in need]
    # A plain output name: torch's tensor names contain '/', and npu-run
    # names output files after outputs.
    last = onnx.NodeProto()
    last.CopyFrom(keep[-1])
    last.output[list(last.output).index(tensor)] = "cut_output"
    keep[-1] = last
    out = helper.make_tensor_value_info("cut_output", NP2ONNX[value.dtype],
                                        list(value.shape))
    ng = helper.make_graph(keep, g.name + "_cut", inputs, [out], inits)
    m = helper.make_model(ng, opset_imports=model.opset_import,
                          producer_name="narrow.py")
    m.ir_version = model.ir_version
    return m


def check(model, tensor, ref, feeds_dir, work, npuc_args, tol):
    """Run the model cut at tensor; return (rel error or None, message)."""
    d = os.path.join(work, "cut")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    m = cut(model, tensor, ref)
    path = os.path.join(d, "model.onnx")
    onnx.save(m, path)
    om = os.path.join(d, "model.om")
    argv = [e2e.tool("npuc"), path, "-o", om, "--no-cache"] + npuc_args
    rc, log = e2e.run(argv)
    if rc != 0:
        return None, "npuc failed:\n" + log[-1500:]
    # Feed only the inputs the cut model still has, in its order.
    ind = os.path.join(d, "inputs")
    os.makedirs(ind)
    names = [i.name for i in model.graph.input]
    for k, i in enumerate(m.graph.input):
        shutil.copy(os.path.join(feeds_dir, "input_%d.npy"
                                 % names.index(i.name)),
                    os.path.join(ind, "input_%d.npy" % k))
    argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir", ind,
            "-o", os.path.join(d, "out")]
    rc, log = e2e.run(argv)
    if rc != 0:
        return None, "npu-run failed:\n" + log[-1500:]
    out = np.load(os.path.join(d, "out", "output_0.npy"))
    return e2e.rel_error(out, ref), ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--inputs", help="dir with input_K.npy")
    p.add_argument("--npuc-arg", action="append", default=[])
    p.add_argument("--tol", type=float, default=e2e.REL_TOL)
    p.add_argument("--linear", action="store_true")
    a = p.parse_args()
    path = a.model
    if not path.endswith(".onnx"):
        path = os.path.join(e2e.BUILD, "models", a.model, "model.onnx")
    inputs = a.inputs or os.path.join(os.path.dirname(path), "inputs")
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    work = os.path.join(e2e.BUILD, "narrow", name)
    os.makedirs(work, exist_ok=True)
    model = onnx.load(path)
    init_names = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in init_names]
    feeds = {i.name: np.load(os.path.join(inputs, "input_%d.npy" % k))
             for k, i in enumerate(graph_inputs)}
    nodes = [n for n in model.graph.node
             if n.op_type not in ("Constant", "Shape")]
    tensors = [n.output[0] for n in nodes]
    refs = onnx_ref.run(model, feeds, want=tensors)
    cand = [i for i, t in enumerate(tensors)
            if refs[t].dtype.kind == "f" and refs[t].size > 0]

    def bad(i):
        t = tensors[i]
        err, msg = check(model, t, refs[t], inputs, work, a.npuc_arg, a.tol)
        state = "FAIL" if err is None or err > a.tol else "ok"
        print("  node %4d %-20s %-40s %s %s" % (
            i, nodes[i].op_type, t[:40],
            "error" if err is None else "%.3g" % err, state), flush=True)
        if msg:
            print("    " + msg.replace("\n", "\n    "))
        return state == "FAIL"

    print("%d nodes; cutting at float outputs (tol %g)" % (len(cand), a.tol))
    if a.linear:
        first = next((i for i in cand if bad(i)), None)
    else:
        if not bad(cand[-1]):
            print("the whole model passes")
            return 0
        lo, hi = 0, len(cand) - 1       # invariant: cand[hi] fails
        while lo < hi:
            mid = (lo + hi) // 2
            if bad(cand[mid]):
                hi = mid
            else:
                lo = mid + 1
        first = cand[hi]
    if first is None:
        print("every node passes")
        return 0
    n = nodes[first]
    print("\nfirst failing node: #%d %s %r" % (first, n.op_type, n.name))
    print("  attributes: %s" % {x.name: helper.get_attribute_value(x)
                                for x in n.attribute})
    env = onnx_ref.run(model, feeds, want=[i for i in n.input if i and
                                           i not in init_names] or None) \
        if any(i and i not in init_names for i in n.input) else {}
    for i in n.input:
        if i in init_names:
            w = numpy_helper.to_array(next(x for x in model.graph.initializer
                                           if x.name == i))
            print("  input %s: weight %s %s" % (i, w.dtype, list(w.shape)))
        elif i in env:
            print("  input %s: %s %s" % (i, env[i].dtype, list(env[i].shape)))
    print("  output %s: %s" % (n.output[0], list(refs[n.output[0]].shape)))
    bad(first)
    print("reproduce: the cut model is %s/cut/model.onnx" % os.path.relpath(
        work, e2e.ROOT))
    return 1


if __name__ == "__main__":
    sys.exit(main())
