#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The op table tells the truth (TAP).

Reads the table of ONNX operators in Documentation/ops.rst (between the
``.. optable-begin`` and ``.. optable-end`` comments). Each row is an op
and a list of items separated by ``;``:

  key=v1,v2,...          accepted: one model per value must compile, run
                         on the device and match (every check of the
                         differential fuzzer, dt_run)
  refused key=v1,...     refused: npuc must exit 1 with a message that
                         says what is not supported (no crash, no
                         internal error)
  -                      the op with its defaults only

For every claimed entry a one-node model (a few nodes where the op needs
computed inputs) is built here; an item the test has no builder for fails
("no case"), so the table cannot claim what is not checked. The test also
fails when an op the compiler names in compiler/ir/ir.h is missing from the
table, and when the fuzzer (dt_gen) never generates a claimed op.
"""

import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dt_gen     # noqa: E402
import dt_known   # noqa: E402
import dt_run     # noqa: E402
from dt_graph import Graph, Node   # noqa: E402

ROOT = dt_run.ROOT
OPS_RST = os.path.join(ROOT, "Documentation", "ops.rst")
IR_H = os.path.join(ROOT, "compiler", "ir", "ir.h")


def parse_table(path=OPS_RST):
    """[(op, [(refused, key, [values])])] from the table in ops.rst."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"\.\. optable-begin\n(.*?)\.\. optable-end", text, re.S)
    if not m:
        raise SystemExit("ops.rst has no optable-begin/end block")
    rows = []
    cur = None
    for line in m.group(1).splitlines():
        if not line.strip() or line.startswith("=") or \
                line.startswith(".."):
            continue
        if line.startswith("ONNX op"):
            continue
        if line[0] != " ":
            op, _, rest = line.partition(" ")
            cur = [op, rest.strip()]
            rows.append(cur)
        elif cur is not None:
            cur[1] += " " + line.strip()
    table = []
    for op, rest in rows:
        items = []
        for it in rest.split(";"):
            it = it.strip()
            if not it or it == "-":
                continue
            refused = it.startswith("refused ")
            if refused:
                it = it[len("refused "):].strip()
            key, _, vals = it.partition("=")
            values = [v.strip() for v in vals.split(",")] if vals else [""]
            items.append((refused, key.strip(), values))
        table.append((op, items))
    return table


def compiler_ops(path=IR_H):
    """The ONNX op names of the IR (compiler/ir/ir.h)."""
    with open(path) as f:
        text = f.read()
    names = re.findall(r'X\([A-Z_0-9]+, "([A-Za-z]+)"\)', text)
    return sorted(set(names))


# ---------------------------------------------------------------- builders

RNG = np.random.default_rng(22)


class B:
    """A small graph under construction: one op with its inputs."""

    def __init__(self):
        self.g = Graph()
        self.k = 0

    def x(self, shape, dtype="float32", lo=0.5, hi=2.0):
        self.k += 1
        name = "x%d" % self.k
        if dtype == "float32" or dtype == "float16":
            v = np.asarray(RNG.uniform(lo, hi, size=shape), dtype=dtype)
        elif dtype == "bool":
            v = RNG.random(shape) < 0.5
        else:
            v = RNG.integers(1, 5, size=shape).astype(dtype)
        self.g.inputs.append((name, dtype, tuple(shape)))
        self.g.feeds[name] = v
        return name

    def c(self, arr):
        self.k += 1
        name = "c%d" % self.k
        self.g.inits[name] = np.asarray(arr)
        return name

    def fc(self, shape, lo=-1.0, hi=1.0):
        return self.c(np.asarray(RNG.uniform(lo, hi, size=shape),
                                 dtype=np.float32))

    def node(self, op, ins, attrs=None, nout=1, outs=None):
        outs = outs or ["y%d" % i if i else "y" for i in range(nout)]
        self.g.nodes.append(Node(op, ins, outs, attrs or {}))
        self.g.outputs = [o for o in outs if o]
        return self.g


UNARY_F = ["Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Reciprocal",
           "Floor", "Ceil", "HardSwish", "Softplus", "Softsign", "Identity",
           "Dropout", "LeakyRelu", "Elu", "Selu", "HardSigmoid",
           "ThresholdedRelu"]
UNARY_SIGNED = ["Relu", "Neg", "Abs"]
BINARY = ["Add", "Sub", "Mul", "Div"]
CMP = ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]
REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
          "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum",
          "ReduceLogSumExp"]


def _num(v):
    try:
        return int(v)
    except ValueError:
        return float(v)


RANDOM = ["RandomUniform", "RandomNormal", "RandomUniformLike",
          "RandomNormalLike", "Bernoulli"]
ONNX_DTYPES = {"float32": 1, "int32": 6, "int64": 7, "string": 8,
               "float16": 10, "float64": 11}


def random_case(b, op, key, val):
    """A random op: refusals only (its values are checked as
    distributions by tests/models/random_ops.py, not differentially)."""
    attrs = {"shape": [2, 3]} if op in ("RandomUniform", "RandomNormal") \
        else {}
    if key == "dtype":
        attrs["dtype"] = ONNX_DTYPES[val]
    elif key in ("low", "high", "mean", "scale"):
        attrs[key] = float(val)
    else:
        return None
    ins = [] if "shape" in attrs else [b.x((2, 3), "float32", 0.0, 1.0)]
    return b.node(op, ins, attrs)


def case(op, key, val):
    """The graph that checks one table entry, or None (no builder)."""
    b = B()
    dt = val if key == "dtype" else "float32"
    if op in RANDOM:
        return random_case(b, op, key, val)
    if op in UNARY_F or op in UNARY_SIGNED:
        if key not in ("", "dtype", "alpha", "beta", "gamma", "rank",
                       "training_mode"):
            return None
        shape = (2, 3, 4)
        if key == "rank":
            shape = (2, 3, 4, 5, 2, 2)[:int(val)]
        lo = -2.0 if op not in ("Log", "Sqrt", "Reciprocal") else 0.5
        ins = [b.x(shape, dt, lo, 2.0)]
        attrs = {}
        if key in ("alpha", "beta", "gamma"):
            attrs[key] = float(val)
        if key == "training_mode":
            ins += [b.c(np.float32(0.5)), b.c(np.array(bool(int(val))))]
        return b.node(op, ins, attrs)
    if op in BINARY or op in ("Max", "Min", "Sum", "Mean", "Pow"):
        if key in ("", "dtype", "broadcast"):
            bs = (3, 4) if key == "broadcast" or op != "Pow" else (2, 3, 4)
            lo = 0.5
            ins = [b.x((2, 3, 4), dt, lo), b.x(bs, dt, lo)]
            return b.node(op, ins)
        if key == "inputs" and op in ("Max", "Min", "Sum", "Mean"):
            ins = [b.x((2, 3, 4), "float32", -2.0) for _ in range(int(val))]
            return b.node(op, ins)
        if key == "exponent" and op == "Pow":
            e = np.array(2, dtype=val) if val != "float32" else \
                np.float32(1.5)
            return b.node(op, [b.x((2, 3), "float32", 0.5), b.c(e)])
        return None
    if op == "PRelu":
        if key == "slope":
            s = {"per-channel": (3, 1, 1), "scalar": (1,),
                 "broadcast": (4, 5)}[val]
            return b.node(op, [b.x((2, 3, 4, 5), "float32", -2.0),
                               b.fc(s)])
        return None
    if op in CMP:
        if key in ("", "dtype"):
            return b.node(op, [b.x((2, 3), dt, -2.0), b.x((3,), dt, -2.0)])
        return None
    if op in ("And", "Or", "Xor"):
        if key in ("", "dtype"):
            return b.node(op, [b.x((2, 3), "bool"), b.x((3,), "bool")])
        return None
    if op == "Not":
        return b.node(op, [b.x((2, 3), "bool")]) if key in ("", "dtype") \
            else None
    if op == "Where":
        if key in ("", "dtype"):
            return b.node(op, [b.x((2, 3), "bool"), b.x((2, 3), dt),
                               b.x((3,), dt)])
        return None
    if op == "Clip":
        if key != "bounds":
            return None
        x = b.x((2, 3, 4), "float32", -2.0)
        lo, hi = b.c(np.float32(-0.5)), b.c(np.float32(1.0))
        ins = {"none": [x], "min": [x, lo], "max": [x, "", hi],
               "both": [x, lo, hi]}[val]
        return b.node(op, ins)
    if op in ("Cast", "CastLike"):
        if key != "to":
            return None
        x = b.x((2, 3), "float32", -3.0, 3.0)
        if op == "Cast":
            return b.node(op, [x], {"to": val})
        t = b.c(np.zeros((1,), dtype=val))
        return b.node(op, [x, t])
    if op == "Conv":
        return conv_case(b, key, val)
    if op == "ConvTranspose":
        return convt_case(b, key, val)
    if op in ("RNN", "LSTM", "GRU"):
        return rnn_case(b, op, key, val)
    if op in MORE:
        return more_case(b, op, key, val)
    if op == "TopK":
        return topk_case(b, key, val)
    if op == "Unique":
        return unique_case(b, key, val)
    if op in ("NonZero", "NonMaxSuppression"):
        return count_case(b, op, key, val)
    if op in ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Asinh", "Acosh",
              "Atanh"):
        if key != "range":
            return None
        lo, hi = {"Asin": (-0.99, 0.99), "Acos": (-0.99, 0.99),
                  "Atanh": (-0.99, 0.99), "Acosh": (1.0, 20.0),
                  "Tan": (-1.5, 1.5)}.get(op, (-20.0, 20.0))
        if val == "edges":
            x = b.c(np.array([lo, hi, 0.0, 1e-6], np.float32))
            return b.node(op, [x])
        return b.node(op, [b.x((3, 17), "float32", lo, hi)])
    if op in ("EyeLike", "HannWindow", "HammingWindow", "BlackmanWindow",
              "Upsample", "Compress", "ReverseSequence", "MaxUnpool"):
        return gen_case(b, op, key, val)
    if op in ("ScatterND", "ScatterElements", "Scatter"):
        return scatter_case(b, op, key, val)
    if op in ("MaxPool", "AveragePool"):
        return pool_case(b, op, key, val)
    if op in ("GlobalAveragePool", "GlobalMaxPool"):
        if key == "rank":
            return b.node(op, [b.x((1, 3, 4, 5, 6)[:int(val)], "float32",
                                   -2.0)])
        return None
    if op == "BatchNormalization":
        if key == "rank":
            r = int(val)
            x = b.x((2, 3, 4, 5, 6)[:r], "float32", -2.0)
        elif key == "training_mode":
            x = b.x((2, 3, 4, 4), "float32", -2.0)
        else:
            return None
        ins = [x, b.fc((3,), 0.5, 1.5), b.fc((3,)), b.fc((3,)),
               b.fc((3,), 0.5, 1.5)]
        attrs = {"training_mode": int(val)} if key == "training_mode" \
            else {}
        nout = 3 if key == "training_mode" and val == "1" else 1
        return b.node(op, ins, attrs, nout=nout)
    if op == "Gemm":
        return gemm_case(b, key, val)
    if op == "MatMul":
        if key != "shapes":
            return None
        a, w = val.split("x")
        sa = tuple(int(d) for d in a.split("."))
        sw = tuple(int(d) for d in w.split("."))
        return b.node(op, [b.x(sa, "float32", -1.0), b.fc(sw)])
    if op in ("Softmax", "LogSoftmax"):
        if key != "axis":
            return None
        return b.node(op, [b.x((2, 3, 4), "float32", -2.0)],
                      {"axis": int(val)})
    if op == "LayerNormalization":
        return ln_case(b, key, val)
    if op in REDUCE:
        return reduce_case(b, op, key, val)
    if op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
              "Concat", "Split", "Slice", "Gather", "Expand", "Shape",
              "Size", "ConstantOfShape", "Range", "Trilu", "Constant"):
        return shape_case(b, op, key, val)
    if op == "Pad":
        return pad_case(b, key, val)
    if op == "Resize":
        return resize_case(b, key, val)
    if op == "GridSample":
        return grid_sample_case(b, key, val)
    if op == "RoiAlign":
        return roi_align_case(b, key, val)
    if op == "Einsum" and key == "equation":
        val = {"bmm": "bij,bjk->bik", "transpose": "ij->ji",
               "sum": "bij->bj", "dot": "bi,bi->b", "outer": "i,j->ij",
               "implicit": "ij,jk", "diagonal": "bii->bi",
               "trace": "ii->"}[val]
        terms = val.split("->")[0].split(",")
        ins = [b.x(tuple({"b": 2, "i": 3, "j": 4, "k": 5}[c] for c in t),
                   "float32", -2.0) for t in terms]
        return b.node("Einsum", ins, {"equation": val})
    if op in ("MatMulInteger", "ConvInteger") and key == "dtype":
        conv = op == "ConvInteger"
        xq = b.x((1, 8, 5, 5) if conv else (3, 8), val)
        w = b.c(RNG.integers(-50, 50, size=(4, 8, 3, 3) if conv else
                             (8, 4)).astype(np.int8))
        return b.node(op, [xq, w, b.c(np.array(2, np.dtype(val)))],
                      {"pads": [1] * 4} if conv else {})
    if op == "DynamicQuantizeLinear" and key == "range":
        lo, hi = {"mixed": (-2.0, 3.0), "positive": (0.5, 4.0),
                  "negative": (-3.0, -0.5)}[val]
        return b.node(op, [b.x((3, 7), "float32", lo, hi)], nout=3)
    if op == "Det" and key == "m":
        return b.node("Det", [b.x((2, int(val), int(val)), "float32",
                                  -2.0)])
    if op in ("QLinearConv", "QLinearMatMul") and key == "dtype":
        return qlinear_case(b, op, val)
    if op in ("QuantizeLinear", "DequantizeLinear"):
        return qdq_case(b, op, key, val)
    if op in SMALL:
        return small_case(b, op, key, val)
    if op in ("If", "Loop", "Scan"):
        return control_case(b, op, key, val)
    if op in ("DFT", "STFT", "MelWeightMatrix"):
        return signal_case(b, op, key, val)
    if op == "TfIdfVectorizer" and key in ("mode", "max_skip_count", "rank",
                                           "dtype"):
        dt = val if key == "dtype" else "int32"
        x = b.x((2, 9) if key == "rank" and val == "2" else (9,), dt)
        attrs = {"mode": val if key == "mode" else "TF",
                 "min_gram_length": 1, "max_gram_length": 2,
                 "max_skip_count": int(val) if key == "max_skip_count"
                 else 1, "ngram_counts": [0, 3],
                 "ngram_indexes": [4, 0, 1, 2, 3],
                 "pool_int64s": [1, 2, 4, 1, 2, 3, 3]}
        if key == "mode" and val != "TF":
            attrs["weights"] = [0.5, 2.0, 1.5, 3.0, 0.25]
        return b.node(op, [x], attrs)
    if op == "BitShift" and key in ("dtype", "direction"):
        dt = val if key == "dtype" else "uint32"
        bits = np.dtype(dt).itemsize * 8
        x = b.x((2, 4), dt)
        s = b.c(np.array([0, 1, bits - 1, bits + 3], dt))
        return b.node(op, [x, s], {"direction": val if key == "direction"
                                   else "LEFT"})
    return None


def signal_case(b, op, key, val):
    """DFT (input, axis, direction, one-sided, length), STFT (window or
    frame_length, one-sided), MelWeightMatrix (constant inputs)."""
    if op == "DFT" and key in ("input", "axis", "inverse", "onesided",
                               "dft_length"):
        c = 2 if (key == "input" and val == "complex") or \
            key == "inverse" else 1
        x = b.x((2, 6, 5, c), "float32", -2.0)
        attrs = {"axis": int(val) if key == "axis" else 1}
        if key == "inverse":
            attrs["inverse"] = int(val)
        if key == "onesided":
            attrs["onesided"] = int(val)
        ins = [x]
        if key == "dft_length":
            ins.append(b.c(np.array(int(val), np.int64)))
        return b.node("DFT", ins, attrs)
    if op == "STFT" and key in ("frame", "onesided"):
        sig = b.x((2, 40, 1), "float32", -2.0)
        if key == "frame" and val == "window":
            ins = [sig, b.c(np.array(5, np.int64)),
                   b.c(np.hamming(12).astype(np.float32))]
        else:
            ins = [sig, b.c(np.array(5, np.int64)), "",
                   b.c(np.array(12, np.int64))]
        return b.node("STFT", ins, {"onesided": int(val)}
                      if key == "onesided" else {})
    if op == "MelWeightMatrix" and key == "mel_bins":
        return b.node(op, [b.c(np.array(int(val), np.int64)),
                           b.c(np.array(32, np.int64)),
                           b.c(np.array(16000, np.int64)),
                           b.c(np.float32(20.0)), b.c(np.float32(7000.0))])
    return None


def _sub(inputs, nodes, outputs, out_dtypes=None, inits=None):
    g = Graph()
    g.inputs = list(inputs)
    g.nodes = [Node(op, i, o, a) for op, i, o, a in nodes]
    g.outputs = list(outputs)
    g.out_dtypes = dict({o: "float32" for o in outputs},
                        **(out_dtypes or {}))
    g.inits = dict(inits or {})
    return g


def control_case(b, op, key, val):
    """If on data or a constant (and branches of two shapes on data:
    refused), Loop (trip count, scan outputs; a computed condition:
    refused), Scan (direction, output axis)."""
    x = b.x((2, 3), "float32", -2.0)
    if op == "If" and key in ("cond", "branches"):
        if val == "constant":
            c = b.c(np.array(False))
        else:
            b.g.nodes.append(Node("ReduceSum", [x], ["s"], {"keepdims": 0}))
            b.g.nodes.append(Node("Greater", ["s", b.c(np.float32(0))],
                                  ["c"]))
            c = "c"
        other = [("Neg", [x], ["e"], {})] if val != "shapes" else \
            [("ReduceSum", [x], ["e"], {"keepdims": 1})]
        return b.node("If", [c], {
            "then_branch": _sub([], [("Relu", [x], ["t"], {})], ["t"]),
            "else_branch": _sub([], other, ["e"])})
    if op == "Loop" and key in ("trip", "scan_outputs", "condition"):
        body = [("Mul", ["y_in", "k"], ["t"], {}),
                ("Add", ["t", x], ["y_out"], {})]
        outs = ["c_out", "y_out"]
        if key == "condition" and val == "counter":
            body.append(("Less", ["i", "five"], ["c_out"], {}))
        elif key == "condition":	# the data decides: refused
            body += [("ReduceSum", ["y_out"], ["s"], {"keepdims": 0}),
                     ("Less", ["s", "ten"], ["c_out"], {})]
        else:
            body.append(("Identity", ["c_in"], ["c_out"], {}))
        if key == "scan_outputs" and val == "1":
            body.append(("Cast", ["i"], ["fi"], {"to": "float32"}))
            outs.append("fi")
        g = _sub([("i", "int64", ()), ("c_in", "bool", ()),
                  ("y_in", "float32", (2, 3))], body, outs,
                 {"c_out": "bool"}, {"k": np.float32(0.5),
                                     "five": np.array(5, np.int64),
                                     "ten": np.float32(10)})
        trip = int(val) if key == "trip" else 3
        return b.node("Loop", [b.c(np.array(trip, np.int64)), "", x],
                      {"body": g}, nout=len(outs) - 1)
    if op == "Scan" and key in ("direction", "output_axis"):
        s0 = b.x((3,), "float32", -1.0)
        g = _sub([("s_in", "float32", (3,)), ("x_t", "float32", (3,))],
                 [("Add", ["s_in", "x_t"], ["s_out"], {}),
                  ("Mul", ["s_out", "x_t"], ["y_t"], {})],
                 ["s_out", "y_t"])
        rev = int(key == "direction" and val == "reverse")
        oax = int(val) if key == "output_axis" else 0
        return b.node("Scan", [s0, x], {
            "body": g, "num_scan_inputs": 1,
            "scan_input_directions": [rev], "scan_output_axes": [oax],
            "scan_output_directions": [rev]}, nout=2)
    return None


SMALL = ["Sign", "Round", "Mod", "IsNaN", "IsInf", "Celu", "Shrink",
         "Hardmax", "Tile", "OneHot", "Sinh", "Cosh"]


def special(b, shape):
    """A float input holding 0, +-inf, NaN and values either side."""
    x = b.x(shape, "float32", -3.0, 3.0)
    v = b.g.feeds[x].reshape(-1)
    v[:6] = [0.0, np.inf, -np.inf, np.nan, 2.5, -1.5][:v.size]
    return x


def small_case(b, op, key, val):
    attrs = {}
    dt = val if key == "dtype" else "float32"
    if op in ("Sign", "Round", "Sinh", "Cosh", "IsNaN", "IsInf"):
        if key not in ("", "dtype", "detect"):
            return None
        if dt != "float32":
            x = b.x((2, 3, 4), dt)
            b.g.feeds[x] = (b.g.feeds[x] - 2).astype(dt)
            return b.node(op, [x])
        if key == "detect":
            attrs = {"both": {}, "positive": {"detect_negative": 0},
                     "negative": {"detect_positive": 0}}[val]
        if op in ("Sinh", "Cosh"):
            return b.node(op, [b.x((2, 3, 4), "float32", -3.0, 3.0)])
        return b.node(op, [special(b, (2, 3, 4))], attrs)
    if op == "Mod":
        if key == "dtype":
            if dt in ("float32", "float16"):
                return b.node(op, [b.x((2, 3), dt, -5.0, 5.0),
                                   b.c(np.array(-1.5, dt))], {"fmod": 1})
            x = b.x((2, 3), dt)
            b.g.feeds[x] = (b.g.feeds[x] * 3 - (7 if dt != "uint8" else 0)
                            ).astype(dt)
            return b.node(op, [x, b.c(np.array([3, -2, 5] if dt != "uint8"
                                               else [3, 2, 5], dtype=dt))])
        if key == "fmod":
            x = b.x((2, 3), "int32")
            b.g.feeds[x] = (b.g.feeds[x] * 3 - 7).astype(np.int32)
            return b.node(op, [x, b.c(np.array([3, -2, 5], np.int32))],
                          {"fmod": int(val)})
        if key == "fmod_float":
            return b.node(op, [b.x((2, 3)), b.c(np.float32(1.5))],
                          {"fmod": int(val)})
        return None
    if op == "Celu" and key == "alpha":
        return b.node(op, [b.x((2, 3, 4), "float32", -3.0, 3.0)],
                      {"alpha": float(val)})
    if op == "Shrink":
        if key in ("lambd", "bias"):
            attrs[key] = float(val)
        elif key != "dtype":
            return None
        if dt != "float32":
            x = b.x((2, 3, 4), dt)
            b.g.feeds[x] = (b.g.feeds[x] * 2 - 5).astype(dt)
            return b.node(op, [x], {"lambd": 1.0, "bias": 2.0})
        return b.node(op, [b.x((2, 3, 4), "float32", -2.0, 2.0)], attrs)
    if op == "Hardmax" and key == "axis":
        return b.node(op, [b.x((2, 3, 4), "float32", -2.0, 2.0)],
                      {"axis": int(val)})
    if op == "Tile" and key == "repeats":
        rep = [int(v) for v in val.split(".")]
        return b.node(op, [b.x((2, 3, 1), "float32", -2.0),
                           b.c(np.array(rep, dtype=np.int64))])
    if op == "OneHot":
        ind = np.array([[0, 2, -1], [5, 1, -4]])
        it = "int64"
        if key == "axis":
            attrs["axis"] = int(val)
        elif key == "indices":
            it = val
        elif key != "depth":
            return None
        x = b.x(ind.shape, it)
        b.g.feeds[x] = ind.astype(it)
        if key == "depth":
            d = b.x((1,), "float32", 3.0, 3.5)
            b.g.nodes.append(Node("Cast", [d], ["d"], {"to": "int64"}))
            return b.node(op, [x, "d", b.c(np.array([0, 1], np.float32))])
        return b.node(op, [x, b.c(np.int64(4)),
                           b.c(np.array([-1.5, 2.0], np.float32))], attrs)
    return None


def convt_case(b, key, val):
    """ConvTranspose [1, 4, 5, 5] with a [4, 3, 3, 3] weight."""
    attrs = {"strides": [2, 2]}
    xs, ws = (1, 4, 5, 5), (4, 3, 3, 3)
    ins_bias = False
    if key == "rank":
        r = int(val)
        xs = (1, 4) + (5,) * (r - 2)
        ws = (4, 3) + (3,) * (r - 2)
        attrs["strides"] = [2] * (r - 2)
    elif key == "auto_pad":
        attrs["auto_pad"] = val
    elif key == "group":
        attrs["group"] = int(val)
    elif key in ("strides", "dilations", "pads", "output_padding",
                 "output_shape"):
        attrs[key] = [int(v) for v in val.split(".")]
    elif key == "bias":
        ins_bias = val == "1"
    elif key == "weight":
        if val != "computed":
            return None
        w = b.x(ws, "float32", -1.0, 1.0)
        return b.node("ConvTranspose", [b.x(xs, "float32", -1.0), w],
                      attrs)
    else:
        return None
    ins = [b.x(xs, "float32", -1.0), b.fc(ws)]
    if ins_bias:
        ins.append(b.fc((ws[1] * attrs.get("group", 1),)))
    return b.node("ConvTranspose", ins, attrs)


def rnn_case(b, op, key, val):
    """One RNN/LSTM/GRU layer: X [T=5, B=2, I=3], H = 4, Y read."""
    g = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    hid, attrs, d = 4, {"hidden_size": 4}, 1
    xs = (5, 2, 3)
    h0 = c0 = p = seq = ""
    if key == "direction":
        attrs["direction"] = val
        d = 2 if val == "bidirectional" else 1
    elif key == "layout":
        attrs["layout"] = int(val)
        if val == "1":
            xs = (2, 5, 3)
    elif key == "linear_before_reset":
        attrs["linear_before_reset"] = int(val)
    elif key == "clip":
        attrs["clip"] = float(val)
    elif key == "activations":
        attrs["activations"] = [val] * {"RNN": 1, "GRU": 2, "LSTM": 3}[op]
    elif key == "initial":
        if val == "constant":
            h0 = b.fc((1, 2, hid))
            c0 = b.fc((1, 2, hid)) if op == "LSTM" else ""
        elif val == "computed":
            h0 = b.x((1, 2, hid), "float32", -1.0, 1.0)
            c0 = b.x((1, 2, hid), "float32", -1.0, 1.0) \
                if op == "LSTM" else ""
        elif val != "none":
            return None
    elif key == "peepholes":
        if op != "LSTM":
            return None
        p = b.fc((1, 3 * hid), -0.5, 0.5) if val == "1" else ""
    elif key == "sequence_lens":
        if val != "short":
            return None
        seq = b.c(np.array([5, 3], dtype=np.int32))
    else:
        return None
    ins = [b.x(xs, "float32", -1.0, 1.0),
           b.fc((d, g * hid, 3), -0.6, 0.6),
           b.fc((d, g * hid, hid), -0.6, 0.6),
           b.fc((d, 2 * g * hid), -0.3, 0.3), seq, h0]
    if op == "LSTM":
        ins += [c0, p]
    while ins[-1] == "":
        ins.pop()
    return b.node(op, ins, attrs, nout=1)


MORE = ["DepthToSpace", "SpaceToDepth", "InstanceNormalization",
        "MeanVarianceNormalization", "LRN", "ArgMax", "ArgMin",
        "GatherElements", "GatherND", "CumSum"]


def more_case(b, op, key, val):
    """Issue 18's decomposed ops, one attribute value each."""
    x4 = (1, 8, 4, 6)
    if op == "DepthToSpace" and key == "mode":
        return b.node(op, [b.x(x4, "float32", -2.0)],
                      {"blocksize": 2, "mode": val})
    if op == "SpaceToDepth" and key == "blocksize":
        return b.node(op, [b.x(x4, "float32", -2.0)],
                      {"blocksize": int(val)})
    if op == "InstanceNormalization" and key == "rank":
        shp = (2, 3, 5, 4, 3)[:int(val)]
        return b.node(op, [b.x(shp, "float32", -2.0), b.fc((3,)),
                           b.fc((3,))])
    if op == "MeanVarianceNormalization" and key == "axes":
        attrs = {} if val == "default" else \
            {"axes": [int(v) for v in val.split(".")]}
        return b.node(op, [b.x(x4, "float32", -2.0)], attrs)
    if op == "LRN" and key == "size":
        return b.node(op, [b.x(x4, "float32", -2.0)],
                      {"size": int(val), "alpha": 0.01, "beta": 0.75})
    if op in ("ArgMax", "ArgMin"):
        attrs = {}
        if key == "axis":
            attrs["axis"] = int(val)
        elif key == "keepdims":
            attrs["keepdims"] = int(val)
        elif key == "select_last_index":
            attrs["select_last_index"] = int(val)
            x = b.c(np.array([[1, 3, 3, 0], [2, 2, -1, 2]], np.float32))
            return b.node(op, [x], dict(attrs, axis=1))
        elif key == "dtype":
            return b.node(op, [b.x((3, 5), val, -4.0, 4.0)], {"axis": 1})
        else:
            return None
        return b.node(op, [b.x((3, 4, 5), "float32", -2.0)], attrs)
    if op == "GatherElements" and key in ("axis", "indices"):
        ax = int(val) if key == "axis" else 1
        dt = np.int64 if key == "axis" else np.dtype(val).type
        ish = [3, 4, 5]
        ish[ax] = 2
        iv = RNG.integers(-[3, 4, 5][ax], [3, 4, 5][ax], size=ish)
        return b.node(op, [b.x((3, 4, 5), "float32", -2.0),
                           b.c(iv.astype(dt))], {"axis": ax})
    if op == "GatherND" and key == "k":
        k = int(val)
        iv = np.stack([RNG.integers(-d, d, size=(2, 2))
                       for d in (3, 4, 5)[:k]], axis=-1)
        return b.node(op, [b.x((3, 4, 5), "float32", -2.0),
                           b.c(iv.astype(np.int64))])
    if op == "GatherND" and key == "batch_dims":
        nb = int(val)
        iv = RNG.integers(-(3, 4, 5)[nb], (3, 4, 5)[nb],
                          size=(3, 4)[:nb] + (2, 1))
        return b.node(op, [b.x((3, 4, 5), "float32", -2.0),
                           b.c(iv.astype(np.int32 if nb == 2 else np.int64))],
                      {"batch_dims": nb})
    if op == "CumSum":
        attrs = {}
        x = b.x((3, 7), "float32", -2.0)
        if key in ("exclusive", "reverse"):
            attrs[key] = int(val)
        elif key == "dtype":
            x = b.x((3, 7), val, -4.0, 4.0)
        elif key != "axis":
            return None
        ax = int(val) if key == "axis" else 1
        return b.node(op, [x, b.c(np.array(ax, np.int64))], attrs)
    return None


def topk_case(b, key, val):
    """TopK of 3 from [4, 6] (values and indices read)."""
    attrs, dt, kk = {}, "float32", b.c(np.array([3], np.int64))
    if key == "axis":
        attrs["axis"] = int(val)
    elif key == "largest":
        attrs["largest"] = int(val)
    elif key == "dtype":
        dt = val
    elif key == "k":
        if val != "computed":
            return None
        kk = b.x((1,), "int64")
    elif key != "outputs":
        return None
    x = b.x((4, 6), dt, -4.0, 4.0)
    if dt != "float32":
        b.g.feeds[x] = RNG.permutation(24).reshape(4, 6).astype(dt) - 12
    g = b.node("TopK", [x, kk], attrs, nout=2, outs=["y", "y1"])
    if key == "outputs" and val in ("values", "indices"):
        g.outputs = ["y" if val == "values" else "y1"]
    return g


def unique_case(b, key, val):
    """Unique of [4, 5] with repeated values and rows (all 4 outputs)."""
    attrs, dt = {}, "float32"
    if key == "sorted":
        attrs["sorted"] = int(val)
    elif key == "axis":
        if val != "none":
            attrs["axis"] = int(val)
    elif key == "dtype":
        dt = val
    else:
        return None
    v = RNG.integers(0, 3, size=(4, 5))
    v[2] = v[0]                       # a repeated row
    v[:, 3] = v[:, 1]                 # a repeated column
    x = b.x((4, 5), dt)
    b.g.feeds[x] = v.astype(dt)
    return b.node("Unique", [x], attrs, nout=4)


def count_case(b, op, key, val):
    """NonZero and NonMaxSuppression: outputs of data-dependent extent."""
    if op == "NonZero":
        if key == "dtype":
            x = b.x((3, 5), val)
            v = RNG.integers(-1, 2, size=(3, 5))
            b.g.feeds[x] = v.astype(val) if val != "bool" else v > 0
            return b.node(op, [x])
        if key == "rank":
            shape = (7, 3, 2, 2, 2)[:int(val)]
            x = b.x(shape, "float32")
            b.g.feeds[x] = np.where(RNG.random(shape) < 0.5, 0.0,
                                    b.g.feeds[x]).astype(np.float32)
            return b.node(op, [x])
        if key == "input" and val == "computed":
            x = b.x((4, 6), "float32", -1.0, 1.0)
            r = b.node("Relu", [x], outs=["r"])
            r.nodes.append(Node("NonZero", ["r"], ["y"], {}))
            r.outputs = ["y"]
            return r
        return None
    n, c = 10, 3
    yx = RNG.uniform(0, 6, size=(2, n, 2))
    hw = RNG.uniform(0.5, 3, size=(2, n, 2))
    boxes = np.concatenate([yx, yx + hw], axis=2).astype(np.float32)
    attrs, mx, st = {}, 4, None
    if key == "center_point_box":
        attrs["center_point_box"] = int(val)
        if int(val):
            boxes = np.concatenate([yx + hw / 2, hw], axis=2)[..., [1, 0, 3, 2]]
    elif key == "score_threshold":
        st = None if val == "none" else float(val)
    elif key == "max_output_boxes_per_class":
        mx = int(val)
    elif key != "batch":
        return None
    bs = 1 if key != "batch" else int(val)
    bx = b.x((bs, n, 4), "float32")
    b.g.feeds[bx] = boxes[:bs].astype(np.float32)
    sc = b.x((bs, c, n), "float32", 0.0, 1.0)
    ins = [bx, sc, b.c(np.array([mx], np.int64)),
           b.c(np.array([0.4], np.float32))]
    if st is not None:
        ins.append(b.c(np.array([st], np.float32)))
    return b.node(op, ins, attrs)


def scatter_case(b, op, key, val):
    """Scatter updates into a [4, 5] (ND: [4, 5, 3]) data input."""
    attrs = {}
    if op == "Scatter":
        if key != "opset" or val != "17":
            return None
        iv = np.array([[1, 0, 2, 4, 3]], np.int64)
        return b.node(op, [b.x((4, 5), "float32", -2.0), b.c(iv),
                           b.fc((1, 5))])
    if key == "reduction":
        attrs["reduction"] = val
    elif key == "indices":
        pass
    elif key != "axis":
        return None
    if op == "ScatterND":
        iv = np.array([[1], [-1], [1]] if val in ("add", "mul") else
                      [[1], [-1]], np.int64)
        return b.node(op, [b.x((4, 5, 3), "float32", -2.0), b.c(iv),
                           b.fc((iv.shape[0], 5, 3))], attrs)
    ax = int(val) if key == "axis" else 1
    ish = (4, 2) if ax == 1 else (2, 5)
    iv = np.array([[0, 3], [4, 1], [2, 2], [1, 0]] if ax == 1 else
                  [[0, 3, 1, 2, 0], [1, 0, 3, 3, 2]])
    if key == "reduction" and val in ("none", "mul"):
        iv = np.array([[0, 3], [4, 1], [2, 0], [1, 0]])
    iv = iv.astype(val if key == "indices" else np.int64)
    attrs["axis"] = ax
    return b.node(op, [b.x((4, 5), "float32", -2.0), b.c(iv),
                       b.fc(ish)], attrs)


def gen_case(b, op, key, val):
    """EyeLike, windows, Upsample (old opsets only), Compress."""
    if op == "EyeLike" and key == "k":
        return b.node(op, [b.x((3, 5))], {"k": int(val)})
    if op.endswith("Window") and key == "periodic":
        return b.node(op, [b.c(np.array(10, np.int64))],
                      {"periodic": int(val)})
    if op == "Upsample" and key == "opset" and val == "17":
        return b.node(op, [b.x((1, 1, 2, 2)),
                           b.c(np.array([1, 1, 2, 2], np.float32))])
    if op == "ReverseSequence" and key == "time_axis":
        ta = int(val)
        x = b.x((4, 3, 2) if ta == 0 else (3, 4, 2))
        return b.node(op, [x, b.c(np.array([4, 1, 3], np.int64))],
                      {"time_axis": ta, "batch_axis": 1 - ta})
    if op == "MaxUnpool" and key == "output_shape":
        iv = np.array([[[[5, 7], [13, 15]]]], np.int64)
        ins = [b.x((1, 1, 2, 2)), b.c(iv)]
        if val == "given":
            ins.append(b.c(np.array([1, 1, 5, 5], np.int64)))
        return b.node(op, ins, {"kernel_shape": [2, 2], "strides": [2, 2]})
    if op == "Compress":
        x = b.x((3, 4))
        if key == "condition" and val == "computed":
            c = b.x((4,), "bool")
            return b.node(op, [x, c], {"axis": 1})
        if key != "axis":
            return None
        attrs = {} if val == "none" else {"axis": int(val)}
        ln = 12 if val == "none" else (3, 4)[int(val)]
        cond = np.arange(ln) % 3 != 1
        return b.node(op, [x, b.c(cond)], attrs)
    return None


def conv_case(b, key, val):
    attrs = {}
    xs, ws = (1, 4, 6, 6), (6, 4, 3, 3)
    ins_bias = False
    if key == "rank":
        r = int(val)
        xs = (1, 4) + (6,) * (r - 2)
        ws = (6, 4) + (3,) * (r - 2)
    elif key == "auto_pad":
        attrs["auto_pad"] = val
        if val != "VALID":
            attrs["strides"] = [2, 2]
    elif key == "group":
        g = 4 if val == "depthwise" else int(val)
        attrs["group"] = g
        ws = (8 if val == "depthwise" else 6, 4 // g, 3, 3)
    elif key in ("strides", "dilations", "pads"):
        attrs[key] = [int(v) for v in val.split(".")]
    elif key == "bias":
        ins_bias = val == "1"
    else:
        return None
    ins = [b.x(xs, "float32", -1.0), b.fc(ws)]
    if ins_bias:
        ins.append(b.fc((ws[0],)))
    return b.node("Conv", ins, attrs)


def pool_case(b, op, key, val):
    attrs = {"kernel_shape": [3, 3]}
    xs = (1, 3, 7, 7)
    dt = "float32"
    nout = 1
    if key == "rank":
        r = int(val)
        xs = (1, 3) + (7,) * (r - 2)
        attrs["kernel_shape"] = [3] * (r - 2)
    elif key in ("ceil_mode", "count_include_pad"):
        attrs[key] = int(val)
        attrs["strides"] = [2, 2]
        attrs["pads"] = [1, 1, 1, 1]
    elif key in ("strides", "dilations", "pads"):
        attrs[key] = [int(v) for v in val.split(".")]
    elif key == "dtype":
        dt = val
    elif key == "outputs":
        nout = int(val)
    elif key == "auto_pad":
        attrs["auto_pad"] = val
    else:
        return None
    return b.node(op, [b.x(xs, dt, -2.0)], attrs, nout=nout)


def gemm_case(b, key, val):
    attrs = {}
    m, k, n = 3, 4, 5
    a_shape, b_shape = (m, k), (k, n)
    c = None
    if key == "transA":
        attrs["transA"] = int(val)
        if val == "1":
            a_shape = (k, m)
    elif key == "transB":
        attrs["transB"] = int(val)
        if val == "1":
            b_shape = (n, k)
    elif key in ("alpha", "beta"):
        attrs[key] = float(val)
        c = (n,)
    elif key == "C":
        c = {"none": None, "scalar": (), "N": (n,), "1xN": (1, n),
             "Mx1": (m, 1), "MxN": (m, n)}[val]
    else:
        return None
    ins = [b.x(a_shape, "float32", -1.0), b.fc(b_shape)]
    if c is not None:
        ins.append(b.fc(c))
    return b.node("Gemm", ins, attrs)


def ln_case(b, key, val):
    xs = (2, 3, 4)
    attrs = {}
    bias = True
    outs = ["y"]
    if key == "axis":
        attrs["axis"] = int(val)
    elif key == "bias":
        bias = val == "1"
    elif key == "outputs":
        outs = {"1": ["y"], "2": ["y", "mean"], "3": ["y", "mean", "inv"],
                "unused": ["y", "mean", "inv"]}[val]
    else:
        return None
    ax = attrs.get("axis", -1)
    ns = xs[ax:] if ax != -1 else xs[-1:]
    ins = [b.x(xs, "float32", -2.0), b.fc(ns, 0.5, 1.5)]
    if bias:
        ins.append(b.fc(ns))
    g = b.node("LayerNormalization", ins, attrs, outs=outs)
    if val == "unused":
        g.outputs = ["y"]
    return g


def reduce_case(b, op, key, val):
    x = b.x((2, 3, 4), "float32", 0.5 if op == "ReduceLogSum" else -1.0)
    attrs = {}
    axes = [1]
    if key == "keepdims":
        attrs["keepdims"] = int(val)
    elif key == "axes":
        axes = {"none": None, "one": [1], "negative": [-1],
                "all": [0, 1, 2], "two": [0, 2]}[val]
    elif key == "noop_with_empty_axes":
        attrs["noop_with_empty_axes"] = int(val)
        axes = None
    else:
        return None
    ins = [x]
    if op == "ReduceSum":
        if axes is not None:
            ins.append(b.c(np.array(axes, dtype=np.int64)))
    elif axes is not None:
        attrs["axes"] = axes
    return b.node(op, ins, attrs)


def shape_case(b, op, key, val):
    x = b.x((2, 3, 4), "float32", -2.0)
    i64 = lambda v: b.c(np.array(v, dtype=np.int64))  # noqa: E731
    if op == "Reshape" and key == "shape":
        s = {"plain": [4, 6], "zero": [0, 12], "minus1": [-1, 4]}[val]
        return b.node(op, [x, i64(s)])
    if op == "Reshape" and key == "allowzero":
        return b.node(op, [x, i64([2, 12])], {"allowzero": int(val)})
    if op == "Flatten" and key == "axis":
        return b.node(op, [x], {"axis": int(val)})
    if op == "Squeeze" and key == "axes":
        x = b.x((2, 1, 4), "float32")
        if val == "none":
            return b.node(op, [x])
        return b.node(op, [x, i64([int(val)])])
    if op == "Unsqueeze" and key == "axes":
        return b.node(op, [x, i64([int(v) for v in val.split(".")])])
    if op == "Transpose" and key == "perm":
        if val == "default":
            return b.node(op, [x])
        return b.node(op, [x], {"perm": [int(v) for v in val.split(".")]})
    if op == "Concat" and key == "axis":
        return b.node(op, [x, b.x((2, 3, 4), "float32")], {"axis": int(val)})
    if op == "Split" and key == "split":
        if val == "input":
            return b.node(op, [x, i64([1, 3])], {"axis": 2}, nout=2)
        return b.node(op, [x], {"axis": 2}, nout=2)
    if op == "Slice" and key == "steps":
        st = {"positive": 2, "negative": -1}[val]
        s, e = (0, 4) if st > 0 else (3, -5)
        return b.node(op, [x, i64([s]), i64([e]), i64([2]), i64([st])])
    if op == "Slice" and key == "starts":
        s = {"negative": -3, "clamped": -100}[val]
        return b.node(op, [x, i64([s]), i64([2 ** 40]), i64([1])])
    if op == "Gather" and key == "indices":
        idx = {"int64": np.array([0, 2, -1], dtype=np.int64),
               "int32": np.array([1, 0], dtype=np.int32),
               "scalar": np.array(1, dtype=np.int64)}[val]
        return b.node(op, [x, b.c(idx)], {"axis": 1})
    if op == "Expand" and key == "shape":
        return b.node(op, [b.x((3, 1), "float32"), i64([2, 3, 4])])
    if op in ("Shape", "Size") and key == "":
        return b.node(op, [x])
    if op == "ConstantOfShape" and key == "value":
        v = np.array([1.5], dtype=val) if val != "none" else None
        attrs = {"value": v} if v is not None else {}
        return b.node(op, [i64([2, 3])], attrs)
    if op == "Range" and key == "dtype":
        st, li, de = (np.array(v, dtype=val) for v in (1, 9, 2))
        return b.node(op, [b.c(st), b.c(li), b.c(de)])
    if op == "Trilu" and key == "upper":
        return b.node(op, [x, i64(1)], {"upper": int(val)})
    if op == "Constant" and key == "attr":
        v = {"value": np.array([1.0, 2.0], dtype=np.float32),
             "value_float": 2.5, "value_floats": [1.0, 2.0],
             "value_int": 3, "value_ints": [1, 2]}[val]
        x = b.x((3, 2), "float32")
        g = b.node(op, [], {val: v}, outs=["k"])
        # a consumer so the model computes something
        kf = "k"
        if val in ("value_int", "value_ints"):
            g.nodes.append(Node("Cast", ["k"], ["kf"], {"to": "float32"}))
            kf = "kf"
        g.nodes.append(Node("Add", [kf, x], ["y"]))
        g.outputs = ["y"]
        return g
    return None


def pad_case(b, key, val):
    x = b.x((2, 3, 4), "float32", -2.0)
    i64 = lambda v: b.c(np.array(v, dtype=np.int64))  # noqa: E731
    if key == "mode":
        return b.node("Pad", [x, i64([0, 1, 2, 0, 1, 1])], {"mode": val})
    if key == "pads" and val == "negative":
        return b.node("Pad", [x, i64([0, -1, 1, 0, 0, -2])])
    if key == "constant_value":
        return b.node("Pad", [x, i64([0, 1, 2, 0, 1, 1]),
                              b.c(np.float32(1.5))])
    return None


def resize_case(b, key, val):
    x = b.x((1, 2, 4, 5), "float32", -2.0)
    attrs = {}
    sizes = b.c(np.array([1, 2, 8, 10], dtype=np.int64))
    ins = [x, "", "", sizes]
    if key == "mode":
        attrs["mode"] = val
    elif key == "coordinate_transformation_mode":
        attrs[key] = val
        attrs["mode"] = "nearest" if val == "tf_half_pixel_for_nn" else \
            "linear"
        if val == "tf_crop_and_resize":
            ins = [x, b.c(np.array([0, 0, 0.1, 0.1, 1, 1, 0.9, 0.9],
                                   dtype=np.float32)), "", sizes]
    elif key == "nearest_mode":
        attrs[key] = val
    elif key == "scales":
        ins = [x, "", b.c(np.array([1, 1, 2, 0.5], dtype=np.float32))]
    else:
        return None
    return b.node("Resize", ins, attrs)


def grid_sample_case(b, key, val):
    """[1, 2, 4, 5] sampled at a [1, 3, 6, 2] grid reaching past [-1, 1]."""
    if key not in ("mode", "padding_mode", "align_corners"):
        return None
    x = b.x((1, 2, 4, 5), "float32", -2.0)
    g = b.x((1, 3, 6, 2), "float32", -1.4, 1.4)
    return b.node("GridSample", [x, g],
                  {key: int(val) if key == "align_corners" else val})


def roi_align_case(b, key, val):
    """[2, 3, 6, 7] pooled over 4 boxes of both images, one past an edge."""
    if key not in ("mode", "coordinate_transformation_mode",
                   "sampling_ratio"):
        return None
    x = b.x((2, 3, 6, 7), "float32", -2.0)
    rois = b.c(np.array([[0, 0, 3, 4], [1.5, 0.5, 6.5, 5], [-1, 2, 2.5, 7],
                         [2, 2, 2.4, 2.3]], dtype=np.float32))
    bi = b.c(np.array([0, 1, 1, 0], dtype=np.int64))
    attrs = {"output_height": 2, "output_width": 3,
             key: int(val) if key == "sampling_ratio" else val}
    return b.node("RoiAlign", [x, rois, bi], attrs)


def qlinear_case(b, op, dt):
    """A QOperator node on quantized data of @dt, every parameter a
    constant (what ONNX Runtime's quantizer writes)."""
    dtn = np.dtype(dt)
    conv = op == "QLinearConv"
    xq = b.x((1, 16, 5, 5) if conv else (3, 16), dt)
    w = b.c(RNG.integers(-50, 50, size=(8, 16, 3, 3) if conv else
                         (16, 8)).astype(np.int8))
    ins = [xq, b.c(np.float32(0.05)), b.c(np.array(2, dtn)), w,
           b.c(RNG.uniform(0.01, 0.02, size=8).astype(np.float32)),
           b.c(np.zeros(8, np.int8)), b.c(np.float32(0.5)),
           b.c(np.array(7, dtn))]
    if conv:
        ins.append(b.c(RNG.integers(-40, 40, size=8).astype(np.int32)))
    return b.node(op, ins, {"kernel_shape": [3, 3], "pads": [1] * 4}
                  if conv else {})


def qdq_case(b, op, key, val):
    if key == "dtype":
        dt = val
        axis = None
    elif key == "axis":
        dt = "uint8"
        axis = int(val)
    else:
        return None
    if axis is None:
        sc = b.c(np.float32(0.05))
        zp = b.c(np.array(3, dtype=dt))
    else:
        sc = b.c(np.array([0.05, 0.1, 0.02], dtype=np.float32))
        zp = b.c(np.array([3, 5, 7], dtype=dt))
    attrs = {"axis": axis} if axis is not None else {}
    if op == "QuantizeLinear":
        return b.node(op, [b.x((2, 3, 4), "float32", -2.0), sc, zp], attrs)
    q = b.x((2, 3, 4), dt)
    return b.node(op, [q, sc, zp], attrs)


# ---------------------------------------------------------------- main

def main():
    table = parse_table()
    claimed = [op for op, _ in table]
    missing = sorted(set(compiler_ops()) - set(claimed))
    not_generated = sorted(op for op, items in table
                           if any(not r for r, _, _ in items) or not items
                           if op not in dt_gen.GENERATED_OPS)
    entries = []
    for op, items in table:
        if not items:
            entries.append((op, False, "", ""))
        for refused, key, values in items:
            for v in values:
                entries.append((op, refused, key, v))
    print("1..%d" % (len(entries) + 2), flush=True)
    n = 1
    print("%s %d - every op of compiler/ir/ir.h is in the table%s" % (
        "not ok" if missing else "ok", n,
        "" if not missing else ": missing " + " ".join(missing)))
    n += 1
    print("%s %d - the fuzzer generates every claimed op%s" % (
        "not ok" if not_generated else "ok", n,
        "" if not not_generated else ": never " + " ".join(not_generated)))
    bad = bool(missing or not_generated)
    work = os.path.join(dt_run.BUILD, "difftest", "optable")
    for op, refused, key, val in entries:
        n += 1
        what = "%s %s%s" % (op, "refused " if refused else "",
                            "%s=%s" % (key, val) if key else "(defaults)")
        g = case(op, key, val)
        if g is None:
            print("not ok %d - %s # no case for this entry" % (n, what))
            bad = True
            continue
        if refused:
            ok, why = check_refused(g, work)
            print("%s %d - %s%s" % ("ok" if ok else "not ok", n, what,
                                    "" if ok else ": " + why))
            bad |= not ok
            continue
        out = dt_run.run_case(g, work)
        if out.cls == "pass":
            print("ok %d - %s" % (n, what))
            continue
        known = [dt_known.match(f, g) for f in out.failures]
        if all(known):
            ids = sorted({"%s (for %s)" % (k[0], k[1]) for k in known})
            print("not ok %d - %s # TODO known bug %s" % (
                n, what, ", ".join(ids)))
            continue
        bad = True
        print("not ok %d - %s" % (n, what))
        for f in out.failures[:4]:
            print("#   " + repr(f)[:300])
    sys.stdout.flush()
    return 1 if bad else 0


def check_refused(g, work):
    """npuc must refuse g cleanly: exit 1, a message naming what."""
    import shutil
    import dt_graph
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    model = os.path.join(work, "model.onnx")
    dt_graph.save_onnx(g, {o: "float32" for o in g.outputs}, model)
    rc, msg = dt_run._run([dt_run.tool("npuc"), model, "-o",
                           os.path.join(work, "m.om"), "--no-cache"],
                          timeout=dt_run.COMPILE_TIMEOUT)
    if rc == 0:
        return False, "compiled: the table says refused"
    if rc != 1:
        return False, "exit %d (want 1): %s" % (rc, msg.strip()[-200:])
    if not dt_run._is_unsupported(msg):
        return False, "unclear refusal: %s" % msg.strip()[-200:]
    return True, ""


if __name__ == "__main__":
    sys.exit(main())
