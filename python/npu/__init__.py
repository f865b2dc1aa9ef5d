# SPDX-License-Identifier: MIT
"""npu: Python package of the NPU stack (a thin layer over libnpurt.so.1
and libnpuc.so.1 through ctypes; numpy in and out).

    import npu
    sess = npu.InferenceSession("model.onnx")       # or a .om, or bytes
    y, = sess.run(None, {"x": x})
    npu.memory_allocated(), npu.memory_summary()
    fn = npu.compile(torch_module, (example,))       # graph mode
    m = npu.to_device(torch_module); y = m(npu.to_device(x)).cpu()  # eager

Documentation/python.rst is the guide and reference.
"""

from ._lib import NpuError, rt_path as library_path
from ._runtime import device_count, device_info, synchronize
from .memory import (Buffer, empty_cache, max_memory_allocated, max_memory_reserved,
                     memory_allocated, memory_reserved, memory_stats,
                     memory_summary, reset_peak_memory_stats,
                     set_per_process_memory_fraction)
from .session import InferenceSession, NodeArg
from .compiler import CompiledModule, compile, compile_onnx, export_onnx
from .media import aipp_params

InferSession = InferenceSession  # ais_bench's name


def to_device(obj, device=0):
    """Eager mode: a torch tensor, numpy array or module to the NPU
    (npu.eager; imports torch on first use)."""
    from . import eager
    return eager.to_device(obj, device)


def __getattr__(name):
    if name in ("Tensor", "NpuEagerError", "op_cache_stats"):
        from . import eager
        return getattr(eager, name)
    raise AttributeError("module 'npu' has no attribute %r" % name)

__version__ = "1.5.0"

__all__ = [
    "NpuError", "Buffer", "library_path", "device_count", "device_info",
    "synchronize", "empty_cache", "max_memory_allocated",
    "max_memory_reserved", "memory_allocated", "memory_reserved",
    "memory_stats", "memory_summary", "reset_peak_memory_stats",
    "set_per_process_memory_fraction", "InferenceSession", "InferSession",
    "NodeArg", "CompiledModule", "compile", "compile_onnx", "export_onnx",
    "aipp_params",
    "to_device",
]
