# SPDX-License-Identifier: MIT
"""Eager mode: torch tensors in device memory, torch operations run one at
a time on the NPU (the seed's ``model.npu()``).

``npu.to_device(x)`` copies a torch tensor (or numpy array) to device
memory and returns an ``npu.Tensor``: a torch.Tensor subclass (a wrapper
with torch's shape and dtype, data in an npurt_mem block) whose torch
operations go through ``__torch_function__`` to ``npurt_op_execute`` - the
single-op mode of online compilation: each (op, attributes, input shapes)
is compiled once into the context's op cache, later calls are cache hits;
there is no fusion across ops. Results stay on the device until
``.cpu()`` / ``.numpy()``. ``npu.to_device(module)`` moves a module's
parameters and buffers so its ``forward`` runs in eager mode.

A torch operation without an NPU mapping raises ``NpuEagerError`` naming
it (call ``.cpu()`` first, or use ``npu.compile``, the graph mode).
Documentation/python.rst ("Eager mode").
"""

import ctypes

import numpy as np

from . import _lib, _runtime
from ._lib import rt, check
from .memory import Buffer

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the package works without torch; eager mode needs it
    torch = None

# npurt_dtype codes
_NP_TO_RT = {np.dtype(np.float32): 1, np.dtype(np.float16): 2,
             np.dtype(np.int8): 3, np.dtype(np.uint8): 4,
             np.dtype(np.int32): 5, np.dtype(np.int64): 6,
             np.dtype(np.bool_): 7}


class NpuEagerError(NotImplementedError):
    """A torch operation that eager mode cannot run on the NPU."""


class OpAttr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                ("i", ctypes.c_int64), ("f", ctypes.c_float),
                ("s", ctypes.c_char_p),
                ("ints", ctypes.POINTER(ctypes.c_int64)),
                ("floats", ctypes.POINTER(ctypes.c_float)),
                ("n", ctypes.c_uint32)]


class OpTensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_uint32),
                ("dims", ctypes.c_uint64 * _lib.MAX_RANK),
                ("layout", ctypes.c_char_p), ("mem", ctypes.c_void_p),
                ("offset", ctypes.c_size_t), ("data", ctypes.c_void_p),
                ("data_size", ctypes.c_size_t)]


_lib._declare(rt, {
    "npurt_stream_create": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_void_p)]),
    "npurt_stream_destroy": (ctypes.c_int, [ctypes.c_void_p]),
    "npurt_stream_synchronize": (ctypes.c_int, [ctypes.c_void_p]),
    "npurt_op_execute": (ctypes.c_int, [
        ctypes.c_char_p, ctypes.POINTER(OpAttr), ctypes.c_uint32,
        ctypes.POINTER(OpTensor), ctypes.c_uint32, ctypes.POINTER(OpTensor),
        ctypes.c_uint32, ctypes.c_void_p]),
    "npurt_op_cache_get_stats": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.POINTER(_lib.CacheStats)]),
})

_streams = {}  # device index -> stream handle


def _stream(device):
    idx = _runtime._index(device)
    s = _streams.get(idx)
    if s is None:
        _, ctx = _runtime.context(idx)
        s = ctypes.c_void_p()
        check(rt.npurt_stream_create(ctx, 1, ctypes.byref(s)))
        _streams[idx] = s
    return s


def op_cache_stats(device=None):
    """The op cache of eager mode: hits, misses, entries, compile time."""
    _, ctx = _runtime.context(device)
    st = _lib.CacheStats()
    check(rt.npurt_op_cache_get_stats(ctx, ctypes.byref(st)))
    return {k: getattr(st, k) for k, _ in _lib.CacheStats._fields_}


def _np_dtype(tdtype):
    return torch.empty((), dtype=tdtype).numpy().dtype


if torch is not None:
    class Tensor(torch.Tensor):
        """A tensor in NPU device memory (see the module's docstring)."""

        @staticmethod
        def __new__(cls, buf, shape, dtype, device=0):
            t = torch.Tensor._make_wrapper_subclass(
                cls, tuple(int(d) for d in shape), dtype=dtype,
                device="meta")
            t._npu_buf = buf
            t._npu_device = device
            return t

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            raise NpuEagerError(
                "npu eager mode: torch op %s reached the dispatcher; it has "
                "no NPU mapping (call .cpu() first)" % func)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func in _META or getattr(func, "__name__", "") == "__get__":
                with torch._C.DisableTorchFunction():
                    return func(*args, **kwargs)
            h = _HANDLERS.get(func)
            if h is None:
                name = _op_name(func)
                raise NpuEagerError(
                    "npu eager mode cannot run torch op '%s' on the NPU: "
                    "no mapping to an ONNX operator (call .cpu() first, or "
                    "compile the model with npu.compile)" % name)
            with torch._C.DisableTorchFunction():
                return h(*args, **kwargs)

        def __repr__(self):
            return "npu.Tensor(shape=%s, dtype=%s, device='npu:%s')" % (
                list(self.shape), self.dtype, self._npu_device)

        def __reduce_ex__(self, proto):
            return (to_device, (self.cpu(),))


def _op_name(func):
    """'torch.cumsum', 'Tensor.cumsum', 'torch.nn.functional.gelu'."""
    q = getattr(func, "__qualname__", None) or getattr(func, "__name__",
                                                       repr(func))
    head, _, tail = q.rpartition(".")
    if head in ("_VariableFunctionsClass", ""):
        mod = getattr(func, "__module__", None) or "torch"
        return "%s.%s" % ("torch" if mod.startswith("torch._C") or
                          head else mod, tail)
    if head == "_TensorBase":
        return "Tensor." + tail
    return q


def _is_dev(x):
    return torch is not None and isinstance(x, Tensor)


def to_device(obj, device=0):
    """Moves a torch tensor, numpy array or torch module to the NPU.

    A tensor becomes an npu.Tensor (data copied to device memory); a
    module's parameters and buffers are replaced by npu.Tensors in place
    and the module is returned (eval mode is the caller's choice)."""
    if torch is None:
        raise ImportError("npu.to_device needs torch")
    if isinstance(obj, torch.nn.Module):
        for mod in obj.modules():
            for k, p in list(mod._parameters.items()):
                if p is not None and not _is_dev(p):
                    mod._parameters[k] = to_device(p.detach(), device)
            for k, b in list(mod._buffers.items()):
                if b is not None and not _is_dev(b):
                    mod._buffers[k] = to_device(b, device)
        return obj
    if _is_dev(obj):
        return obj
    if isinstance(obj, torch.Tensor):
        a = obj.detach().cpu().contiguous().numpy()
        tdtype = obj.dtype
    else:
        a = np.ascontiguousarray(obj)
        tdtype = torch.from_numpy(a[:0].copy()).dtype
    if a.dtype not in _NP_TO_RT:
        raise NpuEagerError("npu.to_device: dtype %s has no NPU type"
                            % a.dtype)
    buf = Buffer(max(a.nbytes, 1), device)
    if a.nbytes:
        buf.copy_from(a)
    return Tensor(buf, a.shape, tdtype, device)


def _to_cpu(t, *args, **kwargs):
    check(rt.npurt_stream_synchronize(_stream(t._npu_device)))
    dt = _np_dtype(t.dtype)
    n = int(np.prod(t.shape, dtype=np.int64)) if len(t.shape) else 1
    a = t._npu_buf.numpy(dt, (n,)) if n else np.empty((0,), dt)
    return torch.from_numpy(a.reshape(tuple(t.shape)))


# ---- running one ONNX operator ----

def _attr(name, v):
    a = OpAttr()
    a.name = name.encode()
    if isinstance(v, float):
        a.type, a.f = 1, v
    elif isinstance(v, str):
        a.type, a.s = 2, v.encode()
    elif isinstance(v, (list, tuple)) and v and isinstance(v[0], float):
        arr = (ctypes.c_float * len(v))(*v)
        a.type, a.floats, a.n = 4, arr, len(v)
        a._keep = arr
    elif isinstance(v, (list, tuple)):
        arr = (ctypes.c_int64 * len(v))(*[int(x) for x in v])
        a.type, a.ints, a.n = 3, arr, len(v)
        a._keep = arr
    else:
        a.type, a.i = 0, int(v)
    return a


class _Const:
    """An input whose contents are part of the op (compiled in)."""

    def __init__(self, array):
        self.a = np.ascontiguousarray(array)


def _run(op, inputs, out_shapes, out_dtypes, attrs=None, device=None):
    """Runs ONNX @op on device tensors / _Const inputs; returns new device
    tensors of the given shapes (torch's own shape inference on meta
    tensors), checked against the shapes the compiled op reports."""
    attrs = attrs or {}
    if device is None:
        device = next((x._npu_device for x in inputs if _is_dev(x)), 0)
    ins = (OpTensor * max(len(inputs), 1))()
    for i, x in enumerate(inputs):
        t = ins[i]
        if isinstance(x, _Const):
            a = x.a
            t.dtype = _NP_TO_RT[a.dtype]
            t.rank = a.ndim
            for k, d in enumerate(a.shape):
                t.dims[k] = d
            t.data = a.ctypes.data
            t.data_size = a.nbytes
        elif not _is_dev(x):
            raise NpuEagerError(
                "npu eager mode: %s got a %s input beside NPU tensors; "
                "move it with npu.to_device()" % (op, type(x).__name__))
        else:
            t.dtype = _NP_TO_RT[_np_dtype(x.dtype)]
            t.rank = len(x.shape)
            for k, d in enumerate(x.shape):
                t.dims[k] = d
            t.mem = x._npu_buf._mem
    outs = (OpTensor * len(out_shapes))()
    results = []
    for i, (shape, dt) in enumerate(zip(out_shapes, out_dtypes)):
        n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
        buf = Buffer(max(n * _np_dtype(dt).itemsize, 1), device)
        outs[i].mem = buf._mem
        results.append(Tensor(buf, shape, dt, device))
    al = [_attr(k, v) for k, v in attrs.items() if v is not None]
    aarr = (OpAttr * max(len(al), 1))(*al)
    st = rt.npurt_op_execute(op.encode(), aarr, len(al), ins, len(inputs),
                             outs, len(out_shapes), _stream(device))
    check(st, "npurt_op_execute(%s)" % op)
    for i, shape in enumerate(out_shapes):
        got = tuple(outs[i].dims[k] for k in range(outs[i].rank))
        if got != tuple(shape):
            raise _lib.NpuError("NPURT_ERR_SHAPE", "npu eager (%s)" % op,
                                "the NPU op gives shape %s, torch %s"
                                % (list(got), list(shape)))
    return results


def _meta(x):
    if _is_dev(x):
        return torch.empty(x.shape, dtype=x.dtype, device="meta")
    if isinstance(x, torch.Tensor):
        return x.to("meta")
    if isinstance(x, (list, tuple)):
        return type(x)(_meta(v) for v in x)
    return x


def _infer(func, *args, **kwargs):
    """Output shape(s) and dtype(s) of torch @func on meta tensors."""
    r = func(*_meta(args), **{k: _meta(v) for k, v in kwargs.items()})
    return r


def _operand(x, like):
    """A device tensor, or a constant input for a scalar / host tensor."""
    if _is_dev(x):
        return x
    dt = _np_dtype(like.dtype)
    if isinstance(x, torch.Tensor):
        return _Const(x.detach().cpu().numpy().astype(dt))
    return _Const(np.array(x, dtype=dt))


def _unary(op):
    def h(x, *a, inplace=False, **k):
        inplace = inplace or (bool(a[0]) if a else False)
        (y,) = _run(op, [x], [tuple(x.shape)], [x.dtype])
        if inplace:
            x._npu_buf = y._npu_buf
            return x
        return y
    return h


def _unary_(op):
    h = _unary(op)
    return lambda x, *a, **k: h(x, inplace=True)


def _binary(op, func, inplace=False, reverse=False):  # noqa: ARG001
    def h(a, b, *rest, alpha=None, **k):
        if alpha not in (None, 1):
            raise NpuEagerError("npu eager mode: %s with alpha=%r" %
                                (op, alpha))
        if reverse:
            a, b = b, a
        dev = a if _is_dev(a) else b
        shape = torch.broadcast_shapes(tuple(getattr(a, "shape", ())),
                                       tuple(getattr(b, "shape", ())))
        x, y = _operand(a, dev), _operand(b, dev)
        (out,) = _run(op, [x, y], [tuple(shape)], [dev.dtype])
        if inplace:
            if tuple(out.shape) != tuple(a.shape):
                raise NpuEagerError("npu eager mode: in-place %s would "
                                    "change the shape" % op)
            a._npu_buf = out._npu_buf
            return a
        return out
    return h


def _pair(v, n=2):
    return list(v) if isinstance(v, (list, tuple)) else [int(v)] * n


def _conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(padding, str):
        raise NpuEagerError("npu eager mode: conv2d padding=%r" % padding)
    r = _infer(torch.conv2d, x, w, b, stride, padding, dilation, groups)
    p = _pair(padding)
    ins = [x, w] + ([b] if b is not None else [])
    return _run("Conv", ins, [tuple(r.shape)], [r.dtype], {
        "strides": _pair(stride), "pads": p + p,
        "dilations": _pair(dilation), "group": int(groups)})[0]


def _batch_norm(x, mean, var, weight=None, bias=None, training=False,
                momentum=0.1, eps=1e-5):
    if training:
        raise NpuEagerError("npu eager mode: batch_norm in training mode "
                            "(call module.eval())")
    c = x.shape[1]
    weight = weight if weight is not None else _Const(np.ones(c, np.float32))
    bias = bias if bias is not None else _Const(np.zeros(c, np.float32))
    return _run("BatchNormalization", [x, weight, bias, mean, var],
                [tuple(x.shape)], [x.dtype], {"epsilon": float(eps)})[0]


def _max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1,
                ceil_mode=False, return_indices=False):
    if return_indices:
        raise NpuEagerError("npu eager mode: max_pool2d return_indices")
    r = _infer(F.max_pool2d, x, kernel_size, stride, padding, dilation,
               ceil_mode)
    p = _pair(padding)
    return _run("MaxPool", [x], [tuple(r.shape)], [r.dtype], {
        "kernel_shape": _pair(kernel_size),
        "strides": _pair(stride if stride else kernel_size), "pads": p + p,
        "dilations": _pair(dilation), "ceil_mode": int(ceil_mode)})[0]


def _avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    if divisor_override:
        raise NpuEagerError("npu eager mode: avg_pool2d divisor_override")
    r = _infer(F.avg_pool2d, x, kernel_size, stride, padding, ceil_mode,
               count_include_pad)
    p = _pair(padding)
    return _run("AveragePool", [x], [tuple(r.shape)], [r.dtype], {
        "kernel_shape": _pair(kernel_size),
        "strides": _pair(stride if stride else kernel_size), "pads": p + p,
        "ceil_mode": int(ceil_mode),
        "count_include_pad": int(count_include_pad)})[0]


def _adaptive_avg_pool2d(x, output_size):
    oh, ow = _pair(output_size)
    h, w = x.shape[-2], x.shape[-1]
    oh, ow = oh or h, ow or w
    if (oh, ow) == (1, 1):
        return _run("GlobalAveragePool", [x],
                    [tuple(x.shape[:-2]) + (1, 1)], [x.dtype])[0]
    if h % oh or w % ow:
        raise NpuEagerError("npu eager mode: adaptive_avg_pool2d from "
                            "%dx%d to %dx%d" % (h, w, oh, ow))
    k = [h // oh, w // ow]
    return _run("AveragePool", [x], [tuple(x.shape[:-2]) + (oh, ow)],
                [x.dtype], {"kernel_shape": k, "strides": k})[0]


def _reshape_to(x, shape):
    return _run("Reshape", [x, _Const(np.array(shape, np.int64))],
                [tuple(shape)], [x.dtype])[0]


def _flatten(x, start_dim=0, end_dim=-1):
    return _reshape_to(x, tuple(_infer(torch.flatten, x, start_dim,
                                       end_dim).shape))


def _reshape(x, *shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple, torch.Size)):
        shape = tuple(shape[0])
    return _reshape_to(x, tuple(_infer(torch.reshape, x, shape).shape))


def _linear(x, w, b=None):
    r = _infer(F.linear, x, w, b)
    if len(x.shape) == 2:
        ins = [x, w] + ([b] if b is not None else [])
        return _run("Gemm", ins, [tuple(r.shape)], [r.dtype],
                    {"transB": 1})[0]
    wt = _run("Transpose", [w], [tuple(w.shape[::-1])], [w.dtype],
              {"perm": [1, 0]})[0]
    y = _run("MatMul", [x, wt], [tuple(r.shape)], [r.dtype])[0]
    if b is None:
        return y
    return _run("Add", [y, b], [tuple(r.shape)], [r.dtype])[0]


def _matmul(a, b):
    r = _infer(torch.matmul, a, b)
    return _run("MatMul", [_operand(a, b), _operand(b, a)],
                [tuple(r.shape)], [r.dtype])[0]


def _softmax(x, dim=None, _stacklevel=3, dtype=None):
    if dim is None or dtype is not None:
        raise NpuEagerError("npu eager mode: softmax needs dim, no dtype")
    return _run("Softmax", [x], [tuple(x.shape)], [x.dtype],
                {"axis": int(dim)})[0]


def _permute(x, *dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    dims = [d % len(x.shape) for d in dims]
    shape = tuple(x.shape[d] for d in dims)
    return _run("Transpose", [x], [shape], [x.dtype], {"perm": dims})[0]


def _transpose(x, d0, d1):
    n = len(x.shape)
    perm = list(range(n))
    perm[d0 % n], perm[d1 % n] = perm[d1 % n], perm[d0 % n]
    return _permute(x, perm)


def _cat(tensors, dim=0):
    r = _infer(torch.cat, list(tensors), dim)
    return _run("Concat", list(tensors), [tuple(r.shape)], [r.dtype],
                {"axis": int(dim)})[0]


def _mean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        raise NpuEagerError("npu eager mode: mean with dtype")
    r = _infer(torch.mean, x) if dim is None else \
        _infer(torch.mean, x, dim, keepdim)
    axes = list(range(len(x.shape))) if dim is None else _pair(dim, 1)
    return _run("ReduceMean", [x], [tuple(r.shape)], [r.dtype],
                {"axes": axes, "keepdims": int(keepdim)})[0]


def _identity(x, *a, **k):
    return x


def _to(x, *args, **kwargs):
    dev = kwargs.get("device", args[0] if args else None)
    if isinstance(dev, (str, torch.device)) and \
            torch.device(dev).type == "cpu":
        return _to_cpu(x)
    if isinstance(dev, torch.dtype) or "dtype" in kwargs:
        raise NpuEagerError("npu eager mode: dtype conversion (Tensor.to)")
    return x


def _numpy(x):
    return _to_cpu(x).numpy()


def _clone(x, *a, **k):
    return _run("Identity", [x], [tuple(x.shape)], [x.dtype])[0]


_HANDLERS = {}
_META = set()
if torch is not None:
    T = torch.Tensor
    _META = {T.dim, T.size, T.numel, T.ndimension, T.nelement,
             T.__len__, T.element_size, T.is_floating_point,
             T.is_contiguous, T.requires_grad_, T.__hash__,
             T.__format__}
    _HANDLERS.update({
        torch.conv2d: _conv2d, F.conv2d: _conv2d,
        F.batch_norm: _batch_norm, torch.batch_norm:
            lambda x, w, b, m, v, tr, mo, eps, *_: _batch_norm(
                x, m, v, w, b, tr, mo, eps),
        F.relu: _unary("Relu"), torch.relu: _unary("Relu"),
        T.relu: _unary("Relu"), torch.relu_: _unary_("Relu"),
        T.relu_: _unary_("Relu"),
        torch.sigmoid: _unary("Sigmoid"), T.sigmoid: _unary("Sigmoid"),
        F.sigmoid: _unary("Sigmoid"),
        torch.tanh: _unary("Tanh"), T.tanh: _unary("Tanh"),
        F.tanh: _unary("Tanh"),
        torch.exp: _unary("Exp"), T.exp: _unary("Exp"),
        torch.sqrt: _unary("Sqrt"), T.sqrt: _unary("Sqrt"),
        torch.abs: _unary("Abs"), T.abs: _unary("Abs"),
        torch.neg: _unary("Neg"), T.neg: _unary("Neg"),
        T.__neg__: _unary("Neg"),
        torch.add: _binary("Add", torch.add), T.add: _binary("Add", T.add),
        T.__add__: _binary("Add", torch.add),
        T.__radd__: _binary("Add", torch.add, reverse=True),
        T.add_: _binary("Add", torch.add, inplace=True),
        T.__iadd__: _binary("Add", torch.add, inplace=True),
        torch.sub: _binary("Sub", torch.sub), T.sub: _binary("Sub", T.sub),
        T.__sub__: _binary("Sub", torch.sub),
        T.__rsub__: _binary("Sub", torch.sub, reverse=True),
        torch.mul: _binary("Mul", torch.mul), T.mul: _binary("Mul", T.mul),
        T.__mul__: _binary("Mul", torch.mul),
        T.__rmul__: _binary("Mul", torch.mul, reverse=True),
        T.mul_: _binary("Mul", torch.mul, inplace=True),
        T.__imul__: _binary("Mul", torch.mul, inplace=True),
        torch.div: _binary("Div", torch.div), T.div: _binary("Div", T.div),
        T.__truediv__: _binary("Div", torch.div),
        T.__rtruediv__: _binary("Div", torch.div, reverse=True),
        F.max_pool2d: _max_pool2d, torch.max_pool2d: _max_pool2d,
        F.avg_pool2d: _avg_pool2d,
        F.adaptive_avg_pool2d: _adaptive_avg_pool2d,
        torch.flatten: _flatten, T.flatten: _flatten,
        torch.reshape: _reshape, T.reshape: _reshape, T.view: _reshape,
        F.linear: _linear, torch.matmul: _matmul, T.matmul: _matmul,
        T.__matmul__: _matmul,
        F.softmax: _softmax, torch.softmax: _softmax, T.softmax: _softmax,
        torch.permute: _permute, T.permute: _permute,
        torch.transpose: _transpose, T.transpose: _transpose,
        torch.cat: _cat, torch.mean: _mean, T.mean: _mean,
        T.cpu: _to_cpu, T.numpy: _numpy, T.to: _to,
        T.detach: _identity, T.contiguous: _identity,
        torch.clone: _clone, T.clone: _clone,
        F.dropout: lambda x, p=0.5, training=False, inplace=False:
            x if not training else (_ for _ in ()).throw(NpuEagerError(
                "npu eager mode: dropout in training mode")),
    })
