# SPDX-License-Identifier: MIT
"""A small reference evaluator of (QDQ) ONNX graphs for npu-quant's tests
and accuracy report, independent of the compiler: numpy for ONNX's
QuantizeLinear/DequantizeLinear (round half to even, saturation, per-axis
and blocked INT4 as in opset 21), torch.nn.functional for the float ops.

Covers the ops the test models and the bundled models use; anything else
raises NotImplementedError naming the op.
"""

import numpy as np

ONNX_NP = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32,
           7: np.int64, 9: np.bool_, 11: np.float64}


def tensor_to_numpy(t):
    """TensorProto -> numpy, INT4 (22) and UINT4 (21) unpacked by hand
    (onnx 1.12's numpy_helper predates them)."""
    dims = tuple(t.dims)
    n = int(np.prod(dims)) if dims else 1
    if t.data_type in (21, 22):
        raw = np.frombuffer(t.raw_data, dtype=np.uint8)
        lo, hi = raw & 0xF, raw >> 4
        v = np.stack([lo, hi], axis=1).reshape(-1)[:n].astype(np.int8)
        if t.data_type == 22:
            v = np.where(v > 7, v - 16, v).astype(np.int8)
        return v.reshape(dims)
    from onnx import numpy_helper
    return numpy_helper.to_array(t)


def quantize(x, scale, zp, axis=1, block=0, qtype=np.int8):
    x = np.asarray(x, np.float32)
    s, z = _bcast(x, scale, zp, axis, block)
    info = np.iinfo(qtype) if qtype is not None else None
    q = np.round(x / s).astype(np.float64) + z
    return np.clip(q, info.min, info.max).astype(qtype)


def dequantize(q, scale, zp, axis=1, block=0):
    s, z = _bcast(q, scale, zp, axis, block)
    return ((q.astype(np.float64) - z) * s).astype(np.float32)


def _bcast(x, scale, zp, axis, block):
    scale = np.asarray(scale, np.float32)
    zp = np.zeros(scale.shape, np.int64) if zp is None else \
        np.asarray(zp).astype(np.int64)
    if scale.size == 1 and scale.ndim <= 1 and not block:
        return scale.reshape(()), zp.reshape(())
    axis = axis % x.ndim
    if block:
        scale = np.repeat(scale, block, axis=axis)
        zp = np.repeat(zp, block, axis=axis)
        sl = [slice(None)] * x.ndim
        sl[axis] = slice(0, x.shape[axis])
        return scale[tuple(sl)], zp[tuple(sl)]
    shape = [1] * x.ndim
    shape[axis] = -1
    return scale.reshape(shape), zp.reshape(shape)


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def run(model, feeds):
    """Evaluate @model (ModelProto) on @feeds {name: array}; returns the
    list of graph outputs."""
    import torch
    import torch.nn.functional as F

    env = dict(feeds)
    for init in model.graph.initializer:
        env[init.name] = tensor_to_numpy(init)
    def tt(a):
        return torch.from_numpy(np.array(a))
    for node in model.graph.node:
        a = _attrs(node)
        x = [env[i] if i else None for i in node.input]
        op = node.op_type
        if op == "QuantizeLinear":
            zp = x[2] if len(x) > 2 else None
            y = quantize(x[0], x[1], zp, a.get("axis", 1),
                         a.get("block_size", 0),
                         zp.dtype.type if zp is not None else np.uint8)
        elif op == "DequantizeLinear":
            y = dequantize(x[0], x[1], x[2] if len(x) > 2 else None,
                           a.get("axis", 1), a.get("block_size", 0))
        elif op == "Conv":
            pads = a.get("pads", [0, 0, 0, 0])
            xi = tt(x[0])
            if pads[0] != pads[2] or pads[1] != pads[3]:
                xi = F.pad(xi, (pads[1], pads[3], pads[0], pads[2]))
                pads = [0, 0]
            y = F.conv2d(xi, tt(x[1]),
                         tt(x[2]) if len(x) > 2 and x[2] is not None
                         else None, a.get("strides", [1, 1]),
                         pads[:2], a.get("dilations", [1, 1]),
                         a.get("group", 1)).numpy()
        elif op == "Relu":
            y = np.maximum(x[0], 0)
        elif op == "Clip":
            lo = x[1] if len(x) > 1 and x[1] is not None else -np.inf
            hi = x[2] if len(x) > 2 and x[2] is not None else np.inf
            y = np.clip(x[0], lo, hi).astype(np.float32)
        elif op == "Add":
            y = x[0] + x[1]
        elif op == "Mul":
            y = x[0] * x[1]
        elif op == "MaxPool" or op == "AveragePool":
            pads = a.get("pads", [0, 0, 0, 0])
            fn = F.max_pool2d if op == "MaxPool" else F.avg_pool2d
            y = fn(tt(x[0]), a["kernel_shape"],
                   a.get("strides", a["kernel_shape"]), pads[:2]).numpy()
        elif op == "GlobalAveragePool":
            y = x[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Flatten":
            ax = a.get("axis", 1)
            y = x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)
        elif op == "Reshape":
            shape = [d if d != 0 else x[0].shape[i]
                     for i, d in enumerate(x[1])]
            y = x[0].reshape(shape)
        elif op == "Gemm":
            A = x[0].T if a.get("transA", 0) else x[0]
            B = x[1].T if a.get("transB", 0) else x[1]
            y = a.get("alpha", 1.0) * (A @ B)
            if len(x) > 2 and x[2] is not None:
                y = y + a.get("beta", 1.0) * x[2]
            y = y.astype(np.float32)
        elif op == "MatMul":
            y = np.matmul(x[0], x[1]).astype(np.float32)
        elif op == "BatchNormalization":
            sh = (1, -1) + (1,) * (x[0].ndim - 2)
            y = ((x[0] - x[3].reshape(sh)) /
                 np.sqrt(x[4].reshape(sh) + a.get("epsilon", 1e-5)) *
                 x[1].reshape(sh) + x[2].reshape(sh)).astype(np.float32)
        elif op == "Identity":
            y = x[0]
        else:
            raise NotImplementedError(op)
        env[node.output[0]] = np.asarray(y)
    return [env[o.name] for o in model.graph.output]
