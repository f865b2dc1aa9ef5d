#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""QDQ test models and a numpy reference of ONNX's int8 semantics.

Debian 12's onnx (1.12) has no onnx.reference, so ``qdq_eval`` below
evaluates a QDQ graph as ONNX defines its operators, in numpy with the
dtypes of ONNX's own reference implementation (float32 tensors, int8
storage, round half to even): QuantizeLinear, DequantizeLinear, Conv,
Gemm, MatMul, Relu, Clip, Add, MaxPool, GlobalAveragePool, Flatten,
Reshape. ``qlinear_eval`` evaluates the same graph the way ONNX's
QLinearConv / QLinearMatMul reference computes the int8 ops npuc turns
it into (int32 sums, one float64 multiplication by the float32
multiplier fl(fl(sx * sw) / sy), round half to even, saturate): that is
what the device must match bit for bit. The float QDQ evaluation may
differ from it by one unit where the float sum lands within rounding of
a half (ONNX leaves the float accumulation order to the implementation);
Documentation/quantization.rst.

Models:
The float evaluation is also what npuc compiles a first convolution of
fewer than 16 input channels to (it stays float, Documentation/
quantization.rst); qlinear_eval does the same.

Both models take 16 input channels, so that every convolution is int8.

  torch_qat(path)  a small CNN + Linear with torch fake-quant (QAT-style:
                   torch.fake_quantize_per_tensor_affine on activations,
                   torch.fake_quantize_per_channel_affine on weights),
                   exported by torch.onnx (QuantizeLinear/DequantizeLinear
                   pairs, weights as QuantizeLinear(float constant))
  ort_qdq(path)    the same kind of network written in ONNX Runtime's QDQ
                   format (int8 weight initializers, int32 biases with
                   scale sx * sw, uint8 activations)
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# ------------------------------------------------------------ reference


def rne(x):
    return np.round(x)          # numpy rounds half to even


def quantize(x, s, z, dt):
    info = np.iinfo(dt)
    q = rne(x.astype(np.float32) / np.float32(s)) + z
    return np.clip(q, info.min, info.max).astype(dt)


def dequantize(q, s, z, axis=1):
    s = np.asarray(s, np.float32)
    z = np.asarray(z).astype(np.int32)
    if s.ndim == 1 and s.size > 1:
        shape = [1] * q.ndim
        shape[axis] = s.size
        s = s.reshape(shape)
        z = z.reshape(shape) if z.size > 1 else z
    return ((q.astype(np.int32) - z).astype(np.float32) * s).astype(
        np.float32)


def conv2d(x, w, b, strides, pads, group, dil=(1, 1)):
    """Direct convolution: x [N,C,H,W], w [O,C/g,KH,KW]; in x's dtype
    (float32, or int64 for exact integer sums)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]),
                  x.dtype)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, o, oh, ow), x.dtype)
    og = o // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og]
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, :, ky * dil[0]:ky * dil[0] + strides[0] * oh:
                           strides[0],
                           kx * dil[1]:kx * dil[1] + strides[1] * ow:
                           strides[1]]
                # [n, c, oh, ow] x [og, c] -> [n, og, oh, ow]
                out[:, g * og:(g + 1) * og] += np.tensordot(
                    ws[:, :, ky, kx], patch, axes=([1], [1])).transpose(
                    1, 0, 2, 3).astype(x.dtype)
    if b is not None:
        out += b.reshape(1, -1, 1, 1).astype(x.dtype)
    return out


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _conv_geom(at, w):
    kh, kw = w.shape[2], w.shape[3]
    return (list(at.get("strides", [1, 1])), list(at.get("pads", [0] * 4)),
            int(at.get("group", 1)), list(at.get("dilations", [1, 1])),
            (kh, kw))


def qdq_eval(model, feeds):
    """Evaluate a QDQ model as ONNX defines it (float32 in between)."""
    env = dict(feeds)
    for init in model.graph.initializer:
        env[init.name] = numpy_helper.to_array(init)
    for node in model.graph.node:
        at = _attrs(node)
        i = [env[n] if n else None for n in node.input]
        op = node.op_type
        if op == "Constant":
            r = numpy_helper.to_array(at["value"])
        elif op == "QuantizeLinear":
            s, z = i[1], i[2]
            axis = at.get("axis", 1)
            if s.size > 1:
                shape = [1] * i[0].ndim
                shape[axis] = s.size
                s = s.reshape(shape)
                z = z.reshape(shape)
            info = np.iinfo(z.dtype)
            r = np.clip(rne(i[0] / s) + z.astype(np.float32), info.min,
                        info.max).astype(z.dtype)
        elif op == "DequantizeLinear":
            r = dequantize(i[0], i[1], i[2] if len(i) > 2 else 0,
                           at.get("axis", 1))
        elif op == "Conv":
            st, pd, g, dl, _ = _conv_geom(at, i[1])
            r = conv2d(i[0], i[1], i[2] if len(i) > 2 else None, st, pd, g,
                       dl)
        elif op == "Gemm":
            b = i[1].T if at.get("transB", 0) else i[1]
            r = (i[0] @ b).astype(np.float32)
            if len(i) > 2 and i[2] is not None:
                r = r + i[2]
        elif op == "MatMul":
            r = np.matmul(i[0], i[1]).astype(np.float32)
        elif op == "Relu":
            r = np.maximum(i[0], 0)
        elif op == "Clip":
            r = np.clip(i[0], i[1], i[2])
        elif op == "Add":
            r = (i[0] + i[1]).astype(np.float32)
        elif op == "MaxPool":
            r = maxpool(i[0], at)
        elif op == "GlobalAveragePool":
            r = i[0].mean(axis=(2, 3), keepdims=True, dtype=np.float32)
        elif op == "Flatten":
            r = i[0].reshape(i[0].shape[0], -1)
        elif op == "Reshape":
            r = i[0].reshape(i[1])
        else:
            raise NotImplementedError(op)
        env[node.output[0]] = r
    return [env[o.name] for o in model.graph.output]


def maxpool(x, at):
    kh, kw = at["kernel_shape"]
    st = at.get("strides", [1, 1])
    pd = at.get("pads", [0, 0, 0, 0])
    n, c, h, w = x.shape
    if x.dtype.kind == "f":
        fill = -np.inf
    else:
        fill = np.iinfo(x.dtype).min
    xp = np.full((n, c, h + pd[0] + pd[2], w + pd[1] + pd[3]), fill,
                 x.dtype)
    xp[:, :, pd[0]:pd[0] + h, pd[1]:pd[1] + w] = x
    oh = (xp.shape[2] - kh) // st[0] + 1
    ow = (xp.shape[3] - kw) // st[1] + 1
    out = np.full((n, c, oh, ow), fill, x.dtype)
    for ky in range(kh):
        for kx in range(kw):
            out = np.maximum(out, xp[:, :, ky:ky + st[0] * oh:st[0],
                                     kx:kx + st[1] * ow:st[1]])
    return out


# ------------------------------------------------- QLinear reference


def _requant(acc, m, yz, lo, hi, dt):
    """ONNX QLinearConv/QLinearMatMul reference: int32 * float32 ->
    float64, + y_zero, clip, round half to even."""
    r = acc.astype(np.int32).astype(np.float64) * m.astype(np.float64)
    r = r + yz
    r = np.clip(r, lo, hi)
    return rne(r).astype(dt)


def qlinear_eval(model, feeds):
    """The int8 evaluation npuc compiles a QDQ model to: every
    DQ -> Conv/Gemm/MatMul [-> Relu/Clip] -> Q becomes QLinearConv /
    QLinearMatMul (float bias quantized to int32 with scale sx * sw,
    round half to even), everything else as qdq_eval."""
    g = model.graph
    env = dict(feeds)
    for init in g.initializer:
        env[init.name] = numpy_helper.to_array(init)
    prod = {o: n for n in g.node for o in n.output}
    cons = {}
    for n in g.node:
        for x in n.input:
            cons.setdefault(x, []).append(n)
    fused = {}          # id(Q node) -> (op node, act node or None)
    skip = set()
    for n in g.node:
        if n.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        c = cons.get(n.output[0], [])
        if len(c) != 1:
            continue
        act = None
        if c[0].op_type in ("Relu", "Clip"):
            act = c[0]
            c = cons.get(act.output[0], [])
            if len(c) != 1:
                continue
        if c[0].op_type != "QuantizeLinear":
            continue
        if prod.get(n.input[0]) is None or \
                prod[n.input[0]].op_type != "DequantizeLinear":
            continue
        if n.op_type == "Conv" and _attrs(n).get("group", 1) == 1 and \
                _weight_channels(g, prod, n.input[1]) < 16:
            continue        # npuc keeps a first layer of < 16 channels float
        fused[id(c[0])] = (n, act)
        skip.add(id(n))
        if act is not None:
            skip.add(id(act))
    out_names = [o.name for o in g.output]
    for node in g.node:
        if id(node) in skip:
            continue
        if id(node) in fused:
            op, act = fused[id(node)]
            env[node.output[0]] = _qlinear_node(env, prod, op, act, node)
            continue
        # any other node: qdq_eval's rules
        r = qdq_eval_node(node, {k: env[k] for k in node.input if k})
        env[node.output[0]] = r
    return [env[o] for o in out_names]


def _weight_channels(g, prod, name):
    """Input channels of a Conv weight behind DequantizeLinear [and
    QuantizeLinear] (dim 1 of the initializer)."""
    inits = {i.name: i for i in g.initializer}
    while name not in inits and name in prod:
        name = prod[name].input[0]
    if name in inits:
        return list(inits[name].dims)[1]
    for n in g.node:       # a Constant node
        if n.op_type == "Constant" and n.output[0] == name:
            return list(_attrs(n)["value"].dims)[1]
    return 1 << 30


def qdq_eval_node(node, env):
    m = onnx.ModelProto()
    m.graph.node.extend([node])
    m.graph.output.extend([helper.make_tensor_value_info(
        node.output[0], TensorProto.FLOAT, None)])
    return qdq_eval(m, env)[0]


def _weight_q(env, prod, name):
    """(int weight, per-channel scale array, zero point) behind DQ."""
    dq = prod[name]
    s = env[dq.input[1]].astype(np.float32)
    z = env[dq.input[2]] if len(dq.input) > 2 else np.zeros((), np.uint8)
    src = dq.input[0]
    if src in env and env[src].dtype != np.float32:
        wq = env[src]
    else:
        q = prod[src]
        wf = env[q.input[0]]
        at = _attrs(q)
        axis = at.get("axis", 1)
        ss, zz = s, z
        if s.size > 1:
            shape = [1] * wf.ndim
            shape[axis] = s.size
            ss = s.reshape(shape)
            zz = z.reshape(shape)
        info = np.iinfo(z.dtype)
        wq = np.clip(rne(wf / ss) + zz.astype(np.float32), info.min,
                     info.max).astype(z.dtype)
    return wq, s, z


def _qlinear_node(env, prod, op, act, q):
    dqx = prod[op.input[0]]
    xq = env[dqx.input[0]]
    sx = env[dqx.input[1]].astype(np.float32)
    zx = int(env[dqx.input[2]]) if len(dqx.input) > 2 else 0
    sy = env[q.input[1]].astype(np.float32)
    zy = env[q.input[2]]
    ydt = zy.dtype
    info = np.iinfo(ydt)
    lo, hi = info.min, info.max
    if act is not None:
        if act.op_type == "Relu":
            a, b = 0.0, None
        else:
            a = float(env[act.input[1]]) if len(act.input) > 1 and \
                act.input[1] else None
            b = float(env[act.input[2]]) if len(act.input) > 2 and \
                act.input[2] else None
        if a is not None:
            lo = max(lo, int(quantize(np.float32(a), sy, zy, ydt)))
        if b is not None:
            hi = min(hi, int(quantize(np.float32(b), sy, zy, ydt)))
    at = _attrs(op)
    if op.op_type == "Conv":
        wq, sw, zw = _weight_q(env, prod, op.input[1])
        nch = wq.shape[0]
    else:
        wq, sw, zw = _weight_q(env, prod, op.input[1])
        if op.op_type == "Gemm" and at.get("transB", 0):
            wq = wq.T
        nch = wq.shape[1]
    sw = np.broadcast_to(sw, (nch,)).astype(np.float32)
    m = ((sx * sw).astype(np.float32) / sy).astype(np.float32)
    bias = None
    if len(op.input) > 2 and op.input[2]:
        bname = op.input[2]
        bdq = prod.get(bname)
        bs = (sx * sw).astype(np.float32)
        if bdq is not None and bdq.op_type == "DequantizeLinear":
            bq = env[bdq.input[0]]
            bsc = env[bdq.input[1]].astype(np.float32)
            if np.all(np.broadcast_to(bsc, (nch,)) == bs):
                bias = bq.astype(np.int64)
            else:
                bias = rne((bq.astype(np.float32) * bsc) / bs).astype(
                    np.int64)
        else:
            bias = rne(env[bname].astype(np.float32) / bs).astype(np.int64)
    x = xq.astype(np.int64) - zx
    w = wq.astype(np.int64) - np.asarray(zw).astype(np.int64).reshape(-1)[0]
    if op.op_type == "Conv":
        st, pd, g, dl, _ = _conv_geom(at, wq)
        acc = conv2d(x, w, bias, st, pd, g, dl)
        mm = m.reshape(1, -1, 1, 1)
    else:
        acc = np.matmul(x, w)
        if bias is not None:
            acc = acc + bias
        mm = m
    acc = ((acc + 2**31) % 2**32 - 2**31).astype(np.int64)   # int32 wrap
    return _requant(acc, mm, float(zy), lo, hi, ydt)


# ------------------------------------------------------------- models


def torch_qat(path, seed=0):
    """A torch fake-quant (QAT-style) CNN, exported to ONNX."""
    import torch
    torch.manual_seed(seed)

    def fq(x, s, z):
        return torch.fake_quantize_per_tensor_affine(x, s, z, 0, 255)

    def wscale(w):
        # a frozen observer: symmetric per-channel scales, constants
        return (w.detach().abs().amax(dim=tuple(range(1, w.dim()))) /
                127.0).clamp(min=1e-8)

    def fqw(w, s):
        z = torch.zeros(w.shape[0], dtype=torch.int32)
        return torch.fake_quantize_per_channel_affine(w, s, z, 0, -128,
                                                      127)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = torch.nn.Conv2d(16, 24, 3, padding=1)
            self.c2 = torch.nn.Conv2d(24, 40, 3, stride=2, padding=1)
            self.c3 = torch.nn.Conv2d(40, 40, 3, padding=1, groups=40)
            self.c4 = torch.nn.Conv2d(40, 64, 1)
            self.fc = torch.nn.Linear(64 * 8 * 8, 10)

        def conv(self, x, c, sy, zy, relu=True):
            y = torch.nn.functional.conv2d(x, fqw(c.weight, c.ws), c.bias,
                                           c.stride, c.padding,
                                           c.dilation, c.groups)
            if relu:
                y = torch.relu(y)
            return fq(y, sy, zy)

        def forward(self, x):
            x = fq(x, 0.02, 128)
            x = self.conv(x, self.c1, 0.03, 0)
            x = self.conv(x, self.c2, 0.04, 0)
            x = self.conv(x, self.c3, 0.04, 0)
            x = self.conv(x, self.c4, 0.05, 10, relu=False)
            x = x.flatten(1)
            y = torch.nn.functional.linear(x, fqw(self.fc.weight,
                                                  self.fc.ws),
                                           self.fc.bias)
            return fq(y, 0.1, 128)

    net = Net().eval()
    with torch.no_grad():
        for c in (net.c1, net.c2, net.c3, net.c4, net.fc):
            c.weight.mul_(3.0)
            c.ws = wscale(c.weight)
    x = torch.randn(1, 16, 16, 16)
    torch.onnx.export(net, x, path, opset_version=13,
                      input_names=["x"], output_names=["y"])
    return path


def ptq_float(path, seed=2):
    """A float CNN with a two-layer head, for npu-quant (PTQ) to quantize:
    convolutions (one depthwise), a residual Add, pooling, and a first
    Gemm whose output a quantized Gemm reads (so both are int8 products;
    the last one stays float: nothing quantizes the graph output)."""
    import torch
    torch.manual_seed(seed)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = torch.nn.Conv2d(16, 32, 3, padding=1)
            self.c2 = torch.nn.Conv2d(32, 32, 3, padding=1, groups=32)
            self.c3 = torch.nn.Conv2d(32, 32, 1)
            self.fc1 = torch.nn.Linear(32 * 8 * 8, 64)
            self.fc2 = torch.nn.Linear(64, 10)

        def forward(self, x):
            x = torch.relu(self.c1(x))
            x = x + torch.relu(self.c3(torch.relu(self.c2(x))))
            x = torch.nn.functional.max_pool2d(x, 2)
            x = torch.relu(self.fc1(x.flatten(1)))
            return self.fc2(x)

    net = Net().eval()
    x = torch.randn(1, 16, 16, 16)
    torch.onnx.export(net, x, path, opset_version=13,
                      input_names=["x"], output_names=["y"])
    return path


def ort_qdq(path, seed=1):
    """ONNX Runtime's QDQ format: int8 weights, int32 bias, u8 acts."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def init(name, arr):
        inits.append(numpy_helper.from_array(arr, name))
        return name

    def qdq(x, s, z, name):
        init(name + "_s", np.array(s, np.float32))
        init(name + "_z", np.array(z, np.uint8))
        nodes.append(helper.make_node("QuantizeLinear",
                                      [x, name + "_s", name + "_z"],
                                      [name + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear",
                                      [name + "_q", name + "_s",
                                       name + "_z"], [name + "_dq"]))
        return name + "_dq"

    def conv(x, sx, cin, cout, k, name, stride=1, pad=1, group=1,
             relu=True, per_channel=True):
        w = rng.standard_normal((cout, cin // group, k, k)).astype(
            np.float32)
        sw = np.abs(w).reshape(cout, -1).max(1) / 127.0
        if not per_channel:
            sw = np.full(cout, sw.max(), np.float32)
        sw = sw.astype(np.float32)
        wq = np.clip(rne(w / sw.reshape(-1, 1, 1, 1)), -127, 127).astype(
            np.int8)
        init(name + "_w", wq)
        init(name + "_ws", sw if per_channel else sw[:1].reshape(()))
        init(name + "_wz", np.zeros(cout if per_channel else (),
                                    np.int8))
        nodes.append(helper.make_node(
            "DequantizeLinear", [name + "_w", name + "_ws", name + "_wz"],
            [name + "_wdq"], axis=0))
        b = (rng.standard_normal(cout) * 2).astype(np.float32)
        bs = (np.float32(sx) * sw).astype(np.float32)
        bq = rne(b / bs).astype(np.int32)
        init(name + "_b", bq)
        init(name + "_bs", bs if per_channel else bs[:1].reshape(()))
        init(name + "_bz", np.zeros(cout if per_channel else (), np.int32))
        nodes.append(helper.make_node(
            "DequantizeLinear", [name + "_b", name + "_bs", name + "_bz"],
            [name + "_bdq"], axis=0))
        nodes.append(helper.make_node(
            "Conv", [x, name + "_wdq", name + "_bdq"], [name + "_y"],
            kernel_shape=[k, k], strides=[stride, stride],
            pads=[pad] * 4, group=group))
        y = name + "_y"
        if relu:
            nodes.append(helper.make_node("Relu", [y], [name + "_r"]))
            y = name + "_r"
        return y

    x = qdq("x", 0.025, 128, "in")
    y = conv(x, 0.025, 16, 32, 3, "c1")
    y = qdq(y, 0.05, 0, "a1")
    y = conv(y, 0.05, 32, 48, 3, "c2", stride=2, per_channel=False)
    y = qdq(y, 0.08, 0, "a2")
    y = conv(y, 0.08, 48, 48, 3, "c3", group=48)
    y = qdq(y, 0.08, 0, "a3")
    z = conv(y, 0.08, 48, 48, 1, "c4", pad=0, relu=False)
    z = qdq(z, 0.1, 100, "a4")
    nodes.append(helper.make_node("Add", [y, z], ["sum"]))
    s = qdq("sum", 0.12, 90, "a5")
    nodes.append(helper.make_node("MaxPool", [s], ["mp"],
                                  kernel_shape=[2, 2], strides=[2, 2]))
    m = qdq("mp", 0.12, 90, "a6")
    nodes.append(helper.make_node("GlobalAveragePool", [m], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    f = qdq("flat", 0.12, 90, "a7")
    w = rng.standard_normal((10, 48)).astype(np.float32)
    sw = (np.abs(w).max(1) / 127).astype(np.float32)
    init("fc_w", np.clip(rne(w / sw[:, None]), -127, 127).astype(np.int8))
    init("fc_ws", sw)
    init("fc_wz", np.zeros(10, np.int8))
    nodes.append(helper.make_node("DequantizeLinear",
                                  ["fc_w", "fc_ws", "fc_wz"], ["fc_wdq"],
                                  axis=0))
    init("fc_b", (rng.standard_normal(10)).astype(np.float32))
    nodes.append(helper.make_node("Gemm", [f, "fc_wdq", "fc_b"], ["fc_y"],
                                  transB=1))
    out = qdq("fc_y", 0.2, 128, "out")
    g = helper.make_graph(
        nodes, "ort_qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [1, 16, 16, 16])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 10])],
        inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def ort_qoperator(path, seed=1):
    """ort_qdq's network in ONNX Runtime's QOperator format: each
    DequantizeLinear -> Conv [-> Relu] -> QuantizeLinear as one
    QLinearConv (the Relu before a zero-point-0 uint8 quantization is what
    the saturation does already); the rest stays QDQ. The QDQ twin (the
    reference: the same int8 values) goes to path + ".qdq.onnx"."""
    twin = ort_qdq(path + ".qdq.onnx", seed)
    m = onnx.load(twin)
    g = m.graph
    prod = {o: n for n in g.node for o in n.output}
    cons = {}
    for n in g.node:
        for x in n.input:
            cons.setdefault(x, []).append(n)
    drop, new = set(), {}
    for n in g.node:
        if n.op_type != "Conv":
            continue
        dx, dw, db = (prod.get(i) for i in n.input)
        c = cons[n.output[0]]
        if len(c) == 1 and c[0].op_type == "Relu":
            drop.add(id(c[0]))
            c = cons[c[0].output[0]]
        q = c[0]
        assert q.op_type == "QuantizeLinear" and dx.op_type == \
            dw.op_type == db.op_type == "DequantizeLinear"
        new[id(q)] = helper.make_node(
            "QLinearConv", list(dx.input) + list(dw.input) +
            list(q.input[1:]) + [db.input[0]], [q.output[0]],
            **{a.name: helper.get_attribute_value(a) for a in n.attribute})
        drop.update({id(n), id(dw), id(db)})
    nodes = [new.get(id(n), n) for n in g.node if id(n) not in drop]
    del g.node[:]
    g.node.extend(nodes)
    onnx.checker.check_model(m)
    onnx.save(m, path)
    return path
