# SPDX-License-Identifier: MIT
"""Compiling: torch modules to a device callable, ONNX to .om bytes.

npu.compile() is the graph mode: the module is exported with torch.onnx
(to bytes, in memory) and the ONNX model is loaded with libnpurt's online
loader, which compiles it through libnpuc. npu.compile_onnx() calls
libnpuc directly and returns the .om bytes (what `npuc` writes).
"""

import ctypes
import io

import numpy as np

from . import _lib
from .session import InferenceSession


def export_onnx(module, example_inputs, opset_version=17, **kwargs):
    """Exports @module (eval mode) with torch.onnx to ONNX bytes."""
    import torch

    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    names = ["input_%d" % i for i in range(len(example_inputs))]
    was_training = module.training
    module.eval()
    buf = io.BytesIO()
    try:
        # Grad enabled: a TransformerEncoder exported under no_grad hits
        # an unexportable fast path (Documentation/python.rst).
        with torch.enable_grad():
            torch.onnx.export(module, example_inputs, buf,
                              input_names=names,
                              opset_version=opset_version, **kwargs)
    finally:
        module.train(was_training)
    return buf.getvalue()


class CompiledModule:
    """A torch module compiled for the NPU: call it with torch tensors or
    numpy arrays; returns torch tensors (numpy arrays when called with
    numpy), one or a tuple as the module does."""

    def __init__(self, module, example_inputs, device=0, **options):
        self.onnx = export_onnx(module, example_inputs)
        self.session = InferenceSession(self.onnx, device=device, **options)

    def __call__(self, *args):
        torch_in = any(type(a).__module__.startswith("torch") for a in args)
        arrays = [a.detach().cpu().numpy()
                  if type(a).__module__.startswith("torch") else np.asarray(a)
                  for a in args]
        outs = self.session.infer(arrays)
        if torch_in:
            import torch
            outs = [torch.from_numpy(o) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)


def compile(module, example_inputs, device=0, **options):  # noqa: A001
    """torch.compile(model, backend="npu") for torch 1.13: returns a
    callable that runs @module on the NPU. Input shapes other than the
    examples' compile on first use (the model's shape cache)."""
    return CompiledModule(module, example_inputs, device=device, **options)


def compile_onnx(model, input_shapes=None, opt_level=2, use_cache=False,
                 name="model", insert_op_conf=None):
    """Compiles ONNX (a path or bytes) to .om bytes with libnpuc.
    @insert_op_conf: the text of an AIPP config (npuc --insert-op-conf)."""
    lib = _lib.npuc()
    if not isinstance(model, (bytes, bytearray)):
        with open(model, "rb") as f:
            model = f.read()
    data = bytes(model)
    o = _lib.init_options(lib.npuc_options_init, _lib.NpucOptions)
    o.opt_level = opt_level
    o.use_cache = 1 if use_cache else 0
    if input_shapes:
        o.input_shapes = input_shapes.encode()
    if insert_op_conf:
        o.insert_op_conf = insert_op_conf.encode()
    res = ctypes.c_void_p()
    err = ctypes.create_string_buffer(1024)
    ret = lib.npuc_compile_memory(data, len(data), name.encode(), None,
                                  ctypes.byref(o), ctypes.byref(res), err,
                                  len(err))
    if ret:
        raise _lib.NpuError("NPUC_ERROR", "npuc_compile_memory",
                            err.value.decode(errors="replace"))
    try:
        size = ctypes.c_size_t()
        ptr = lib.npuc_result_model(res, ctypes.byref(size))
        return ctypes.string_at(ptr, size.value)
    finally:
        lib.npuc_result_free(res)
