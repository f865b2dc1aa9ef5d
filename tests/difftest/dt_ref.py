# SPDX-License-Identifier: MIT
"""An independent numpy evaluator of the fuzzer's graphs (ONNX opset 17).

Written from the ONNX operator specification, not from the compiler: it
shares no code with npuc. Float tensors are computed in the float type the
caller asks for: float64 gives the reference, float32 estimates how much
rounding the graph amplifies (the tolerance of the comparisons).

A graph is the fuzzer's plain form (dt_graph.Graph): nodes with op, input
and output names and python attribute values. Every function below follows
the ONNX semantics at opset 17 for the attributes the fuzzer generates;
anything else raises NotImplementedError naming it.

Besides the values, evaluate() reports whether the graph is fragile: a
discontinuous op (Floor, Ceil, casts to integers, comparisons, quantize)
applied to a computed value that lies within a hair of its boundary, where
float32 and float64 may honestly disagree.
"""

import math

import numpy as np

FLOAT_TYPES = ("float32", "float16", "float64")

# Ops whose result is bit-exact in any float type when their inputs are
# (data movement, selection, sign changes, comparisons).
EXACT_OPS = {
    "Identity", "Dropout", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
    "Transpose", "Concat", "Split", "Slice", "Gather", "Expand", "Pad",
    "Relu", "Neg", "Abs", "Max", "Min", "Floor", "Ceil", "Equal", "Less",
    "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
    "Where", "MaxPool", "GlobalMaxPool", "ReduceMax", "ReduceMin", "Shape",
    "Size", "ConstantOfShape", "Trilu", "Clip", "Constant", "Range",
    "Sign", "Round", "IsNaN", "IsInf", "Hardmax", "Tile", "OneHot",
}


class Fragile(Exception):
    """The graph is too close to a discontinuity to compare f32 with f64."""


def _is_float(a):
    return a.dtype.kind == "f"


def _bcast_shape(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


def _axis(a, r):
    return a + r if a < 0 else a


# ---------------------------------------------------------------- conv/pool

def _conv_pads(xs, ks, strides, dil, pads, auto_pad):
    """Explicit [begin..., end...] pads for spatial dims."""
    n = len(xs)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        p = [0] * (2 * n)
        for i in range(n):
            out = -(-xs[i] // strides[i])
            tot = max((out - 1) * strides[i] + (ks[i] - 1) * dil[i] + 1
                      - xs[i], 0)
            small, big = tot // 2, tot - tot // 2
            if auto_pad == "SAME_UPPER":
                p[i], p[i + n] = small, big
            else:
                p[i], p[i + n] = big, small
        return p
    if auto_pad == "VALID":
        return [0] * (2 * n)
    return list(pads) if pads is not None else [0] * (2 * n)


def conv(x, w, b=None, group=1, strides=None, dilations=None, pads=None,
         auto_pad="NOTSET", kernel_shape=None):
    sp = x.ndim - 2
    ks = list(w.shape[2:])
    strides = list(strides or [1] * sp)
    dil = list(dilations or [1] * sp)
    p = _conv_pads(x.shape[2:], ks, strides, dil, pads, auto_pad)
    x = np.pad(x, [(0, 0), (0, 0)] + [(p[i], p[i + sp]) for i in range(sp)])
    outs = [(x.shape[2 + i] - dil[i] * (ks[i] - 1) - 1) // strides[i] + 1
            for i in range(sp)]
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // group, o // group
    y = np.zeros((n, o) + tuple(outs), dtype=x.dtype)
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og]
        for kidx in np.ndindex(*ks):
            sl = tuple(slice(kidx[i] * dil[i],
                             kidx[i] * dil[i] + (outs[i] - 1) * strides[i]
                             + 1, strides[i]) for i in range(sp))
            patch = xs[(slice(None), slice(None)) + sl]
            wk = ws[(slice(None), slice(None)) + kidx]
            y[:, g * og:(g + 1) * og] += np.einsum(
                "nc...,oc->no...", patch, wk)
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * sp)
    return y


def conv_transpose(x, w, b=None, group=1, strides=None, dilations=None,
                   pads=None, output_padding=None, output_shape=None,
                   auto_pad="NOTSET", kernel_shape=None):
    """ONNX ConvTranspose by scattering each input element's products
    (the definition, independent of the compiler's zero-stuffed Conv)."""
    sp = x.ndim - 2
    ks = list(w.shape[2:])
    strides = list(strides or [1] * sp)
    dil = list(dilations or [1] * sp)
    op = list(output_padding or [0] * sp)
    p = list(pads or [0] * (2 * sp))
    ins = x.shape[2:]
    full = [strides[i] * (ins[i] - 1) + op[i] + dil[i] * (ks[i] - 1) + 1
            for i in range(sp)]
    if output_shape is not None or auto_pad in ("SAME_UPPER",
                                                 "SAME_LOWER"):
        for i in range(sp):
            want = output_shape[i] if output_shape is not None else \
                ins[i] * strides[i]
            tot = full[i] - want
            if auto_pad == "SAME_UPPER":
                p[i], p[i + sp] = tot // 2, tot - tot // 2
            else:
                p[i], p[i + sp] = tot - tot // 2, tot // 2
    elif auto_pad == "VALID":
        p = [0] * (2 * sp)
    outs = [full[i] - p[i] - p[i + sp] for i in range(sp)]
    n, c = x.shape[:2]
    cg, mg = c // group, w.shape[1]
    y = np.zeros((n, mg * group) + tuple(outs), dtype=x.dtype)
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        for kidx in np.ndindex(*ks):
            part = np.einsum("nc...,cm->nm...", xs,
                             w[(slice(g * cg, (g + 1) * cg), slice(None))
                               + kidx])
            src, dst = [], []
            for i in range(sp):
                # output index of input index j: j*s + k*d - pb
                o0 = kidx[i] * dil[i] - p[i]
                j = np.arange(ins[i])
                o = j * strides[i] + o0
                ok = (o >= 0) & (o < outs[i])
                src.append(j[ok])
                dst.append(o[ok])
            sel = np.ix_(*src)
            tgt = np.ix_(*dst)
            y[(slice(None), slice(g * mg, (g + 1) * mg)) + tgt] += \
                part[(slice(None), slice(None)) + sel]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * sp)
    return y


def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def rnn_layer(op, x, w, r, b=None, seq_lens=None, h0=None, c0=None,
              p=None, direction="forward", hidden_size=None, clip=None,
              linear_before_reset=0, layout=0, **_):
    """ONNX RNN, LSTM and GRU with the default activations, step by step
    as the operator's definition writes them (outputs Y, Y_h[, Y_c])."""
    if layout:
        x = np.swapaxes(x, 0, 1)
        h0 = None if h0 is None else np.swapaxes(h0, 0, 1)
        c0 = None if c0 is None else np.swapaxes(c0, 0, 1)
    t_len, bs = x.shape[:2]
    dirs, hid = r.shape[0], r.shape[2]
    g = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    if b is None:
        b = np.zeros((dirs, 2 * g * hid), dtype=x.dtype)

    def cl(v):
        return np.clip(v, -clip, clip) if clip else v
    ys, yhs, ycs = [], [], []
    for d in range(dirs):
        rev = direction == "reverse" or d == 1
        wb, rb = b[d, :g * hid], b[d, g * hid:]
        h = np.zeros((bs, hid), x.dtype) if h0 is None else h0[d]
        c = np.zeros((bs, hid), x.dtype) if c0 is None else c0[d]
        y = np.zeros((t_len, bs, hid), x.dtype)
        for t in (range(t_len - 1, -1, -1) if rev else range(t_len)):
            xw = x[t] @ w[d].T + wb
            hr = h @ r[d].T
            if op == "RNN":
                h = np.tanh(cl(xw + hr + rb))
            elif op == "LSTM":
                gt = xw + hr + rb
                gi, go, gf, gc = np.split(gt, 4, axis=1)
                if p is not None:
                    gi = gi + p[d, :hid] * c
                    gf = gf + p[d, 2 * hid:] * c
                i, f = _sig(cl(gi)), _sig(cl(gf))
                c = f * c + i * np.tanh(cl(gc))
                if p is not None:
                    go = go + p[d, hid:2 * hid] * c
                h = _sig(cl(go)) * np.tanh(c)
            else:
                xz, xr, xh = np.split(xw, 3, axis=1)
                rbz, rbr, rbh = np.split(rb, 3)
                rz, rr, rh = np.split(r[d], 3, axis=0)
                z = _sig(cl(xz + h @ rz.T + rbz))
                rg = _sig(cl(xr + h @ rr.T + rbr))
                if linear_before_reset:
                    hh = np.tanh(cl(xh + rg * (h @ rh.T + rbh)))
                else:
                    hh = np.tanh(cl(xh + (rg * h) @ rh.T + rbh))
                h = (1 - z) * hh + z * h
            y[t] = h
        ys.append(y)
        yhs.append(h)
        ycs.append(c)
    yy = np.stack(ys, axis=1)
    yh = np.stack(yhs)
    yc = np.stack(ycs)
    if layout:
        yy = np.transpose(yy, (2, 0, 1, 3))
        yh = np.swapaxes(yh, 0, 1)
        yc = np.swapaxes(yc, 0, 1)
    return [yy, yh, yc] if op == "LSTM" else [yy, yh]


def _d2s(x, blocksize, mode="DCR"):
    n, c, h, w = x.shape
    b = blocksize
    if mode == "CRD":
        t = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    else:
        t = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return t.reshape(n, c // (b * b), h * b, w * b)


def _s2d(x, blocksize):
    n, c, h, w = x.shape
    b = blocksize
    t = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return t.reshape(n, c * b * b, h // b, w // b)


def _instance_norm(x, s, b, epsilon=1e-5):
    ax = tuple(range(2, x.ndim))
    m = x.mean(axis=ax, keepdims=True)
    v = ((x - m) ** 2).mean(axis=ax, keepdims=True)
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return s.reshape(sh) * (x - m) / np.sqrt(v + epsilon) + b.reshape(sh)


def _mvn(x, axes=(0, 2, 3)):
    ax = tuple(axes)
    m = x.mean(axis=ax, keepdims=True)
    v = (x * x).mean(axis=ax, keepdims=True) - m * m
    return (x - m) / (np.sqrt(v) + 1e-9)


def _lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    c = x.shape[1]
    sq = x * x
    out = np.zeros_like(x)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    for ch in range(c):
        a, b = max(0, ch - lo), min(c - 1, ch + hi)
        out[:, ch] = sq[:, a:b + 1].sum(axis=1)
    return x / (bias + alpha / size * out) ** beta


def _arg(x, amax, axis=0, keepdims=1, select_last_index=0):
    ax = axis % x.ndim
    f = np.argmax if amax else np.argmin
    if select_last_index:
        y = x.shape[ax] - 1 - f(np.flip(x, ax), axis=ax)
    else:
        y = f(x, axis=ax)
    if keepdims:
        y = np.expand_dims(y, ax)
    return y.astype(np.int64)


def _gather_elements(x, ix, axis=0):
    ax = axis % x.ndim
    ix = np.where(ix < 0, ix + x.shape[ax], ix)
    # the output has the indices' shape: no broadcasting of either
    x = x[tuple(slice(None) if i == ax else slice(0, d)
                for i, d in enumerate(ix.shape))]
    return np.take_along_axis(x, ix.astype(np.int64), axis=ax)


def _gather_nd(x, ix, batch_dims=0):
    if batch_dims:
        # each batch is its own GatherND without batch dims
        nb = batch_dims
        xf = x.reshape((-1,) + x.shape[nb:])
        ixf = ix.reshape((-1,) + ix.shape[nb:])
        out = np.stack([_gather_nd(xf[i], ixf[i]) for i in range(len(xf))])
        return out.reshape(x.shape[:nb] + out.shape[1:])
    k = ix.shape[-1]
    ix = np.where(ix < 0, ix + np.array(x.shape[:k]), ix)
    flat = ix.reshape(-1, k)
    out = np.stack([x[tuple(i)] for i in flat]) if flat.shape[0] else \
        np.zeros((0,) + x.shape[k:], x.dtype)
    return out.reshape(ix.shape[:-1] + x.shape[k:])


def _cumsum(x, axis, exclusive=0, reverse=0):
    ax = int(np.asarray(axis).reshape(-1)[0]) % x.ndim
    y = np.flip(x, ax) if reverse else x
    c = np.cumsum(y, axis=ax, dtype=y.dtype)
    if exclusive:
        c = c - y
    return np.flip(c, ax) if reverse else c


def _topk(x, k, axis=-1, largest=1, sorted=1):
    """Values and int64 indices of the k best along axis; equal values
    in index order (exact for integers: Python's own comparisons)."""
    k = int(np.asarray(k).reshape(-1)[0])
    ax = axis % x.ndim
    xm = np.moveaxis(x, ax, -1)
    lines = xm.reshape(-1, xm.shape[-1])
    idx = np.zeros((lines.shape[0], k), np.int64)
    for li, line in enumerate(lines):
        vals = line.tolist()
        order = sorted_(range(len(vals)), key=lambda i: (
            -vals[i] if largest else vals[i], i))
        idx[li] = order[:k]
    idx = np.moveaxis(idx.reshape(xm.shape[:-1] + (k,)), -1, ax)
    return [np.take_along_axis(x, idx, axis=ax), idx]


sorted_ = sorted


def _corners(b, center):
    """[y0, x0, y1, x1] (min, max per axis) of ONNX NMS boxes."""
    b = np.asarray(b, np.float64)
    if center:
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], -1)
    return np.stack([np.minimum(b[..., 0], b[..., 2]),
                     np.minimum(b[..., 1], b[..., 3]),
                     np.maximum(b[..., 0], b[..., 2]),
                     np.maximum(b[..., 1], b[..., 3])], -1)


def _iou(a, b):
    ih = min(a[2], b[2]) - max(a[0], b[0])
    iw = min(a[3], b[3]) - max(a[1], b[1])
    aa = (a[2] - a[0]) * (a[3] - a[1])
    ab = (b[2] - b[0]) * (b[3] - b[1])
    if ih <= 0 or iw <= 0 or aa <= 0 or ab <= 0:
        return 0.0
    return ih * iw / (aa + ab - ih * iw)


def _nms_args(ins, a):
    mx = int(np.asarray(ins[2]).reshape(-1)[0]) if len(ins) > 2 and \
        ins[2] is not None else 0
    iou = float(np.asarray(ins[3]).reshape(-1)[0]) if len(ins) > 3 and \
        ins[3] is not None else 0.0
    st = float(np.asarray(ins[4]).reshape(-1)[0]) if len(ins) > 4 and \
        ins[4] is not None else None
    return mx, iou, st, a.get("center_point_box", 0)


def _nms(boxes, scores, ins, a):
    """ONNX NonMaxSuppression: rows (batch, class, box), greedy per class
    in descending score (equal scores: lower index first)."""
    mx, iou, st, center = _nms_args(ins, a)
    bx = _corners(boxes, center)
    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].tolist()
            cand = [i for i in range(len(s)) if st is None or s[i] > st]
            cand.sort(key=lambda i: (-s[i], i))
            kept = []
            for i in cand:
                if len(kept) >= mx:
                    break
                if all(_iou(bx[b, j], bx[b, i]) <= iou for j in kept):
                    kept.append(i)
            rows += [[b, c, i] for i in kept]
    return np.array(rows, np.int64).reshape(-1, 3)


def _unique(x, axis=None, sorted=1):
    """ONNX Unique: Y, indices, inverse_indices, counts (numpy's unique,
    reordered by first occurrence unless sorted)."""
    y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                 return_counts=True, axis=axis)
    inv = inv.reshape(-1)
    if not sorted:
        order = np.argsort(idx, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], rank[inv]
    return [y, idx.astype(np.int64), inv.astype(np.int64),
            cnt.astype(np.int64)]


def _nms_fragile(boxes, scores, ins, a):
    """A pair's IoU or a score within a hair of its threshold, or two
    scores of a class within a hair: float32 may honestly decide apart."""
    mx, iou, st, center = _nms_args(ins, a)
    bx = _corners(boxes, center)
    for b in range(scores.shape[0]):
        n = bx.shape[1]
        for i in range(n):
            for j in range(i + 1, n):
                if abs(_iou(bx[b, i], bx[b, j]) - iou) < 1e-4:
                    return "an IoU next to iou_threshold"
        for c in range(scores.shape[1]):
            t = np.sort(scores[b, c])
            if st is not None and (np.abs(t - st) < 1e-5).any():
                return "a score next to score_threshold"
            if t.size > 1 and (np.diff(t) < 1e-6).any():
                return "two scores within a hair of each other"
    return None


def _scatter(x, ix, up, nd, axis=0, reduction="none"):
    """ScatterND / ScatterElements, updates applied in order."""
    y = np.array(x, copy=True)
    ops = {"none": lambda a, b: b, "add": lambda a, b: a + b,
           "mul": lambda a, b: a * b, "max": max, "min": min}
    f = ops[reduction]
    if nd:
        k = ix.shape[-1]
        rows = ix.reshape(-1, k)
        ups = up.reshape((rows.shape[0],) + x.shape[k:])
        for r, u in zip(rows, ups):
            pos = tuple(int(v) + (x.shape[j] if v < 0 else 0)
                        for j, v in enumerate(r))
            if reduction == "none":
                y[pos] = u
            else:
                y[pos] = np.vectorize(f)(y[pos], u) if np.ndim(u) else \
                    f(y[pos], u)
        return y
    ax = axis % x.ndim
    for c in np.ndindex(*ix.shape):
        v = int(ix[c])
        if v < 0:
            v += x.shape[ax]
        pos = c[:ax] + (v,) + c[ax + 1:]
        y[pos] = f(y[pos], up[c])
    return y


TRIG = {"Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin,
        "Acos": np.arccos, "Atan": np.arctan, "Asinh": np.arcsinh,
        "Acosh": np.arccosh, "Atanh": np.arctanh}


def _pool_out(xi, k, s, d, pb, pe, ceil_mode):
    span = d * (k - 1) + 1
    num = xi + pb + pe - span
    if ceil_mode:
        o = -(-num // s) + 1
        # the last window must start inside the input or the leading pad
        if (o - 1) * s >= xi + pb:
            o -= 1
    else:
        o = num // s + 1
    return o


def pool(x, mode, kernel_shape, strides=None, pads=None, dilations=None,
         ceil_mode=0, count_include_pad=0, auto_pad="NOTSET",
         storage_order=0):
    sp = x.ndim - 2
    ks = list(kernel_shape)
    st = list(strides or [1] * sp)
    dil = list(dilations or [1] * sp)
    if auto_pad != "NOTSET":
        raise NotImplementedError("pool auto_pad")
    p = list(pads or [0] * (2 * sp))
    outs = [_pool_out(x.shape[2 + i], ks[i], st[i], dil[i], p[i], p[i + sp],
                      ceil_mode) for i in range(sp)]
    y = np.zeros(x.shape[:2] + tuple(outs), dtype=x.dtype)
    for oidx in np.ndindex(*outs):
        vals = []
        cnt_pad = 1
        for i in range(sp):
            start = oidx[i] * st[i] - p[i]
            idx = [start + k * dil[i] for k in range(ks[i])]
            vals.append([j for j in idx if 0 <= j < x.shape[2 + i]])
            # PyTorch's include-pad divisor: the window clipped to the
            # padded input
            hi = min(start + (ks[i] - 1) * dil[i] + 1,
                     x.shape[2 + i] + p[i + sp])
            cnt_pad *= len(range(start, hi, dil[i]))
        win = x[(slice(None), slice(None)) + np.ix_(*vals)]
        win = win.reshape(x.shape[:2] + (-1,))
        if mode == "max":
            v = win.max(axis=2) if win.shape[2] else -np.inf
        else:
            div = cnt_pad if count_include_pad else win.shape[2]
            v = win.sum(axis=2) / div
        y[(slice(None), slice(None)) + oidx] = v
    return y


def _pool_indices(x, kernel_shape, strides=None, pads=None, dilations=None,
                  ceil_mode=0, storage_order=0, auto_pad="NOTSET"):
    """2-D MaxPool's values and Indices: each window's first maximum in
    row-major window order, as a flat index of the input (column-major
    planes with storage_order 1)."""
    n, c, h, w = x.shape
    k, s = list(kernel_shape), list(strides or [1, 1])
    d, p = list(dilations or [1, 1]), list(pads or [0] * 4)
    oh = _pool_out(h, k[0], s[0], d[0], p[0], p[2], ceil_mode)
    ow = _pool_out(w, k[1], s[1], d[1], p[1], p[3], ceil_mode)
    y = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    ix = np.zeros((n, c, oh, ow), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    best, at = None, 0
                    for u in range(k[0]):
                        for v in range(k[1]):
                            hh = i * s[0] - p[0] + u * d[0]
                            ww = j * s[1] - p[1] + v * d[1]
                            if not (0 <= hh < h and 0 <= ww < w):
                                continue
                            if best is None or x[b, ch, hh, ww] > best:
                                best = x[b, ch, hh, ww]
                                at = ww * h + hh if storage_order else \
                                    hh * w + ww
                    y[b, ch, i, j] = best
                    ix[b, ch, i, j] = (b * c + ch) * h * w + at
    return y, ix


# ---------------------------------------------------------------- misc ops

def _gemm(a, b, c=None, alpha=1.0, beta=1.0, transA=0, transB=0):
    if transA:
        a = a.T
    if transB:
        b = b.T
    y = alpha * (a @ b)
    if c is not None:
        y = y + beta * c
    return y


def _bn(x, s, b, m, v, epsilon=1e-5, momentum=0.9, training_mode=0):
    if training_mode:
        raise NotImplementedError("BatchNormalization training_mode")
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - m.reshape(sh)) / np.sqrt(v.reshape(sh) + epsilon)
            * s.reshape(sh) + b.reshape(sh))


def _layernorm(x, scale, bias=None, axis=-1, epsilon=1e-5, stash_type=1):
    ax = _axis(axis, x.ndim)
    red = tuple(range(ax, x.ndim))
    mean = x.mean(axis=red, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=red, keepdims=True)
    inv = 1.0 / np.sqrt(var + epsilon)
    y = (x - mean) * inv * scale
    if bias is not None:
        y = y + bias
    return y, mean, inv


def _softmax(x, axis=-1, log=False):
    ax = _axis(axis, x.ndim)
    m = x.max(axis=ax, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=ax, keepdims=True)
    if log:
        return (x - m) - np.log(s)
    return e / s


def _reduce(kind, x, axes, keepdims=1, noop_with_empty_axes=0):
    if axes is None or len(axes) == 0:
        if noop_with_empty_axes:
            return x.copy()
        axes = tuple(range(x.ndim))
    axes = tuple(sorted(_axis(int(a), x.ndim) for a in axes))
    kd = bool(keepdims)
    if kind == "ReduceSum":
        return x.sum(axis=axes, keepdims=kd)
    if kind == "ReduceMean":
        return x.mean(axis=axes, keepdims=kd)
    if kind == "ReduceMax":
        return x.max(axis=axes, keepdims=kd, initial=-np.inf) \
            if _is_float(x) else x.max(axis=axes, keepdims=kd)
    if kind == "ReduceMin":
        return x.min(axis=axes, keepdims=kd, initial=np.inf) \
            if _is_float(x) else x.min(axis=axes, keepdims=kd)
    if kind == "ReduceProd":
        return x.prod(axis=axes, keepdims=kd)
    if kind == "ReduceSumSquare":
        return (x * x).sum(axis=axes, keepdims=kd)
    if kind == "ReduceL1":
        return np.abs(x).sum(axis=axes, keepdims=kd)
    if kind == "ReduceL2":
        return np.sqrt((x * x).sum(axis=axes, keepdims=kd))
    if kind == "ReduceLogSum":
        return np.log(x.sum(axis=axes, keepdims=kd))
    if kind == "ReduceLogSumExp":
        m = x.max(axis=axes, keepdims=True)
        s = np.exp(x - m).sum(axis=axes, keepdims=True)
        r = np.log(s) + m
        return r if kd else np.squeeze(r, axis=axes)
    raise NotImplementedError(kind)


def _slice(x, starts, ends, axes=None, steps=None):
    r = x.ndim
    axes = list(range(len(starts))) if axes is None else list(axes)
    steps = [1] * len(starts) if steps is None else list(steps)
    sl = [slice(None)] * r
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = _axis(int(a), r)
        d = x.shape[a]
        s, e, st = int(s), int(e), int(st)
        if s < 0:
            s += d
        if e < 0:
            e += d
        if st > 0:
            s = min(max(s, 0), d)
            e = min(max(e, 0), d)
        else:
            s = min(max(s, 0), d - 1)
            e = min(max(e, -1), d - 1)
        if st < 0 and e == -1:
            e = None
        sl[a] = slice(s, e, st)
    return x[tuple(sl)]


def _reshape(x, shape, allowzero=0):
    shape = [int(v) for v in shape]
    out = [x.shape[i] if (v == 0 and not allowzero) else v
           for i, v in enumerate(shape)]
    return x.reshape(out)


def _pad(x, pads, value=None, axes=None, mode="constant"):
    r = x.ndim
    pads = [int(p) for p in pads]
    if axes is not None:
        raise NotImplementedError("Pad axes")
    before, after = pads[:r], pads[r:]
    # negative pads crop
    sl = tuple(slice(max(-b, 0), x.shape[i] - max(-a, 0))
               for i, (b, a) in enumerate(zip(before, after)))
    x = x[sl]
    pw = [(max(b, 0), max(a, 0)) for b, a in zip(before, after)]
    if mode == "constant":
        cv = 0 if value is None else value.reshape(-1)[0] \
            if hasattr(value, "reshape") else value
        return np.pad(x, pw, mode="constant", constant_values=cv)
    if mode == "reflect":
        return np.pad(x, pw, mode="reflect")
    if mode == "edge":
        return np.pad(x, pw, mode="edge")
    raise NotImplementedError("Pad mode %s" % mode)


def _resize_coord(xo, scale, lin, lout, ct):
    """Source coordinate of output index xo along one dim (ONNX)."""
    if ct == "half_pixel":
        return (xo + 0.5) / scale - 0.5
    if ct == "pytorch_half_pixel":
        return (xo + 0.5) / scale - 0.5 if lout > 1 else -0.5
    if ct == "asymmetric":
        return xo / scale
    if ct == "tf_half_pixel_for_nn":
        return (xo + 0.5) / scale
    if ct == "align_corners":
        return 0.0 if lout == 1 else xo * (lin - 1) / (lout - 1)
    raise NotImplementedError("coordinate_transformation_mode %s" % ct)


def _nearest(c, mode):
    if mode == "round_prefer_floor":
        return math.ceil(c - 0.5)
    if mode == "round_prefer_ceil":
        return math.floor(c + 0.5)
    if mode == "floor":
        return math.floor(c)
    if mode == "ceil":
        return math.ceil(c)
    raise NotImplementedError("nearest_mode %s" % mode)


def _resize(x, roi=None, scales=None, sizes=None, mode="nearest",
            coordinate_transformation_mode="half_pixel",
            nearest_mode="round_prefer_floor", cubic_coeff_a=-0.75,
            exclude_outside=0, extrapolation_value=0.0,
            antialias=0, keep_aspect_ratio_policy="stretch", axes=None):
    r = x.ndim
    ct = coordinate_transformation_mode
    if scales is not None and scales.size:
        sc = [float(s) for s in scales]
        outs = [int(math.floor(x.shape[i] * sc[i])) for i in range(r)]
        # L: the unrounded in * scale (as the ONNX reference)
        lens = [x.shape[i] * sc[i] for i in range(r)]
    else:
        outs = [int(s) for s in sizes]
        sc = [outs[i] / x.shape[i] for i in range(r)]
        lens = [float(o) for o in outs]
    y = x
    crop = ct == "tf_crop_and_resize"
    outside = np.zeros(outs, dtype=bool) if crop else None
    for d in range(r):
        lin, lout = x.shape[d], outs[d]
        if lin == lout and sc[d] == 1.0 and not crop:
            continue
        if crop:    # TF's CropAndResize: roi, a value outside
            st, en = float(roi[d]), float(roi[r + d])
            cs = [((en - st) * (lin - 1) / 2 if lens[d] == 1 else
                   o * (en - st) * (lin - 1) / (lens[d] - 1)) +
                  st * (lin - 1) for o in range(lout)]
            sh = [1] * r
            sh[d] = lout
            outside |= np.array([c < 0 or c > lin - 1 for c in cs]
                                ).reshape(sh)
            cs = [min(max(c, 0.0), lin - 1.0) for c in cs]
        else:
            cs = [_resize_coord(o, sc[d], lin, lens[d], ct)
                  for o in range(lout)]
        if mode == "nearest":
            idx = [min(max(_nearest(c, nearest_mode), 0), lin - 1)
                   for c in cs]
            y = np.take(y, idx, axis=d)
        elif mode == "linear":
            cs = [min(max(c, 0.0), lin - 1.0) for c in cs]
            i0 = [int(math.floor(c)) for c in cs]
            i1 = [min(i + 1, lin - 1) for i in i0]
            fr = np.array([c - i for c, i in zip(cs, i0)], dtype=y.dtype)
            sh = [1] * r
            sh[d] = lout
            fr = fr.reshape(sh)
            y = np.take(y, i0, axis=d) * (1 - fr) + \
                np.take(y, i1, axis=d) * fr
        elif mode == "cubic":
            w = _cubic_matrix(cs, lin, float(cubic_coeff_a),
                              bool(exclude_outside))
            y = np.moveaxis(np.tensordot(w, y.astype(np.float64),
                                         axes=([1], [d])), 0, d)
            y = y.astype(x.dtype)
        else:
            raise NotImplementedError("Resize mode %s" % mode)
    if crop:
        y = np.where(outside, np.asarray(extrapolation_value, y.dtype), y)
    return y


def _cubic_matrix(cs, lin, a, exclude):
    """[len(cs), lin] weights of ONNX's cubic interpolation (cubic_coeffs
    at ratio r in (0, 1], taps ceil(c) - 2 .. ceil(c) + 1, the edge
    repeated past it or, with exclude_outside, weight 0 and the rest
    renormalised)."""
    m = np.zeros((len(cs), lin))
    for o, c in enumerate(cs):
        cc = math.ceil(c)
        r = c - (cc - 1)
        w = [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
             ((a + 2) * r - (a + 3)) * r * r + 1,
             ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
             ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]
        taps = [cc - 2 + j for j in range(4)]
        if exclude:
            w = [0.0 if k < 0 or k >= lin else v for k, v in zip(taps, w)]
            s = sum(w)
            w = [v / s for v in w]
        for k, v in zip(taps, w):
            m[o, min(max(k, 0), lin - 1)] += v
    return m


def _gs_unnormalize(v, size, align):
    return (v + 1) / 2 * (size - 1) if align else ((v + 1) * size - 1) / 2


def _gs_reflect(v, lo2, hi2):
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    v = abs(v - lo)
    flips = math.floor(v / span)
    extra = v - span * flips
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _gs_pad(v, size, padding, align):
    if padding == "border":
        return min(max(v, 0.0), size - 1.0)
    if padding == "reflection":
        v = _gs_reflect(v, 0, 2 * (size - 1)) if align else \
            _gs_reflect(v, -1, 2 * size - 1)
        return min(max(v, 0.0), size - 1.0)
    return v


def _grid_sample(x, grid, mode="bilinear", padding_mode="zeros",
                 align_corners=0):
    """torch.nn.functional.grid_sample's CPU semantics, in float64."""
    mode = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
    n, c, h, w = x.shape
    _, ho, wo, _ = grid.shape
    y = np.zeros((n, c, ho, wo))
    xd = x.astype(np.float64)

    def at(b, iy, ix):
        if 0 <= iy < h and 0 <= ix < w:
            return xd[b, :, int(iy), int(ix)]
        return np.zeros(c)

    def cubic_w(t, a=-0.75):
        u, v, z = t + 1, 1 - t, 2 - t
        return [((a * u - 5 * a) * u + 8 * a) * u - 4 * a,
                ((a + 2) * t - (a + 3)) * t * t + 1,
                ((a + 2) * v - (a + 3)) * v * v + 1,
                ((a * z - 5 * a) * z + 8 * a) * z - 4 * a]
    for b in range(n):
        for i in range(ho):
            for j in range(wo):
                ix = _gs_unnormalize(float(grid[b, i, j, 0]), w,
                                     align_corners)
                iy = _gs_unnormalize(float(grid[b, i, j, 1]), h,
                                     align_corners)
                if mode == "bicubic":
                    fx, fy = math.floor(ix), math.floor(iy)
                    wx, wy = cubic_w(ix - fx), cubic_w(iy - fy)
                    acc = np.zeros(c)
                    for p in range(4):
                        ty = _gs_pad(fy - 1 + p, h, padding_mode,
                                     align_corners)
                        row = np.zeros(c)
                        for q in range(4):
                            tx = _gs_pad(fx - 1 + q, w, padding_mode,
                                         align_corners)
                            row += wx[q] * at(b, ty, tx)
                        acc += wy[p] * row
                    y[b, :, i, j] = acc
                    continue
                ix = _gs_pad(ix, w, padding_mode, align_corners)
                iy = _gs_pad(iy, h, padding_mode, align_corners)
                if mode == "nearest":
                    y[b, :, i, j] = at(b, np.rint(iy), np.rint(ix))
                    continue
                x0, y0 = math.floor(ix), math.floor(iy)
                tx, ty = ix - x0, iy - y0
                y[b, :, i, j] = (at(b, y0, x0) * (1 - tx) * (1 - ty) +
                                 at(b, y0, x0 + 1) * tx * (1 - ty) +
                                 at(b, y0 + 1, x0) * (1 - tx) * ty +
                                 at(b, y0 + 1, x0 + 1) * tx * ty)
    return y.astype(x.dtype)


def _roi_align(x, rois, batch, mode="avg", output_height=1, output_width=1,
               sampling_ratio=0, spatial_scale=1.0,
               coordinate_transformation_mode="half_pixel"):
    """ONNX Runtime's RoiAlign (opset 16; opset 10 is output_half_pixel),
    in float64."""
    n, c, h, w = x.shape
    r = rois.shape[0]
    y = np.zeros((r, c, output_height, output_width))
    xd = x.astype(np.float64)
    half = coordinate_transformation_mode == "half_pixel"
    off = 0.5 if half else 0.0

    def corners(b, yy, xx):
        if yy < -1.0 or yy > h or xx < -1.0 or xx > w:
            return [np.zeros(c)] * 4
        yy, xx = max(yy, 0.0), max(xx, 0.0)
        y0, x0 = int(yy), int(xx)
        if y0 >= h - 1:
            y0 = y1 = h - 1
            yy = float(y0)
        else:
            y1 = y0 + 1
        if x0 >= w - 1:
            x0 = x1 = w - 1
            xx = float(x0)
        else:
            x1 = x0 + 1
        ly, lx = yy - y0, xx - x0
        return [(1 - ly) * (1 - lx) * xd[b, :, y0, x0],
                (1 - ly) * lx * xd[b, :, y0, x1],
                ly * (1 - lx) * xd[b, :, y1, x0], ly * lx * xd[b, :, y1, x1]]
    for k in range(r):
        b = int(batch[k])
        x1, y1, x2, y2 = (float(v) * spatial_scale - off for v in rois[k])
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bw, bh = rw / output_width, rh / output_height
        gx = sampling_ratio or max(int(math.ceil(bw)), 0)
        gy = sampling_ratio or max(int(math.ceil(bh)), 0)
        cnt = max(gx * gy, 1)
        for ph in range(output_height):
            for pw in range(output_width):
                acc, first = np.zeros(c), True
                for iy in range(gy):
                    yy = y1 + ph * bh + (iy + 0.5) * bh / gy
                    for ix in range(gx):
                        xx = x1 + pw * bw + (ix + 0.5) * bw / gx
                        v = corners(b, yy, xx)
                        if mode == "avg":
                            acc += v[0] + v[1] + v[2] + v[3]
                            continue
                        m = np.maximum(np.maximum(v[0], v[1]),
                                       np.maximum(v[2], v[3]))
                        acc = m if first else np.maximum(acc, m)
                        first = False
                y[k, :, ph, pw] = acc / cnt if mode == "avg" else acc
    return y.astype(x.dtype)


def _qlinear_acc(op, ins, a):
    """QLinearConv / QLinearMatMul before requantization: the int32 sums
    (exact in float64) and the float32 multiplier fl(fl(sx * sw) / sy)
    per output channel, as npuc folds it (pass_quant.c)."""
    x, sx, zx, w, sw, zw, sy = ins[:7]
    xi = x.astype(np.float64) - np.float64(zx.reshape(-1)[0])
    conv_ = op == "QLinearConv"
    ch = w.shape[0] if conv_ else w.shape[-1]
    zw = np.broadcast_to(zw.reshape(-1), (ch,)).astype(np.float64)
    sw = np.broadcast_to(sw.reshape(-1), (ch,)).astype(np.float32)
    if conv_:
        wi = w.astype(np.float64) - zw.reshape(-1, *([1] * (w.ndim - 1)))
        acc = conv(xi, wi, ins[8].astype(np.float64) if len(ins) > 8 and
                   ins[8] is not None else None, **a)
        shape = (1, -1) + (1,) * (acc.ndim - 2)
    else:
        acc = np.matmul(xi, w.astype(np.float64) - zw)
        shape = (-1,)
    m = (np.float32(sx.reshape(-1)[0]) * sw) / np.float32(sy.reshape(-1)[0])
    return acc, m.astype(np.float32).astype(np.float64).reshape(shape)


def _qlinear(op, ins, a):
    zy = ins[7]
    acc, m = _qlinear_acc(op, ins, a)
    info = np.iinfo(zy.dtype)
    y = _round_half_even(acc * m) + np.float64(zy.reshape(-1)[0])
    return np.clip(y, info.min, info.max).astype(zy.dtype)


def _round_half_even(x):
    return np.round(x)      # numpy rounds half to even


def _quantize(x, scale, zp=None, axis=1, saturate=1):
    dt = zp.dtype if zp is not None else np.dtype("uint8")
    if scale.ndim == 1 and scale.size > 1:
        sh = [1] * x.ndim
        sh[_axis(axis, x.ndim)] = -1
        scale = scale.reshape(sh)
        if zp is not None:
            zp = zp.reshape(sh)
    q = _round_half_even(x / scale) + (zp.astype(np.int64)
                                       if zp is not None else 0)
    info = np.iinfo(dt)
    return np.clip(q, info.min, info.max).astype(dt)


def _dequantize(x, scale, zp=None, axis=1, fdt=np.float64):
    if scale.ndim == 1 and scale.size > 1:
        sh = [1] * x.ndim
        sh[_axis(axis, x.ndim)] = -1
        scale = scale.reshape(sh)
        if zp is not None:
            zp = zp.reshape(sh)
    z = zp.astype(np.int64) if zp is not None else 0
    return ((x.astype(np.int64) - z).astype(fdt) * scale).astype(fdt)


def _trilu(x, k=None, upper=1):
    kk = int(k.reshape(-1)[0]) if k is not None else 0
    return np.triu(x, kk) if upper else np.tril(x, kk)


def _gelu_erf(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _erf(x):
    v = np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))
    return v.astype(x.dtype)


def _int_div(a, b):
    # C semantics: truncate toward zero; x / 0 is not generated
    q = np.abs(a) // np.abs(b)
    return (np.sign(a) * np.sign(b) * q).astype(a.dtype)


# ---------------------------------------------------------------- dispatch

def _cast(x, to, fdt):
    if to in FLOAT_TYPES:
        if to == "float16":
            return x.astype(np.float16).astype(fdt)
        return x.astype(fdt)
    if to == "bool":
        return x != 0
    if _is_float(x):
        info = np.iinfo(np.dtype(to))
        t = np.trunc(x)
        t = np.where(np.isnan(t), 0, t)
        return np.clip(t, info.min, info.max).astype(to)
    return x.astype(to)


def _max_abs_margin(x):
    """Distance of each element to the nearest integer."""
    return np.abs(x - np.round(x))


def evaluate(g, feeds, fdt=np.float64, keep=None):
    """Evaluate graph g on feeds (name -> array in the declared dtype).

    Returns (values, dtypes, fragile): every tensor's value (floats in fdt)
    and declared dtype name. fragile is a reason string or None.
    """
    vals, dts, exact = {}, {}, {}
    for name, arr in g.inits.items():
        dts[name] = str(arr.dtype)
        vals[name] = arr.astype(fdt) if _is_float(arr) else arr
        exact[name] = True
    for name, dt, shape in g.inputs:
        arr = np.asarray(feeds[name])
        dts[name] = dt
        vals[name] = arr.astype(fdt) if _is_float(arr) else arr
        exact[name] = True
    fragile = None
    for n in g.nodes:
        ins = [vals[i] if i else None for i in n.inputs]
        in_dt = [dts[i] if i else None for i in n.inputs]
        outs, odts = _eval_node(n, ins, in_dt, fdt, (vals, dts))
        ex = all(exact.get(i, True) for i in n.inputs if i) and \
            n.op in EXACT_OPS
        why = _fragile(n, ins, [exact.get(i, True) if i else True
                                for i in n.inputs])
        if why and not fragile:
            fragile = "%s (%s): %s" % (n.outputs[0], n.op, why)
        for name, v, dt in zip(n.outputs, outs, odts):
            if not name:
                continue
            if dt == "float16":
                # computed in fp32 (as the device) and stored as binary16
                v = np.asarray(v).astype(np.float32).astype(
                    np.float16).astype(fdt)
            vals[name] = v
            dts[name] = dt
            exact[name] = ex
    return vals, dts, fragile


def _fragile(n, ins, exact):
    """Why a discontinuous op on computed values is unsafe, or None."""
    op = n.op
    if op in ("Floor", "Ceil") or (op == "Cast" and
                                   n.attrs["to"] not in FLOAT_TYPES):
        x = ins[0]
        if not exact[0] and _is_float(x) and x.size and \
                (_max_abs_margin(x) < 1e-3 * np.maximum(1, np.abs(x))).any():
            return "value next to an integer"
    if op == "DynamicQuantizeLinear" and ins[0].size:
        x = ins[0].astype(np.float32)
        lo = min(0.0, float(x.min()))
        s = np.float32((np.float32(max(0.0, float(x.max()))) -
                        np.float32(lo)) / np.float32(255))
        q = x / s if s else x
        z = -np.float32(lo) / s if s else 0.0
        if (np.abs(q - np.floor(q) - 0.5) < 1e-3).any() or \
                abs(z - np.floor(z) - 0.5) < 1e-3:
            return "value next to a rounding midpoint"
    if op in ("QLinearConv", "QLinearMatMul") and ins[0].size:
        # a float path (-O0) rounds the same sum within its own error
        acc, m = _qlinear_acc(op, ins, n.attrs)
        q = acc * m
        if (np.abs(q - np.floor(q) - 0.5) < 1e-3).any():
            return "value next to a rounding midpoint"
    if op == "QuantizeLinear":
        x, s = ins[0], ins[1]
        if not exact[0] and x.size:
            q = x / (s.reshape(-1)[0] if s.size == 1 else 1.0)
            if (np.abs(q - np.floor(q) - 0.5) < 1e-3).any():
                return "value next to a rounding midpoint"
    if op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
        a, b = ins
        if _is_float(a) and not (exact[0] and exact[1]) and a.size:
            d = np.abs(a - b)
            if (d < 1e-3 * np.maximum(1, np.abs(a))).any():
                return "operands within a hair of each other"
    if op == "ThresholdedRelu":
        x = ins[0]
        al = n.attrs.get("alpha", 1.0)
        if not exact[0] and (np.abs(x - al) < 1e-3).any():
            return "value next to alpha"
    if op == "Round" and not exact[0] and ins[0].size:
        x = ins[0]
        if (np.abs(np.abs(x - np.floor(x)) - 0.5) < 1e-3).any():
            return "value next to a rounding midpoint"
    if op == "Sign" and not exact[0] and _is_float(ins[0]) and \
            (np.abs(ins[0]) < 1e-3).any():
        return "value next to 0"
    if op == "Shrink" and not exact[0] and _is_float(ins[0]):
        lam = n.attrs.get("lambd", 0.5)
        if (np.abs(np.abs(ins[0]) - lam) < 1e-3).any():
            return "value next to lambd"
    if op == "Mod" and _is_float(ins[0]) and ins[0].size:
        q = ins[0] / ins[1]
        if not (exact[0] and exact[1]) and \
                (_max_abs_margin(q) < 1e-3 * np.maximum(1, np.abs(q))).any():
            return "quotient next to an integer"
    if op == "Hardmax" and not exact[0] and ins[0].size:
        x = np.moveaxis(ins[0], _axis(n.attrs.get("axis", -1),
                                      ins[0].ndim), -1)
        if x.shape[-1] > 1:
            t = np.sort(x, axis=-1)
            if (t[..., -1] - t[..., -2] < 1e-3).any():
                return "two maxima within a hair of each other"
    if op == "Unique" and not exact[0] and _is_float(ins[0]) and \
            ins[0].size > 1:
        t = np.sort(ins[0].reshape(-1))
        if (np.diff(t) < 1e-4 * np.maximum(1, np.abs(t[1:]))).any() and \
                (np.diff(t) != 0).any():
            return "two values within a hair of each other"
    if op == "NonZero" and not exact[0] and _is_float(ins[0]) and \
            ((np.abs(ins[0]) < 1e-4) & (ins[0] != 0)).any():
        return "a value within a hair of zero"
    if op == "NonMaxSuppression" and ins[0].size and ins[1].size:
        why = _nms_fragile(ins[0], ins[1], ins, n.attrs)
        if why:
            return why
    if op == "TopK" and not exact[0] and ins[0].size and _is_float(ins[0]):
        x = np.moveaxis(ins[0], _axis(n.attrs.get("axis", -1),
                                      ins[0].ndim), -1)
        t = np.sort(x, axis=-1)
        if x.shape[-1] > 1 and (np.diff(t, axis=-1) < 1e-3 *
                                np.maximum(1, np.abs(t[..., 1:]))).any():
            return "two values within a hair of each other"
    if op in ("ArgMax", "ArgMin") and not exact[0] and ins[0].size and \
            _is_float(ins[0]):
        x = np.moveaxis(ins[0], _axis(n.attrs.get("axis", 0),
                                      ins[0].ndim), -1)
        if x.shape[-1] > 1:
            t = np.sort(x, axis=-1)
            gap = t[..., -1] - t[..., -2] if op == "ArgMax" else \
                t[..., 1] - t[..., 0]
            if ((gap > 0) & (gap < 1e-3)).any():
                return "two extremes within a hair of each other"
    return None


def _complex(x):
    return x[..., 0] + (1j * x[..., 1] if x.shape[-1] == 2 else 0)


def _pair(z):
    return np.stack([z.real, z.imag], -1)


def _dft(x, n=None, axis=1, inverse=0, onesided=0):
    ax = axis + x.ndim if axis < 0 else axis
    z = _complex(x.astype(np.float64))
    length = int(n) if n is not None else z.shape[ax]
    y = (np.fft.ifft if inverse else np.fft.fft)(z, n=length, axis=ax)
    if onesided:
        y = np.take(y, range(length // 2 + 1), axis=ax)
    return _pair(y)


def _stft(sig, step, win=None, length=None, onesided=1):
    step = int(step)
    length = int(length) if length is not None else win.shape[0]
    z = _complex(sig.astype(np.float64))
    frames = (z.shape[1] - length) // step + 1
    fr = np.stack([z[:, f * step:f * step + length] for f in range(frames)],
                  1)
    if win is not None:
        fr = fr * win
    y = np.fft.fft(fr, axis=-1)
    return _pair(y[..., :length // 2 + 1] if onesided else y)


def _mel(mel, dft, rate, lo, hi):
    """ONNX's node-test formula (onnx/backend/test/case/node/
    melweightmatrix.py)."""
    mel, dft, rate = int(mel), int(dft), int(rate)
    fb = np.arange(0, mel + 2)
    lo_mel = 2595 * np.log10(1 + np.float32(lo) / 700)
    hi_mel = 2595 * np.log10(1 + np.float32(hi) / 700)
    fb = fb * ((hi_mel - lo_mel) / fb.shape[0]) + lo_mel
    fb = ((dft + 1) * (700 * (np.power(10, fb / 2595) - 1)) //
          rate).astype(int)
    out = np.zeros((dft // 2 + 1, mel))
    for i in range(mel):
        lft, ctr, rgt = fb[i], fb[i + 1], fb[i + 2]
        if ctr == lft:
            out[ctr, i] = 1
        else:
            for j in range(lft, ctr + 1):
                out[j, i] = (j - lft) / (ctr - lft)
        for j in range(ctr, rgt):
            out[j, i] = (rgt - j) / (rgt - ctr)
    return out


def _signal(op, ins, a):
    if op == "DFT":
        return _dft(ins[0], ins[1] if len(ins) > 1 else None, **a)
    if op == "STFT":
        return _stft(*ins, **a)
    return _mel(*ins)


def _tfidf(x, mode, min_gram_length, max_gram_length, max_skip_count,
           ngram_counts, ngram_indexes, pool_int64s, weights=None):
    """ONNX TfIdfVectorizer on integer tokens, straight from its text:
    every skip distance counts its own occurrences, unigrams once."""
    grams = []          # (tokens, output index, weight)
    k = 0
    for n, start in enumerate(ngram_counts, 1):
        end = ngram_counts[n] if n < len(ngram_counts) else \
            len(pool_int64s)
        for p in range(start, end, n):
            w = weights[k] if weights is not None else 1.0
            grams.append((tuple(pool_int64s[p:p + n]), ngram_indexes[k], w))
            k += 1
    rows = x.reshape(-1, x.shape[-1])
    out = np.zeros((rows.shape[0], max(ngram_indexes) + 1))
    for r, row in enumerate(rows):
        for toks, oi, w in grams:
            n = len(toks)
            if not min_gram_length <= n <= max_gram_length:
                continue
            c = 0
            for s in range(max_skip_count + 1 if n > 1 else 1):
                st = s + 1
                for p in range(len(row) - (n - 1) * st):
                    c += all(row[p + j * st] == toks[j] for j in range(n))
            out[r, oi] = {"TF": c, "IDF": w * (c > 0),
                          "TFIDF": c * w}[mode]
    return out.reshape(x.shape[:-1] + (out.shape[-1],))


CONTROL_OPS = ("If", "Loop", "Scan")


def _run_body(body, args, arg_dts, scope, fdt):
    """Run subgraph body on its formal inputs args; the names it reads
    from outside come from scope (vals, dts)."""
    vals, dts = dict(scope[0]), dict(scope[1])
    for name, arr in body.inits.items():
        vals[name] = arr.astype(fdt) if _is_float(arr) else arr
        dts[name] = str(arr.dtype)
    for (name, _, _), v, dt in zip(body.inputs, args, arg_dts):
        vals[name], dts[name] = v, dt
    for n in body.nodes:
        ins = [vals[i] if i else None for i in n.inputs]
        in_dt = [dts[i] if i else None for i in n.inputs]
        outs, odts = _eval_node(n, ins, in_dt, fdt, (vals, dts))
        for name, v, dt in zip(n.outputs, outs, odts):
            if name:
                vals[name], dts[name] = np.asarray(v), dt
    return [vals[o] for o in body.outputs], [dts[o] for o in body.outputs]


def _eval_loop(n, ins, in_dt, fdt, scope):
    trip = int(ins[0]) if ins and ins[0] is not None else None
    cond = bool(ins[1]) if len(ins) > 1 and ins[1] is not None else True
    carried, cdts = list(ins[2:]), list(in_dt[2:])
    nv, scans, sdts, i = len(carried), [], [], 0
    while (trip is None or i < trip) and cond:
        outs, odts = _run_body(n.attrs["body"],
                               [np.array(i, np.int64), np.array(cond)] +
                               carried, ["int64", "bool"] + cdts, scope, fdt)
        cond = bool(outs[0])
        carried, cdts = outs[1:1 + nv], odts[1:1 + nv]
        scans.append(outs[1 + nv:])
        sdts = odts[1 + nv:]
        i += 1
    nk = len(n.outputs) - nv
    if nk and not scans:
        raise NotImplementedError("Loop: no iteration, scan outputs")
    return carried + [np.stack([s[k] for s in scans]) for k in range(nk)], \
        cdts + list(sdts)


def _eval_scan(n, ins, in_dt, fdt, scope):
    a = n.attrs
    nx = a["num_scan_inputs"]
    ns = len(ins) - nx
    axes = [_axis(ax, ins[ns + j].ndim) for j, ax in
            enumerate(a.get("scan_input_axes", [0] * nx))]
    dirs = a.get("scan_input_directions", [0] * nx)
    states, sdts = list(ins[:ns]), list(in_dt[:ns])
    length = ins[ns].shape[axes[0]]
    per, ydts = [], []
    for t in range(length):
        xs = [np.take(ins[ns + j], length - 1 - t if dirs[j] else t,
                      axis=axes[j]) for j in range(nx)]
        outs, odts = _run_body(a["body"], states + xs,
                               sdts + list(in_dt[ns:]), scope, fdt)
        states, sdts = outs[:ns], odts[:ns]
        per.append(outs[ns:])
        ydts = odts[ns:]
    nk = len(n.outputs) - ns
    oax = a.get("scan_output_axes", [0] * nk)
    odir = a.get("scan_output_directions", [0] * nk)
    ys = []
    for k in range(nk):
        seq = [p[k] for p in per]
        ys.append(np.stack(seq[::-1] if odir[k] else seq, axis=oax[k]))
    return states + ys, sdts + list(ydts)


def _eval_control(n, ins, in_dt, fdt, scope):
    if scope is None:
        raise NotImplementedError(n.op + " needs the values around it")
    if n.op == "If":
        take = bool(np.asarray(ins[0]).reshape(-1)[0])
        return _run_body(n.attrs["then_branch" if take else "else_branch"],
                         [], [], scope, fdt)
    if n.op == "Loop":
        return _eval_loop(n, ins, in_dt, fdt, scope)
    return _eval_scan(n, ins, in_dt, fdt, scope)


def _eval_node(n, ins, in_dt, fdt, scope=None):
    if n.op in CONTROL_OPS:
        return _eval_control(n, ins, in_dt, fdt, scope)
    op, a = n.op, dict(n.attrs)
    x = ins[0] if ins else None
    dt0 = in_dt[0] if in_dt else None
    same = [dt0]

    def fl(v):
        return v

    if op in ("Add", "Sub", "Mul", "Div", "Pow"):
        b = ins[1]
        if op == "Add":
            return [x + b], same
        if op == "Sub":
            return [x - b], same
        if op == "Mul":
            return [x * b], same
        if op == "Div":
            if _is_float(x):
                return [x / b], same
            return [_int_div(x, b)], same
        if _is_float(x):
            return [np.power(x, b.astype(x.dtype))], same
        return [np.power(x, b.astype(x.dtype))], same
    if op in ("Max", "Min", "Sum", "Mean"):
        f = {"Max": np.maximum, "Min": np.minimum, "Sum": np.add,
             "Mean": np.add}[op]
        y = ins[0]
        for b in ins[1:]:
            y = f(y, b)
        if op == "Mean":
            y = y / len(ins)
        return [y], same
    if op == "PRelu":
        return [np.where(x >= 0, x, x * ins[1])], same
    if op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
        b = ins[1]
        f = {"Equal": np.equal, "Less": np.less, "Greater": np.greater,
             "LessOrEqual": np.less_equal,
             "GreaterOrEqual": np.greater_equal}[op]
        return [f(x, b)], ["bool"]
    if op in ("And", "Or", "Xor"):
        f = {"And": np.logical_and, "Or": np.logical_or,
             "Xor": np.logical_xor}[op]
        return [f(x, ins[1])], ["bool"]
    if op == "Not":
        return [np.logical_not(x)], ["bool"]
    if op == "Where":
        return [np.where(x, ins[1], ins[2])], [in_dt[1]]
    unary = {
        "Relu": lambda v: np.maximum(v, 0),
        "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "Tanh": np.tanh, "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt,
        "Erf": _erf, "Neg": np.negative, "Abs": np.abs,
        "Reciprocal": lambda v: 1 / v, "Floor": np.floor,
        "Ceil": np.ceil, "HardSwish":
        lambda v: v * np.clip(v / 6 + 0.5, 0, 1),
        "Softplus": lambda v: np.log1p(np.exp(v)),
        "Softsign": lambda v: v / (1 + np.abs(v)),
        "Identity": lambda v: v, "Dropout": lambda v: v,
    }
    if op in unary:
        y = unary[op](x)
        if op == "Dropout":
            return [y], same
        return [y], same
    if op == "Sign":
        return [np.sign(x)], same
    if op == "Round":
        return [np.round(x)], same
    if op == "IsNaN":
        return [np.isnan(x)], ["bool"]
    if op == "IsInf":
        pos, neg = a.get("detect_positive", 1), a.get("detect_negative", 1)
        return [(np.isposinf(x) & bool(pos)) | (np.isneginf(x) & bool(neg))
                ], ["bool"]
    if op == "Sinh":
        return [np.sinh(x)], same
    if op == "Cosh":
        return [np.cosh(x)], same
    if op == "Celu":
        al = a.get("alpha", 1.0)
        return [np.where(x < 0, al * np.expm1(x / al), x)], same
    if op == "Shrink":
        lam, bias = a.get("lambd", 0.5), a.get("bias", 0.0)
        return [np.where(x < -lam, x + bias,
                         np.where(x > lam, x - bias, 0)).astype(x.dtype)
                ], same
    if op == "Mod":
        b = ins[1]
        if a.get("fmod", 0):
            if _is_float(x):
                return [np.fmod(x, b)], same
            return [x - _int_div(x, b) * b], same
        return [np.mod(x, b)], same
    if op == "Hardmax":
        ax = _axis(a.get("axis", -1), x.ndim)
        idx = np.expand_dims(np.argmax(x, axis=ax), ax)
        y = np.zeros_like(x)
        np.put_along_axis(y, idx, 1, axis=ax)
        return [y], same
    if op == "Tile":
        return [np.tile(x, [int(v) for v in ins[1]])], same
    if op == "OneHot":
        depth = int(np.asarray(ins[1]).reshape(-1)[0])
        vals = ins[2]
        ax = a.get("axis", -1)
        ax = ax + x.ndim + 1 if ax < 0 else ax
        ind = x.astype(np.int64)
        ind = np.where(ind < 0, ind + depth, ind)
        shp = [1] * (x.ndim + 1)
        shp[ax] = depth
        hit = np.expand_dims(ind, ax) == np.arange(depth).reshape(shp)
        return [np.where(hit, vals[1], vals[0])], [in_dt[2]]
    if op == "LeakyRelu":
        al = a.get("alpha", 0.01)
        return [np.where(x >= 0, x, al * x)], same
    if op == "Elu":
        al = a.get("alpha", 1.0)
        return [np.where(x >= 0, x, al * np.expm1(x))], same
    if op == "Selu":
        al = a.get("alpha", 1.67326319217681884765625)
        ga = a.get("gamma", 1.05070102214813232421875)
        return [ga * np.where(x > 0, x, al * np.expm1(x))], same
    if op == "HardSigmoid":
        al, be = a.get("alpha", 0.2), a.get("beta", 0.5)
        return [np.clip(al * x + be, 0, 1)], same
    if op == "ThresholdedRelu":
        al = a.get("alpha", 1.0)
        return [np.where(x > al, x, 0).astype(x.dtype)], same
    if op == "Clip":
        lo = ins[1] if len(ins) > 1 and ins[1] is not None else None
        hi = ins[2] if len(ins) > 2 and ins[2] is not None else None
        y = x
        if lo is not None:
            y = np.maximum(y, lo)
        if hi is not None:
            y = np.minimum(y, hi)
        return [y], same
    if op == "Cast":
        return [_cast(x, a["to"], fdt)], [a["to"]]
    if op == "CastLike":
        return [_cast(x, in_dt[1], fdt)], [in_dt[1]]
    if op == "Conv":
        return [conv(x, ins[1], ins[2] if len(ins) > 2 else None, **a)], same
    if op == "EyeLike":
        dt = a.get("dtype")
        return [np.eye(x.shape[0], x.shape[1], a.get("k", 0))], \
            [{1: "float32", 6: "int32", 7: "int64"}[dt] if dt else dt0]
    if op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        size = int(np.asarray(x).reshape(-1)[0])
        den = size if a.get("periodic", 1) else size - 1
        t = 2 * np.pi * np.arange(size) / den if den else np.zeros(size)
        if op == "HannWindow":
            w = 0.5 - 0.5 * np.cos(t)
        elif op == "HammingWindow":
            w = 25 / 46 - 21 / 46 * np.cos(t)
        else:
            w = 0.42 - 0.5 * np.cos(t) + 0.08 * np.cos(2 * t)
        return [w], ["float32"]
    if op == "ReverseSequence":
        ba, ta = a.get("batch_axis", 1), a.get("time_axis", 0)
        y = np.array(x, copy=True)
        for bi, ln in enumerate(np.asarray(ins[1]).reshape(-1)):
            ln = int(min(ln, x.shape[ta]))
            src = [slice(None)] * x.ndim
            src[ba] = bi
            src[ta] = slice(0, ln)
            y[tuple(src)] = np.flip(x[tuple(src)], axis=ta - (ta > ba))
        return [y], same
    if op == "MaxUnpool":
        ks, st = a["kernel_shape"], a.get("strides", [1] * (x.ndim - 2))
        pd = a.get("pads", [0] * (2 * (x.ndim - 2)))
        sp = x.ndim - 2
        shp = list(x.shape[:2]) + [(x.shape[2 + i] - 1) * st[i] + ks[i] -
                                   pd[i] - pd[i + sp] for i in range(sp)]
        y = np.zeros(int(np.prod(shp)), x.dtype)
        y[np.asarray(ins[1]).reshape(-1)] = x.reshape(-1)
        y = y.reshape(shp)
        if len(ins) > 2 and ins[2] is not None:
            want = [int(v) for v in np.asarray(ins[2]).reshape(-1)]
            y = np.pad(y, [(0, w - d) for w, d in zip(want, shp)])
        return [y], same
    if op == "Compress":
        return [np.compress(np.asarray(ins[1]).astype(bool), x,
                            axis=a.get("axis"))], same
    if op in TRIG:
        with np.errstate(all="ignore"):
            return [TRIG[op](x)], same
    if op in ("ScatterND", "ScatterElements"):
        return [_scatter(x, ins[1], ins[2], op == "ScatterND", **a)], same
    if op == "NonZero":
        return [np.array(np.nonzero(x), np.int64).reshape(x.ndim, -1)], \
            ["int64"]
    if op == "NonMaxSuppression":
        return [_nms(x, ins[1], ins, a)], ["int64"]
    if op == "Unique":
        outs = _unique(x, **a)
        return outs[:len(n.outputs)], \
            [dt0, "int64", "int64", "int64"][:len(n.outputs)]
    if op == "TopK":
        outs = _topk(x, ins[1], **a)
        return outs[:len(n.outputs)], [dt0, "int64"][:len(n.outputs)]
    if op == "DepthToSpace":
        return [_d2s(x, **a)], same
    if op == "SpaceToDepth":
        return [_s2d(x, **a)], same
    if op == "InstanceNormalization":
        return [_instance_norm(x, ins[1], ins[2], **a)], same
    if op == "MeanVarianceNormalization":
        return [_mvn(x, **a)], same
    if op == "LRN":
        return [_lrn(x, **a)], same
    if op in ("ArgMax", "ArgMin"):
        return [_arg(x, op == "ArgMax", **a)], ["int64"]
    if op == "GatherElements":
        return [_gather_elements(x, ins[1], **a)], same
    if op == "GatherND":
        return [_gather_nd(x, ins[1], **a)], same
    if op == "CumSum":
        return [_cumsum(x, ins[1], **a)], same
    if op in ("RNN", "LSTM", "GRU"):
        names = ["x", "w", "r", "b", "seq_lens", "h0", "c0", "p"]
        kw = {k: v for k, v in zip(names, ins) if v is not None}
        outs = rnn_layer(op, **kw, **a)
        return outs[:len(n.outputs)], [dt0] * min(len(outs),
                                                   len(n.outputs))
    if op == "ConvTranspose":
        return [conv_transpose(x, ins[1], ins[2] if len(ins) > 2 else None,
                               **a)], same
    if op == "MaxPool" and len(n.outputs) > 1:
        return list(_pool_indices(x, **a)), same + ["int64"]
    if op == "MaxPool":
        return [pool(x, "max", **a)], same
    if op == "AveragePool":
        return [pool(x, "avg", **a)], same
    if op == "GlobalAveragePool":
        return [x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)], same
    if op == "GlobalMaxPool":
        return [x.max(axis=tuple(range(2, x.ndim)), keepdims=True)], same
    if op == "BatchNormalization":
        return [_bn(x, *ins[1:5], **a)], same
    if op == "Gemm":
        return [_gemm(x, ins[1], ins[2] if len(ins) > 2 else None, **a)], \
            same
    if op == "MatMul":
        return [np.matmul(x, ins[1])], same
    if op == "Softmax":
        return [_softmax(x, a.get("axis", -1))], same
    if op == "LogSoftmax":
        return [_softmax(x, a.get("axis", -1), log=True)], same
    if op == "LayerNormalization":
        y, m, inv = _layernorm(x, ins[1], ins[2] if len(ins) > 2 else None,
                               **a)
        return [y, m, inv][:len(n.outputs)], [dt0, dt0, dt0]
    if op.startswith("Reduce"):
        axes = a.pop("axes", None)
        if op == "ReduceSum" and len(ins) > 1 and ins[1] is not None:
            axes = [int(v) for v in ins[1]]
        return [_reduce(op, x, axes, **a)], same
    if op == "Reshape":
        return [_reshape(x, ins[1], **a)], same
    if op == "Flatten":
        ax = _axis(a.get("axis", 1), x.ndim)
        return [x.reshape(int(np.prod(x.shape[:ax])), -1)], same
    if op == "Squeeze":
        axes = ins[1] if len(ins) > 1 and ins[1] is not None else None
        if axes is None:
            return [np.squeeze(x)], same
        return [np.squeeze(x, tuple(_axis(int(v), x.ndim)
                                    for v in axes))], same
    if op == "Unsqueeze":
        r = x.ndim + len(ins[1])
        y = x
        for v in sorted(_axis(int(v), r) for v in ins[1]):
            y = np.expand_dims(y, v)
        return [y], same
    if op == "Transpose":
        return [np.transpose(x, a.get("perm"))], same
    if op == "Concat":
        return [np.concatenate(ins, axis=a["axis"])], same
    if op == "Split":
        ax = _axis(a.get("axis", 0), x.ndim)
        if len(ins) > 1 and ins[1] is not None:
            sizes = [int(v) for v in ins[1]]
        else:
            k = len(n.outputs)
            sizes = [-(-x.shape[ax] // k)] * k
            sizes[-1] = x.shape[ax] - sum(sizes[:-1])
        idx = np.cumsum(sizes)[:-1]
        return list(np.split(x, idx, axis=ax)), [dt0] * len(sizes)
    if op == "Slice":
        return [_slice(x, *[v if v is None else [int(t) for t in v]
                            for v in ins[1:]])], same
    if op == "Gather":
        ax = _axis(a.get("axis", 0), x.ndim)
        return [np.take(x, ins[1].astype(np.int64), axis=ax)], same
    if op == "Expand":
        shape = _bcast_shape(x.shape, tuple(int(v) for v in ins[1]))
        return [np.broadcast_to(x, shape).copy()], same
    if op == "Shape":
        return [np.array(x.shape, dtype=np.int64)], ["int64"]
    if op == "Size":
        return [np.array(x.size, dtype=np.int64)], ["int64"]
    if op == "ConstantOfShape":
        v = a.get("value")
        shape = tuple(int(s) for s in x)
        if v is None:
            return [np.zeros(shape, dtype=fdt)], ["float32"]
        val = v.reshape(-1)[0]
        dt = str(v.dtype)
        if dt in FLOAT_TYPES:
            return [np.full(shape, val, dtype=fdt)], [dt]
        return [np.full(shape, val, dtype=v.dtype)], [dt]
    if op == "Range":
        st, li, de = (v.reshape(-1)[0] for v in ins)
        cnt = max(int(math.ceil((li - st) / de)), 0)
        y = st + np.arange(cnt) * de
        return [y.astype(x.dtype)], same
    if op == "Pad":
        pads = [int(v) for v in ins[1]]
        cv = ins[2] if len(ins) > 2 and ins[2] is not None else None
        return [_pad(x, pads, cv, mode=a.get("mode", "constant"))], same
    if op == "Resize":
        roi = ins[1] if len(ins) > 1 else None
        sc = ins[2] if len(ins) > 2 else None
        sz = ins[3] if len(ins) > 3 else None
        return [_resize(x, roi, sc, sz, **a)], same
    if op == "GridSample":
        return [_grid_sample(x, ins[1], **a)], same
    if op in ("MatMulInteger", "ConvInteger"):
        axes = (1, 0) if op == "ConvInteger" else (x.ndim - 2,
                                                   ins[1].ndim - 1)

        def centred(q, z, axis):
            q = q.astype(np.float64)
            if z is None:
                return q
            z = z.astype(np.float64)
            if z.size > 1:
                sh = [1] * q.ndim
                sh[axis] = -1
                z = z.reshape(sh)
            return q - z
        a_ = centred(x, ins[2] if len(ins) > 2 else None, axes[0])
        w_ = centred(ins[1], ins[3] if len(ins) > 3 else None, axes[1])
        y = conv(a_, w_, None, **a) if op == "ConvInteger" else \
            np.matmul(a_, w_)
        return [y.astype(np.int32)], ["int32"]
    if op == "DynamicQuantizeLinear":
        lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
        s = np.float32((np.float32(hi) - np.float32(lo)) / np.float32(255))
        zp = np.float32(np.clip(np.float32(0) - np.float32(lo) / s, 0, 255))
        zp = np.round(zp)
        y = np.clip(np.round(x.astype(np.float32) / s) + zp, 0, 255)
        return [y.astype(np.uint8), np.array(s, np.float32),
                np.array(zp, np.uint8)], ["uint8", "float32", "uint8"]
    if op == "Det":
        return [np.linalg.det(x.astype(np.float64))], same
    if op == "TfIdfVectorizer":
        return [_tfidf(x, **a).astype(fdt)], ["float32"]
    if op == "BitShift":
        bits = np.dtype(dt0).itemsize * 8
        s = ins[1].astype(np.uint64)
        big = s >= bits
        s = np.where(big, 0, s).astype(x.dtype)
        y = np.left_shift(x, s) if a["direction"] == "LEFT" else \
            np.right_shift(x, s)
        return [np.where(big, 0, y).astype(x.dtype)], same
    if op in ("DFT", "STFT", "MelWeightMatrix"):
        return [_signal(op, ins, a).astype(fdt)], ["float32"]
    if op == "Einsum":
        return [np.einsum(a["equation"], *[v.astype(np.float64)
                                           for v in ins])], same
    if op in ("QLinearConv", "QLinearMatMul"):
        y = _qlinear(op, ins, a)
        return [y], [str(y.dtype)]
    if op == "RoiAlign":
        return [_roi_align(x, ins[1], ins[2], **a)], same
    if op == "Trilu":
        return [_trilu(x, ins[1] if len(ins) > 1 else None, **a)], same
    if op == "QuantizeLinear":
        zp = ins[2] if len(ins) > 2 else None
        y = _quantize(x, ins[1], zp, **a)
        return [y], [str(y.dtype)]
    if op == "DequantizeLinear":
        zp = ins[2] if len(ins) > 2 else None
        return [_dequantize(x, ins[1], zp, fdt=fdt, **a)], ["float32"]
    if op == "Constant":
        if "value" in a:
            v = np.asarray(a["value"])
        elif "value_float" in a:
            v = np.array(a["value_float"], dtype=np.float32)
        elif "value_floats" in a:
            v = np.array(a["value_floats"], dtype=np.float32)
        elif "value_int" in a:
            v = np.array(a["value_int"], dtype=np.int64)
        elif "value_ints" in a:
            v = np.array(a["value_ints"], dtype=np.int64)
        else:
            raise NotImplementedError("Constant %s" % sorted(a))
        dt = str(v.dtype)
        return [v.astype(fdt) if dt in FLOAT_TYPES else v], [dt]
    raise NotImplementedError("op %s" % op)
