# SPDX-License-Identifier: MIT
"""ctypes declarations of libnpurt.so.1 (npurt.h) and libnpuc.so.1 (npuc.h).

The libraries are found, in order, through:
  1. $NPU_LIB_DIR (a directory holding libnpurt.so.1 and libnpuc.so.1);
  2. the build tree this package sits in (python/npu -> ../../build/lib,
     or $BUILD/lib);
  3. the lib directory of the prefix the package is installed in
     ($(PREFIX)/lib/python3/dist-packages/npu -> $(PREFIX)/lib);
  4. the system's loader (ld.so.cache, LD_LIBRARY_PATH).
Nothing here computes what the C libraries compute: these are the
prototypes, the error translation and the library search.
"""

import ctypes
import os

c_int, c_uint32, c_uint64, c_int64, c_size_t = (
    ctypes.c_int, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int64,
    ctypes.c_size_t)
c_char_p, c_void_p, c_double, POINTER = (
    ctypes.c_char_p, ctypes.c_void_p, ctypes.c_double, ctypes.POINTER)

MAX_RANK = 6
DIM_DYNAMIC = (1 << 64) - 1


class NpuError(RuntimeError):
    """A libnpurt or libnpuc call failed.

    code: the npurt_status name ("NPURT_ERR_SHAPE"), function: the C call,
    reason and action: the runtime's last error.
    """

    def __init__(self, code, function, reason, action=""):
        self.code = code
        self.function = function
        self.reason = reason
        self.action = action
        msg = "%s: %s: %s" % (function, code, reason)
        if action:
            msg += " (%s)" % action
        super().__init__(msg)


class Error(ctypes.Structure):
    _fields_ = [("code", c_int), ("reason", ctypes.c_char * 384),
                ("action", ctypes.c_char * 192),
                ("function", ctypes.c_char * 48)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("is_kernel", c_int),
                ("model", c_uint32), ("uapi_version", c_uint32),
                ("features", c_uint64), ("num_cores", c_uint32),
                ("num_queues", c_uint32), ("num_semaphores", c_uint32),
                ("vram_size", c_uint64), ("numa_node", c_int)]


class MemStats(ctypes.Structure):
    _fields_ = [(n, c_uint64) for n in (
        "allocated_bytes_current", "allocated_bytes_peak",
        "reserved_bytes_current", "reserved_bytes_peak", "num_allocs",
        "num_frees", "num_alloc_retries", "num_ooms", "model_bytes",
        "device_total", "device_used", "device_largest_free",
        "device_peak_used", "device_compactions", "context_used")]


class TensorDesc(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("dtype", c_int), ("rank", c_uint32),
                ("dims", c_uint64 * MAX_RANK),
                ("dim_names", c_char_p * MAX_RANK), ("layout", c_char_p),
                ("size", c_size_t)]


class ModelInfo(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("num_inputs", c_uint32),
                ("num_outputs", c_uint32), ("num_variants", c_uint32),
                ("num_streams", c_uint32), ("current_variant", c_uint32),
                ("weights_bytes", c_uint64), ("workspace_bytes", c_uint64),
                ("load_ns", c_uint64)]


class Io(ctypes.Structure):
    _fields_ = [("mem", c_void_p), ("host", c_void_p), ("offset", c_size_t),
                ("size", c_size_t)]


class CacheStats(ctypes.Structure):
    _fields_ = [("hits", c_uint64), ("misses", c_uint64),
                ("evictions", c_uint64), ("entries", c_uint32),
                ("capacity", c_uint32), ("compile_ns", c_uint64),
                ("load_ns", c_uint64), ("last_compile_ns", c_uint64),
                ("device_bytes", c_uint64)]


class OnnxOptions(ctypes.Structure):
    _fields_ = [("size", c_size_t), ("input_shapes", c_char_p),
                ("dynamic_dims", c_char_p), ("dynamic_batch", c_char_p),
                ("shape_cache_size", c_uint32), ("mem_strategy", c_int),
                ("max_shapes", c_char_p), ("opt_level", c_int),
                ("max_streams", c_uint32), ("use_compile_cache", c_int),
                ("cache_dir", c_char_p)]


TOKEN_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_uint32, c_int64)


class GenerateOptions(ctypes.Structure):
    """npurt_generate_options (npurt.h, since 1.5)."""
    _fields_ = [("size", c_size_t), ("max_new_tokens", c_uint32),
                ("eos_token_id", c_int64), ("input_ids", c_char_p),
                ("logits", c_char_p), ("on_token", TOKEN_FN),
                ("user", c_void_p)]


class GenerateStats(ctypes.Structure):
    """npurt_generate_stats (npurt.h, since 1.5)."""
    _fields_ = [("prompt_tokens", c_uint32), ("new_tokens", c_uint32),
                ("prompt_ns", c_uint64), ("decode_ns", c_uint64),
                ("tokens_per_s", c_double), ("cache_tensors", c_uint32),
                ("cache_bytes", c_uint64), ("cache_host_bytes", c_uint64),
                ("h2d_bytes", c_uint64), ("d2h_bytes", c_uint64),
                ("shapes_compiled", c_uint32), ("compile_ns", c_uint64)]


class NpucOptions(ctypes.Structure):
    _fields_ = [("size", c_size_t), ("input_shapes", c_char_p),
                ("dynamic_batch", c_char_p), ("dynamic_dims", c_char_p),
                ("input_format", c_char_p), ("opt_level", c_int),
                ("disable_passes", c_char_p), ("use_cache", c_int),
                ("cache_dir", c_char_p), ("max_streams", c_uint32),
                ("target", c_char_p), ("plan_budget_ms", c_uint32),
                ("dump_ir_after", c_char_p), ("dump_file", c_void_p),
                ("target_device", c_char_p), ("symbol_default", c_int64),
                ("insert_op_conf", c_char_p), ("plugins", c_char_p),
                ("no_host_engine", c_int), ("precision", c_char_p),
                ("keep_dtype", c_char_p)]


class AippParams(ctypes.Structure):
    _fields_ = [("csc", c_int), ("rbuv_swap", c_int),
                ("matrix", ctypes.c_int16 * 9),
                ("input_bias", ctypes.c_uint8 * 3),
                ("output_bias", ctypes.c_uint8 * 3),
                ("mean", ctypes.c_uint8 * 4), ("min", ctypes.c_float * 4),
                ("var_reci", ctypes.c_float * 4),
                ("padding_value", ctypes.c_float)]


class TaskRecord(ctypes.Structure):
    _fields_ = [("start_ns", c_uint64), ("end_ns", c_uint64),
                ("model_stream", c_uint32), ("task", c_uint32),
                ("core", c_uint32), ("hw_queue", c_uint32),
                ("status", c_uint32), ("op", c_char_p), ("node", c_char_p)]


STAT_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, c_int64)


class DumpTensor(ctypes.Structure):
    """npurt_dump_tensor (npurt.h)."""
    _fields_ = [("task", c_uint32), ("model_stream", c_uint32),
                ("stream_task", c_uint32), ("op", c_char_p),
                ("node", c_char_p), ("nodes", POINTER(c_char_p)),
                ("num_nodes", c_uint32), ("name", c_char_p),
                ("dtype", c_int), ("rank", c_uint32),
                ("dims", c_uint64 * 6), ("stored_layout", c_char_p),
                ("data", c_void_p), ("size", c_size_t),
                ("device_ns", c_uint64), ("num_inputs", c_uint32),
                ("input_names", c_char_p * 6)]


DUMP_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(DumpTensor))


class DumpConfig(ctypes.Structure):
    """npurt_dump_config (npurt.h); a NULL select dumps everything."""
    _fields_ = [("select", DUMP_FN), ("fn", DUMP_FN), ("user", c_void_p)]

_H = c_void_p  # every opaque handle
_PROTOS = {
    "npurt_last_error": (POINTER(Error), []),
    "npurt_status_str": (c_char_p, [c_int]),
    "npurt_version": (c_uint32, []),
    "npurt_init": (c_int, [c_uint32]),
    "npurt_device_count": (c_int, [POINTER(c_uint32)]),
    "npurt_device_open": (c_int, [c_uint32, POINTER(_H)]),
    "npurt_device_close": (c_int, [_H]),
    "npurt_device_get_info": (c_int, [_H, POINTER(DeviceInfo)]),
    "npurt_context_create": (c_int, [_H, c_uint32, POINTER(_H)]),
    "npurt_context_destroy": (c_int, [_H]),
    "npurt_context_synchronize": (c_int, [_H]),
    "npurt_mem_alloc": (c_int, [_H, c_size_t, POINTER(_H)]),
    "npurt_mem_free": (c_int, [_H]),
    "npurt_mem_size": (c_size_t, [_H]),
    "npurt_memcpy_h2d": (c_int, [_H, c_size_t, c_void_p, c_size_t]),
    "npurt_memcpy_d2h": (c_int, [c_void_p, _H, c_size_t, c_size_t]),
    "npurt_mem_get_stats": (c_int, [_H, POINTER(MemStats)]),
    "npurt_mem_empty_cache": (c_int, [_H]),
    "npurt_mem_set_fraction": (c_int, [_H, c_double]),
    "npurt_mem_reset_peak_stats": (c_int, [_H]),
    "npurt_mem_foreach_stat": (c_int, [_H, STAT_FN, c_void_p]),
    "npurt_model_load_file": (c_int, [_H, c_char_p, POINTER(_H)]),
    "npurt_model_load_memory": (c_int, [_H, c_void_p, c_size_t,
                                        POINTER(_H)]),
    "npurt_onnx_options_init": (None, [POINTER(OnnxOptions)]),
    "npurt_model_load_onnx": (c_int, [_H, c_char_p, POINTER(OnnxOptions),
                                      POINTER(_H)]),
    "npurt_model_load_onnx_memory": (c_int, [_H, c_void_p, c_size_t,
                                             POINTER(OnnxOptions),
                                             POINTER(_H)]),
    "npurt_model_unload": (c_int, [_H]),
    "npurt_model_get_info": (c_int, [_H, POINTER(ModelInfo)]),
    "npurt_model_get_input": (c_int, [_H, c_uint32, c_int,
                                      POINTER(TensorDesc)]),
    "npurt_model_get_output": (c_int, [_H, c_uint32, c_int,
                                       POINTER(TensorDesc)]),
    "npurt_model_variant_name": (c_int, [_H, c_uint32, POINTER(c_char_p)]),
    "npurt_model_select_shapes": (c_int, [_H, POINTER(POINTER(c_uint64))]),
    "npurt_model_execute": (c_int, [_H, POINTER(Io), c_uint32, POINTER(Io),
                                    c_uint32]),
    "npurt_model_get_shape_cache_stats": (c_int, [_H, POINTER(CacheStats)]),
    "npurt_aipp_params_pack": (c_int, [POINTER(AippParams), c_void_p,
                                       c_size_t]),
    "npurt_generate_options_init": (None, [POINTER(GenerateOptions)]),
    "npurt_model_generate": (c_int, [_H, POINTER(c_int64), c_uint32,
                                     POINTER(GenerateOptions),
                                     POINTER(c_int64), POINTER(c_uint32),
                                     POINTER(GenerateStats)]),
    "npurt_model_set_profiling": (c_int, [_H, c_int]),
    "npurt_model_set_dump": (c_int, [_H, POINTER(DumpConfig)]),
    "npurt_model_get_profile": (c_int, [_H, POINTER(TaskRecord), c_uint32,
                                        POINTER(c_uint32)]),
    "npurt_exec_create": (c_int, [_H, POINTER(_H)]),
    "npurt_exec_destroy": (c_int, [_H]),
    "npurt_exec_select_shapes": (c_int, [_H, POINTER(POINTER(c_uint64))]),
    "npurt_exec_get_output": (c_int, [_H, c_uint32, POINTER(TensorDesc)]),
    "npurt_exec_run": (c_int, [_H, POINTER(Io), c_uint32, POINTER(Io),
                               c_uint32]),
}

_NPUC_PROTOS = {
    "npuc_options_init": (None, [POINTER(NpucOptions)]),
    "npuc_compile_memory": (c_int, [c_void_p, c_size_t, c_char_p, c_char_p,
                                    POINTER(NpucOptions), POINTER(_H),
                                    c_char_p, c_size_t]),
    "npuc_result_model": (c_void_p, [_H, POINTER(c_size_t)]),
    "npuc_result_time_ms": (c_double, [_H, c_int]),
    "npuc_result_free": (None, [_H]),
    "npuc_version": (c_char_p, []),
}


def _candidates(soname):
    d = os.environ.get("NPU_LIB_DIR")
    if d:
        yield os.path.join(d, soname)
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    build = os.environ.get("BUILD", "build")
    yield os.path.join(root, build, "lib", soname)
    if build != "build":
        yield os.path.join(root, "build", "lib", soname)
    # Installed: $(PREFIX)/lib/python3/dist-packages/npu -> $(PREFIX)/lib
    prefix_lib = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    yield os.path.join(prefix_lib, soname)
    yield soname  # the system loader


def _open(soname):
    errors = []
    for path in _candidates(soname):
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError(
        "cannot load %s (%s); set NPU_LIB_DIR to the directory holding it, "
        "build the tree with `make`, or `make install`"
        % (soname, "; ".join(errors) or "not found"))


def _declare(lib, protos):
    for name, (res, args) in protos.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


rt, rt_path = _open("libnpurt.so.1")
_declare(rt, _PROTOS)

_npuc = None


def npuc():
    """libnpuc.so.1, opened on first use (as libnpurt itself does)."""
    global _npuc
    if _npuc is None:
        lib, _ = _open("libnpuc.so.1")
        _declare(lib, _NPUC_PROTOS)
        _npuc = lib
    return _npuc


def init_options(init, cls):
    """cls filled by the C library's init function (npuc_options_init,
    npurt_onnx_options_init), which writes sizeof() of its own struct: it
    runs on a buffer larger than any version of the struct, and a struct
    size other than this package's (a libnpuc or libnpurt of another
    version) is an error rather than a write past a ctypes object."""
    buf = ctypes.create_string_buffer(max(4096, 2 * ctypes.sizeof(cls)))
    init(ctypes.cast(buf, POINTER(cls)))
    size = c_size_t.from_buffer(buf).value
    if size != ctypes.sizeof(cls):
        raise RuntimeError("the C library's %s is %d bytes, this package's "
                           "%d: the package and the library are of "
                           "different versions" % (cls.__name__, size,
                                                   ctypes.sizeof(cls)))
    return cls.from_buffer_copy(buf, 0)


def check(status, what=None):
    """Raises NpuError with the thread's last error unless status is 0."""
    if status == 0:
        return
    e = rt.npurt_last_error().contents
    code = rt.npurt_status_str(status).decode()
    fn = e.function.decode() or (what or "libnpurt")
    reason = e.reason.decode() if e.code == status else ""
    action = e.action.decode() if e.code == status else ""
    if e.code != status or not reason:
        reason = reason or code
    raise NpuError(code, fn, reason, action)
