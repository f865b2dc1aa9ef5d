# SPDX-License-Identifier: MIT
"""A small numpy evaluator of ONNX graphs, float64, for narrowing failures.

It is an independent reference for any intermediate tensor of the e2e
models (Debian 12's onnx 1.12 has no onnx.reference and there is no
onnxruntime): narrow.py cuts a model at a tensor, runs the cut model on the
NPU and compares with this. It covers the ops the e2e models use, with the
attributes they use; anything else raises NotImplementedError naming it.
"""

import math

import numpy as np
from onnx import numpy_helper, helper


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pads2d(a, k):
    p = list(a.get("pads", [0] * 4))
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET", b"VALID",
                                             "VALID"):
        raise NotImplementedError("auto_pad %s" % a["auto_pad"])
    return p


def _windows(x, kh, kw, sh, sw, dh=1, dw=1):
    n, c, h, w = x.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    s = x.strides
    return np.lib.stride_tricks.as_strided(
        x, (n, c, oh, ow, kh, kw),
        (s[0], s[1], s[2] * sh, s[3] * sw, s[2] * dh, s[3] * dw))


def conv(x, w, b=None, **a):
    g = a.get("group", 1)
    sh, sw = a.get("strides", [1, 1])
    dh, dw = a.get("dilations", [1, 1])
    t, l, bo, r = _pads2d(a, w.shape[2:])
    x = np.pad(x, ((0, 0), (0, 0), (t, bo), (l, r)))
    win = _windows(x, w.shape[2], w.shape[3], sh, sw, dh, dw)
    n, c, oh, ow = win.shape[:4]
    cg, og = c // g, w.shape[0] // g
    outs = []
    for i in range(g):
        wi = win[:, i * cg:(i + 1) * cg]
        outs.append(np.einsum("nchwij,ocij->nohw", wi,
                              w[i * og:(i + 1) * og], optimize=True))
    y = np.concatenate(outs, 1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def pool(x, mode, **a):
    kh, kw = a["kernel_shape"]
    sh, sw = a.get("strides", [1, 1])
    t, l, bo, r = _pads2d(a, (kh, kw))
    if a.get("ceil_mode", 0):
        # Extra end padding so the last, partial window exists; a window
        # must still start inside the input or the begin padding.
        if mode != "max":
            raise NotImplementedError("ceil_mode for AveragePool")
        h, w = x.shape[2:]
        oh = -(-(h + t + bo - kh) // sh) + 1
        ow = -(-(w + l + r - kw) // sw) + 1
        oh -= (oh - 1) * sh >= h + t
        ow -= (ow - 1) * sw >= w + l
        bo = max(bo, (oh - 1) * sh + kh - h - t)
        r = max(r, (ow - 1) * sw + kw - w - l)
    if mode == "max":
        xp = np.pad(x, ((0, 0), (0, 0), (t, bo), (l, r)),
                    constant_values=-np.inf)
        return _windows(xp, kh, kw, sh, sw).max(axis=(4, 5))
    xp = np.pad(x, ((0, 0), (0, 0), (t, bo), (l, r)))
    s = _windows(xp, kh, kw, sh, sw).sum(axis=(4, 5))
    if a.get("count_include_pad", 0):
        return s / (kh * kw)
    ones = np.pad(np.ones((1, 1) + x.shape[2:]), ((0, 0), (0, 0), (t, bo),
                                                 (l, r)))
    return s / _windows(ones, kh, kw, sh, sw).sum(axis=(4, 5))


def _slice(x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    sl = [slice(None)] * x.ndim
    for s, e, ax, st in zip(starts, ends, axes, steps):
        sl[int(ax)] = slice(int(s), int(min(e, 2 ** 62)) if e > 0 else
                            int(max(e, -2 ** 62)), int(st))
    return x[tuple(sl)]


def _reshape(x, shape):
    shape = [x.shape[i] if int(s) == 0 else int(s)
             for i, s in enumerate(shape)]
    return x.reshape(shape)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _gemm(A, B, C=None, **a):
    A = A.T if a.get("transA", 0) else A
    B = B.T if a.get("transB", 0) else B
    y = a.get("alpha", 1.0) * (A @ B)
    if C is not None:
        y = y + a.get("beta", 1.0) * C
    return y


def _bn(x, s, b, m, v, **a):
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return (x - m.reshape(sh)) / np.sqrt(v.reshape(sh) + a.get("epsilon",
                                                                1e-5)) \
        * s.reshape(sh) + b.reshape(sh)


_erf = np.vectorize(math.erf)

OPS = {
    "Conv": conv,
    "Relu": lambda x: np.maximum(x, 0),
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Div": lambda a, b: a / b if a.dtype.kind == "f" else a // b,
    "Pow": np.power, "Sqrt": np.sqrt, "Tanh": np.tanh, "Erf": _erf,
    "MaxPool": lambda x, **a: pool(x, "max", **a),
    "AveragePool": lambda x, **a: pool(x, "avg", **a),
    "GlobalAveragePool": lambda x: x.mean(axis=(2, 3), keepdims=True),
    "GlobalMaxPool": lambda x: x.max(axis=(2, 3), keepdims=True),
    "Flatten": lambda x, axis=1: x.reshape(
        int(np.prod(x.shape[:axis])), -1),
    "Gemm": _gemm,
    "MatMul": np.matmul,
    "BatchNormalization": _bn,
    "Identity": lambda x: x,
    "Concat": lambda *xs, axis: np.concatenate(xs, axis),
    "Clip": lambda x, lo=None, hi=None: np.clip(
        x, -np.inf if lo is None else lo, np.inf if hi is None else hi),
    "HardSwish": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "Pad": lambda x, pads, value=None, mode=b"constant": np.pad(
        x, list(zip(pads[:x.ndim], pads[x.ndim:])),
        constant_values=0 if value is None else value.item()),
    "Gather": lambda x, i, axis=0: np.take(x, i, axis=axis),
    "Shape": lambda x: np.array(x.shape, dtype=np.int64),
    "Slice": _slice,
    "Reshape": lambda x, s, allowzero=0: _reshape(x, s),
    "Transpose": lambda x, perm=None: np.transpose(x, perm),
    "Softmax": lambda x, axis=-1: _softmax(x, axis),
    "ReduceMean": lambda x, axes=None, keepdims=1: x.mean(
        axis=tuple(axes) if axes else None, keepdims=bool(keepdims)),
    "Squeeze": lambda x, axes=None: np.squeeze(
        x, tuple(int(a) for a in axes) if axes is not None else None),
    "Unsqueeze": lambda x, axes: np.expand_dims(x, tuple(int(a) for a in
                                                         axes)),
}


def run(model, feeds, want=None):
    """Evaluate model on feeds (name -> array); return name -> array for
    want (default: the graph outputs). Floats are computed in float64."""
    g = model.graph
    env = {}
    for init in g.initializer:
        env[init.name] = numpy_helper.to_array(init)
    for k, v in feeds.items():
        env[k] = v
    for k, v in list(env.items()):
        if v.dtype == np.float32:
            env[k] = v.astype(np.float64)
    for node in g.node:
        a = _attrs(node)
        if node.op_type == "Constant":
            env[node.output[0]] = numpy_helper.to_array(a["value"])
            if env[node.output[0]].dtype == np.float32:
                env[node.output[0]] = env[node.output[0]].astype(np.float64)
            continue
        fn = OPS.get(node.op_type)
        if fn is None:
            raise NotImplementedError("onnx_ref: op %s" % node.op_type)
        args = [env[i] if i else None for i in node.input]
        while args and args[-1] is None:
            args.pop()
        if node.op_type == "Pad" and len(args) > 2:
            a["value"] = args[2]
            args = args[:2]
        a.pop("mode", None) if a.get("mode") in (b"constant", None) else None
        for k in ("training_mode", "momentum"):
            a.pop(k, None)
        out = fn(*args, **a)
        env[node.output[0]] = np.asarray(out)
    names = want or [o.name for o in g.output]
    return {n: env[n] for n in names}
