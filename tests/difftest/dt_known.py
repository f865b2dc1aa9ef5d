# SPDX-License-Identifier: MIT
"""Known bug classes: what a failure must look like to be one of them.

Each entry names a bug that is reported and owned (compiler-findings.md,
issue 22) but not fixed on this tree yet. match() looks at a failure and
the (minimized) graph; the bounded run reports a match as TAP TODO naming
the bug, so `make check` stays usable and an unexpected pass shows up,
and the campaign counts it under its id. Remove an entry once the fix has
landed: its seeds then have to pass.
"""

import re


def _ops(g):
    return [n.op for n in g.nodes]


def _has(g, op, pred=None):
    return any(n.op == op and (pred is None or pred(n)) for n in g.nodes)


def _wrong_at_o2_only(f):
    return f.cls == "wrong" and f.check in (
        "O2-vs-interp-after", "O0-vs-O2", "npu-vs-f64", "npu-vs-ort",
        "passes-vs-interp")


def _feeds(g, op, cons):
    """Does a node of op feed (directly) a node of op cons?"""
    for n in g.nodes:
        if n.op != op:
            continue
        for m in g.nodes:
            if m.op == cons and n.outputs[0] in m.inputs:
                return True
    return False


def _rank3_input(g, n):
    shapes = {nm: s for nm, _, s in g.inputs}
    s = shapes.get(n.inputs[0])
    return s is None or len(s) == 3


KNOWN = [
    ("maxmin-inplace", "H2",
     "variadic Max/Min (3+ inputs) folds into an output that shares "
     "memory with a later input",
     lambda f, g: _wrong_at_o2_only(f) and _has(
         g, "Max", lambda n: len(n.inputs) >= 3) or
     _wrong_at_o2_only(f) and _has(g, "Min", lambda n: len(n.inputs) >= 3)),
    ("gemm-bn-colbias", "H2",
     "Gemm + BatchNormalization folding treats a [M,1] bias as per column",
     lambda f, g: _wrong_at_o2_only(f) and _feeds(g, "Gemm",
                                                  "BatchNormalization")),
    ("logsumexp-overflow", "H2",
     "ReduceLogSumExp lowered as Log(ReduceSum(Exp(x))) overflows",
     lambda f, g: f.cls == "wrong" and _has(g, "ReduceLogSumExp")),
    ("matmul-1d-bias", "H2",
     "MatMul with a 1-D weight + bias fused against the ONNX shape; the "
     "device refuses the task",
     lambda f, g: f.cls in ("crash", "error", "wrong") and _has(
         g, "MatMul") and ("malformed task" in f.detail or
                           "refused by the op check" in f.detail) or
     f.cls in ("crash", "error") and _feeds(g, "MatMul", "Add") and
     "MATMUL" in f.detail),
    ("internal-names", "H2",
     "a user tensor named like an internal one (t5) collides",
     lambda f, g: f.cls in ("error", "crash") and
     "already produced elsewhere" in f.detail),
    ("layernorm-unused-outputs", "H2",
     "LayerNormalization with unused Mean/InvStdDev outputs refused",
     lambda f, g: f.cls in ("error", "crash") and _has(
         g, "LayerNormalization") and "no static shape" in f.detail),
    ("slice-negative-step", "H2",
     "Slice with negative steps refused",
     lambda f, g: f.cls in ("unsupported", "error") and
     "negative slice steps" in f.detail),
    ("resize-tf-half-pixel-for-nn", "H2",
     "Resize coordinate_transformation_mode tf_half_pixel_for_nn refused",
     lambda f, g: f.cls in ("unsupported", "error") and
     "tf_half_pixel_for_nn" in f.detail),
    ("pad-negative", "H2",
     "Pad with negative pads refused",
     lambda f, g: f.cls in ("unsupported", "error", "crash") and
     _has(g, "Pad") and re.search(r"negative|pads", f.detail) is not None
     and "Pad" in f.detail),
    ("conv1d-pool1d", "H2",
     "1-D Conv and pooling (rank-3 inputs) refused",
     lambda f, g: f.cls in ("unsupported", "error") and re.search(
         r"only 2-D (convolutions|pooling)", f.detail) is not None and any(
             n.op in ("Conv", "MaxPool", "AveragePool", "GlobalMaxPool",
                      "GlobalAveragePool") and
             g.inputs and _rank3_input(g, n) for n in g.nodes)),
    ("pool-ceil-window", "H2",
     "ceil-mode pooling whose window is larger than the (padded) input is "
     "refused ('window larger than the padded input'); ONNX and ONNX "
     "Runtime give one output there",
     lambda f, g: f.cls in ("error", "unsupported") and
     "window larger than the padded input" in f.detail and any(
         n.op in ("MaxPool", "AveragePool") and n.attrs.get("ceil_mode")
         for n in g.nodes)),
    ("sched-lost-wakeup", "lead",
     "one-core device loses a wake-up across streams and hangs",
     lambda f, g: f.cls == "hang" and "s8c1" in f.check),
]


def match(f, g):
    """The (id, owner, text) of the known bug f is, or None."""
    for kid, owner, text, pred in KNOWN:
        try:
            if pred(f, g):
                return kid, owner, text
        except Exception:
            continue
    return None
