# SPDX-License-Identifier: MIT
"""InferenceSession: a loaded model, run with numpy arrays.

The API of ONNX Runtime's InferenceSession (run, get_inputs, get_outputs)
and of ais_bench's InferSession (infer), over npurt_model_*.
"""

import ctypes
import os
import threading
import time

import numpy as np

from . import _lib, _runtime
from ._lib import rt, check

OM_MAGIC = b"\x89NPUOM\r\n"

# npurt_dtype -> numpy
DTYPES = {1: np.dtype(np.float32), 2: np.dtype(np.float16),
          3: np.dtype(np.int8), 4: np.dtype(np.uint8),
          5: np.dtype(np.int32), 6: np.dtype(np.int64),
          7: np.dtype(np.bool_), 9: np.dtype(np.float64),
          10: np.dtype(np.uint16),      # bfloat16 bits (numpy has none)
          11: np.dtype(np.int16), 12: np.dtype(np.uint16),
          13: np.dtype(np.uint32), 14: np.dtype(np.uint64)}
ORT_TYPES = {1: "tensor(float)", 2: "tensor(float16)", 3: "tensor(int8)",
             4: "tensor(uint8)", 5: "tensor(int32)", 6: "tensor(int64)",
             7: "tensor(bool)", 9: "tensor(double)", 10: "tensor(bfloat16)",
             11: "tensor(int16)", 12: "tensor(uint16)",
             13: "tensor(uint32)", 14: "tensor(uint64)"}


class NodeArg:
    """An input or output: name, shape (ints, or the symbol's name for a
    dynamic dim), type ("tensor(float)", as ONNX Runtime) and dtype (the
    numpy dtype), layout ("NCHW", "ND", ...)."""

    __slots__ = ("name", "shape", "type", "dtype", "layout")

    def __init__(self, name, shape, dtype_code, layout):
        self.name = name
        self.shape = shape
        self.type = ORT_TYPES.get(dtype_code, "tensor(unknown)")
        self.dtype = DTYPES.get(dtype_code)
        self.layout = layout

    def __repr__(self):
        return "NodeArg(name=%r, type=%r, shape=%r)" % (
            self.name, self.type, self.shape)


def _node_arg(desc):
    shape = []
    for i in range(desc.rank):
        if desc.dims[i] == _lib.DIM_DYNAMIC:
            sym = desc.dim_names[i]
            shape.append(sym.decode() if sym else None)
        else:
            shape.append(int(desc.dims[i]))
    return NodeArg(desc.name.decode(), shape, desc.dtype,
                   (desc.layout or b"ND").decode())


class InferenceSession:
    """A model loaded on an NPU device.

    @model: a path to a .om or .onnx file, or the bytes of either (an ONNX
    model is compiled online by libnpurt through libnpuc, any input shape
    accepted: unseen shapes compile on demand into the model's shape
    cache). @device: index or "npu:N".

    Keyword options for ONNX models (npurt_onnx_options): input_shapes
    ("x:1,3,224,224"), dynamic_dims, dynamic_batch, shape_cache_size,
    opt_level, use_compile_cache, cache_dir.

    run() and infer() may be called from several threads. For a .om each
    thread runs in an execution context of its own (npurt_exec: its own
    workspace and shape variant, the weights shared), so the threads'
    executions run at once; executions of an ONNX model (whose online
    shape cache is the model's state) are serialised.
    """

    def __init__(self, model, device=0, **options):
        self._model = None
        self._lock = threading.Lock()
        self._execs = {}  # thread id -> npurt_exec (.om models)
        self._profile = None  # runs recorded since start_profiling()
        self._dumping = False  # dump() runs on the model, not a context
        self._generating = threading.local()  # inside generate()
        self.device = device
        _, self._ctx = _runtime.context(device)
        handle = ctypes.c_void_p()
        self.is_onnx = False
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            if data[:len(OM_MAGIC)] == OM_MAGIC:
                self._check_no_options(options)
                check(rt.npurt_model_load_memory(
                    self._ctx, data, len(data), ctypes.byref(handle)))
            else:
                opts = self._onnx_options(options)
                self.is_onnx = True
                check(rt.npurt_model_load_onnx_memory(
                    self._ctx, data, len(data), ctypes.byref(opts),
                    ctypes.byref(handle)))
        else:
            path = os.fspath(model)
            with open(path, "rb") as f:
                head = f.read(len(OM_MAGIC))
            if head == OM_MAGIC:
                self._check_no_options(options)
                check(rt.npurt_model_load_file(
                    self._ctx, path.encode(), ctypes.byref(handle)))
            else:
                opts = self._onnx_options(options)
                self.is_onnx = True
                check(rt.npurt_model_load_onnx(
                    self._ctx, path.encode(), ctypes.byref(opts),
                    ctypes.byref(handle)))
        self._model = handle
        _runtime.sessions.add(self)
        info = self._info()
        self._inputs = [self._desc(rt.npurt_model_get_input, i, 1)
                        for i in range(info.num_inputs)]
        self._outputs = [self._desc(rt.npurt_model_get_output, i, 1)
                         for i in range(info.num_outputs)]
        self._in_args = [_node_arg(d) for d in self._inputs]
        self._out_args = [_node_arg(d) for d in self._outputs]
        self._in_index = {a.name: i for i, a in enumerate(self._in_args)}
        self._out_index = {a.name: i for i, a in enumerate(self._out_args)}

    @staticmethod
    def _check_no_options(options):
        if options:
            raise TypeError("options %s apply to ONNX models only (a .om "
                            "is compiled already)" % ", ".join(options))

    @staticmethod
    def _onnx_options(options):
        opts = _lib.init_options(rt.npurt_onnx_options_init, _lib.OnnxOptions)
        for k, v in options.items():
            if not hasattr(opts, k) or k == "size":
                raise TypeError("unknown option %r" % k)
            if isinstance(v, str):
                v = v.encode()
            setattr(opts, k, v)
        return opts

    def _desc(self, fn, index, generic):
        d = _lib.TensorDesc()
        check(fn(self._model, index, generic, ctypes.byref(d)))
        return d

    def _info(self):
        info = _lib.ModelInfo()
        check(rt.npurt_model_get_info(self._model, ctypes.byref(info)))
        return info

    # ---- metadata ----
    def get_inputs(self):
        """The inputs, as ONNX Runtime's NodeArg (name, shape, type)."""
        return list(self._in_args)

    def get_outputs(self):
        """The outputs (shapes of the generic description)."""
        return list(self._out_args)

    def get_modelmeta(self):
        """A dict from npurt_model_get_info()."""
        info = self._info()
        return {"name": (info.name or b"").decode(),
                "num_variants": info.num_variants,
                "num_streams": info.num_streams,
                "current_variant": info.current_variant,
                "weights_bytes": info.weights_bytes,
                "workspace_bytes": info.workspace_bytes,
                "load_ms": info.load_ns / 1e6}

    def shape_cache_stats(self):
        """The online shape cache of an ONNX model (a dict)."""
        s = _lib.CacheStats()
        check(rt.npurt_model_get_shape_cache_stats(self._model,
                                                   ctypes.byref(s)))
        return {k: getattr(s, k) for k, _ in s._fields_}

    # ---- running ----
    def _prepare(self, arrays):
        out = []
        for arg, a in zip(self._in_args, arrays):
            a = np.asarray(a)
            if arg.dtype is not None and a.dtype != arg.dtype:
                if not np.can_cast(a.dtype, arg.dtype, casting="same_kind"):
                    raise TypeError("input %r is %s, the model takes %s" % (
                        arg.name, a.dtype, arg.dtype))
                a = a.astype(arg.dtype)
            if a.ndim != len(arg.shape):
                raise ValueError("input %r has rank %d (shape %s), the "
                                 "model takes rank %d (%s)" % (
                                     arg.name, a.ndim, a.shape,
                                     len(arg.shape), arg.shape))
            # A C-contiguous array is passed as it is (no copy).
            out.append(np.ascontiguousarray(a))
        return out

    def _execute(self, arrays):
        if self._model is None:
            raise RuntimeError("the session is closed")
        if getattr(self._generating, "active", False):
            raise RuntimeError("a run from inside generate()'s on_token: "
                               "the session is generating on this thread")
        n_in = len(self._in_args)
        if len(arrays) != n_in:
            raise ValueError("the model takes %d inputs, got %d" %
                             (n_in, len(arrays)))
        arrays = self._prepare(arrays)
        ins = (_lib.Io * max(n_in, 1))()
        for i, a in enumerate(arrays):
            ins[i].host = a.ctypes.data
            ins[i].size = a.nbytes
        # The variant (or, online, the compiled shape) is chosen from the
        # inputs' shapes; a shape the model cannot take is refused here,
        # before any byte is copied.
        dims = [(ctypes.c_uint64 * max(a.ndim, 1))(*a.shape)
                for a in arrays]
        ptrs = (ctypes.POINTER(ctypes.c_uint64) * max(n_in, 1))(
            *[ctypes.cast(d, ctypes.POINTER(ctypes.c_uint64))
              for d in dims])
        n_out = len(self._out_args)
        outs = (_lib.Io * max(n_out, 1))()
        exe = None if self._profile is not None or self._dumping \
            else self._thread_exec()
        if exe is None:
            # A model compiled online: its shape cache is the model's
            # state, so its executions are serialised.
            with self._lock:
                check(rt.npurt_model_select_shapes(self._model, ptrs))
                outs_np = self._alloc_outputs(
                    outs, rt.npurt_model_get_output, self._model)
                t0 = time.perf_counter_ns()
                check(rt.npurt_model_execute(self._model, ins, n_in, outs,
                                             n_out))
                if self._profile is not None:
                    self._collect_profile(t0, time.perf_counter_ns())
                return self._shape_outputs(outs_np, rt.npurt_model_get_output,
                                           self._model)
        # A .om: this thread's execution context (its own workspace and
        # variant), so threads run at once; the GIL is released in C.
        check(rt.npurt_exec_select_shapes(exe, ptrs))
        outs_np = self._alloc_outputs(outs, self._exec_output, exe)
        check(rt.npurt_exec_run(exe, ins, n_in, outs, n_out))
        return self._shape_outputs(outs_np, self._exec_output, exe)

    def dump(self, input_feed, select=None):
        """Runs once and returns every ONNX tensor the device computed, as
        npu-run --dump does (npurt_model_set_dump, Documentation/
        diagnosis.rst): a dict of ONNX tensor name -> numpy array in the
        ONNX layout (NC1HWC0 converted back), in execution order.
        @select: None (all), a collection of tensor names, or a function
        (name, op, onnx_nodes) -> bool. The run is serialised on the
        model and runs its streams one after the other."""
        if self._model is None:
            raise RuntimeError("the session is closed")
        names = None
        if select is not None and not callable(select):
            names = set(select)
        got = []

        def pick(user, t):
            d = t.contents
            name = d.name.decode()
            if names is not None:
                return int(name in names)
            nodes = [d.nodes[i].decode() for i in range(d.num_nodes)]
            return int(bool(select(name, (d.op or b"").decode(), nodes)))

        def take(user, t):
            d = t.contents
            dt = DTYPES.get(d.dtype)
            shape = tuple(int(d.dims[i]) for i in range(d.rank))
            raw = ctypes.string_at(d.data, d.size) if d.size else b""
            a = (np.frombuffer(raw, dtype=dt).reshape(shape).copy()
                 if dt is not None else np.frombuffer(raw, np.uint8).copy())
            got.append((d.name.decode(), a))
            return 0

        cfg = _lib.DumpConfig(
            _lib.DUMP_FN(pick) if select is not None else _lib.DUMP_FN(),
            _lib.DUMP_FN(take), None)
        with self._lock:
            check(rt.npurt_model_set_dump(self._model, ctypes.byref(cfg)))
            self._dumping = True
        try:
            self.run(None, input_feed)
        finally:
            with self._lock:
                rt.npurt_model_set_dump(self._model, None)
                self._dumping = False
        out = {}
        for name, a in got:
            out.setdefault(name, a)
        return out

    def start_profiling(self):
        """Records each later run's device tasks (npurt_model_set_profiling)
        until end_profiling(); runs are then serialised on the model."""
        with self._lock:
            check(rt.npurt_model_set_profiling(self._model, 1))
            self._profile = []

    def _collect_profile(self, t0, t1):
        cap = 4096
        recs = (_lib.TaskRecord * cap)()
        n = ctypes.c_uint32()
        check(rt.npurt_model_get_profile(self._model, recs, cap,
                                         ctypes.byref(n)))
        run = len(self._profile)
        tasks = [(r.start_ns, r.end_ns, r.model_stream, r.task, r.core,
                  r.hw_queue, r.status, (r.op or b"").decode(),
                  (r.node or b"").decode())
                 for r in recs[:min(n.value, cap)]]
        self._profile.append((run, t0, t1, tasks))

    def end_profiling(self, path=None):
        """Stops profiling and writes the runs since start_profiling() as
        a Chrome trace (Perfetto opens it): one track per model stream with
        each device task (op, node, core, status), and the host's run()
        calls. Returns the file's path (default: npu_profile_<time>.json,
        as ONNX Runtime names its own)."""
        import json
        with self._lock:
            if self._profile is None:
                raise RuntimeError("profiling was not started")
            check(rt.npurt_model_set_profiling(self._model, 0))
            runs, self._profile = self._profile, None
        if path is None:
            path = time.strftime("npu_profile_%Y-%m-%d_%H-%M-%S.json")
        # Both clocks are CLOCK_MONOTONIC (device timestamps and
        # perf_counter_ns on Linux).
        origin = min([t0 for _, t0, _, _ in runs] +
                     [t[0] for _, _, _, ts in runs for t in ts] or [0])
        ev = [{"ph": "M", "pid": 1, "name": "process_name",
               "args": {"name": "NPU: %s" % self.get_modelmeta()["name"]}},
              {"ph": "M", "pid": 2, "name": "process_name",
               "args": {"name": "host"}}]
        streams = {}
        for run, t0, t1, tasks in runs:
            ev.append({"ph": "X", "pid": 2, "tid": 0, "name": "run",
                       "ts": (t0 - origin) / 1e3, "dur": (t1 - t0) / 1e3,
                       "args": {"run": run}})
            for (s, e, stream, task, core, hwq, status, op, node) in tasks:
                streams.setdefault(stream, hwq)
                ev.append({"ph": "X", "pid": 1, "tid": stream, "name": op,
                           "ts": (s - origin) / 1e3, "dur": (e - s) / 1e3,
                           "args": {"task": task, "node": node,
                                    "core": core, "status": status,
                                    "run": run}})
        for stream, hwq in sorted(streams.items()):
            ev.append({"ph": "M", "pid": 1, "tid": stream,
                       "name": "thread_name",
                       "args": {"name": "stream %d (hw queue %d)"
                                % (stream, hwq)}})
        with open(path, "w") as f:
            json.dump({"displayTimeUnit": "ns", "traceEvents": ev}, f)
        return path

    @staticmethod
    def _exec_output(exe, i, generic, desc):
        return rt.npurt_exec_get_output(exe, i, desc)

    def _alloc_outputs(self, outs, get, handle):
        res = []
        for i in range(len(self._out_args)):
            d = _lib.TensorDesc()
            check(get(handle, i, 0, ctypes.byref(d)))
            shape = tuple(int(d.dims[k]) for k in range(d.rank))
            o = np.empty(shape, dtype=DTYPES[d.dtype])
            if d.size > o.nbytes:
                # an extent the data decides (NonZero, NMS): the buffer
                # holds the bound; _shape_outputs() views the extent
                o = np.empty(-(-d.size // o.itemsize), dtype=o.dtype)
            res.append(o)
            outs[i].host = o.ctypes.data
            outs[i].size = o.nbytes
        return res

    def _shape_outputs(self, res, get, handle):
        """The outputs as the run left them: an output of data-dependent
        extent viewed with the extent the device wrote (Documentation/
        runtime.rst, "Outputs of data-dependent shape")."""
        for i, o in enumerate(res):
            d = _lib.TensorDesc()
            check(get(handle, i, 0, ctypes.byref(d)))
            shape = tuple(int(d.dims[k]) for k in range(d.rank))
            if o.shape != shape:
                n = int(np.prod(shape, dtype=np.int64))
                res[i] = o.reshape(-1)[:n].reshape(shape)
        return res

    def _thread_exec(self):
        """The calling thread's npurt_exec context of a .om model (created
        on first use, freed with the model), or None for ONNX."""
        if self.is_onnx:
            return None
        tid = threading.get_ident()
        exe = self._execs.get(tid)
        if exe is None:
            with self._lock:
                exe = ctypes.c_void_p()
                check(rt.npurt_exec_create(self._model, ctypes.byref(exe)))
                self._execs[tid] = exe
        return exe

    def run(self, output_names, input_feed, run_options=None):
        """ONNX Runtime's run(): @output_names (None: all) and a dict of
        input name -> array; returns a list of numpy arrays."""
        missing = [a.name for a in self._in_args if a.name not in input_feed]
        unknown = [k for k in input_feed if k not in self._in_index]
        if missing or unknown:
            raise ValueError("inputs missing: %s; unknown: %s (the model "
                             "takes %s)" % (missing, unknown,
                                            list(self._in_index)))
        outs = self._execute([input_feed[a.name] for a in self._in_args])
        if output_names is None:
            return outs
        try:
            return [outs[self._out_index[n]] for n in output_names]
        except KeyError as e:
            raise ValueError("no output named %s (the model has %s)" % (
                e, list(self._out_index))) from None

    def infer(self, feeds, mode="static"):
        """ais_bench's InferSession.infer(): a list of arrays in input
        order (or a dict, or one array); returns the list of outputs."""
        if isinstance(feeds, dict):
            return self.run(None, feeds)
        if isinstance(feeds, np.ndarray):
            feeds = [feeds]
        return self._execute(list(feeds))

    __call__ = infer

    def generate(self, prompt, max_new_tokens, eos_token_id=None,
                 input_ids=None, logits=None, on_token=None):
        """Greedy decoding of a decoder exported with its KV cache as
        past*/present* inputs and outputs (npurt_model_generate: the cache
        stays in device memory between steps; Documentation/runtime.rst,
        "Generation with a KV cache"). @prompt: token ids; @on_token(index,
        token) sees each token as it is chosen (a true return stops).
        Returns (tokens, stats): the new token ids and a dict of
        npurt_generate_stats (tokens_per_s, cache_bytes, cache_host_bytes,
        h2d_bytes, d2h_bytes, shapes_compiled, ...)."""
        arr = np.asarray(prompt)
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError("the prompt must be integer token ids, not %s"
                            % arr.dtype)
        ids = np.ascontiguousarray(arr.astype(np.int64).ravel())
        n = int(max_new_tokens)
        if not ids.size or not 1 <= n <= 2**31 - 1 - ids.size:
            raise ValueError("give a prompt of at least one token and "
                             "1 <= max_new_tokens <= 2^31 - 1 - its "
                             "length (got %d)" % n)
        if getattr(self._generating, "active", False):
            raise RuntimeError("generate() or a run from inside on_token: "
                               "the session is generating on this thread")
        o = _lib.init_options(rt.npurt_generate_options_init,
                              _lib.GenerateOptions)
        o.max_new_tokens = n
        o.eos_token_id = -1 if eos_token_id is None else int(eos_token_id)
        o.input_ids = input_ids.encode() if input_ids else None
        o.logits = logits.encode() if logits else None
        raised = []
        if on_token:
            def cb(user, index, token):
                try:
                    return 1 if on_token(index, token) else 0
                except BaseException as e:  # cannot cross C: stop, re-raise
                    raised.append(e)
                    return 1
            o.on_token = _lib.TOKEN_FN(cb)
        out = (ctypes.c_int64 * n)()
        count = ctypes.c_uint32()
        st = _lib.GenerateStats()
        self._generating.active = True
        try:
            with self._lock:
                status = rt.npurt_model_generate(
                    self._model, ids.ctypes.data_as(ctypes.POINTER(
                        ctypes.c_int64)), ids.size, ctypes.byref(o), out,
                    ctypes.byref(count), ctypes.byref(st))
        finally:
            self._generating.active = False
        if raised:
            raise raised[0]
        check(status)
        return list(out[:count.value]), {k: getattr(st, k)
                                         for k, _ in st._fields_}

    def close(self):
        """Unloads the model (also done when the session is collected)."""
        if self._model is not None:
            rt.npurt_model_unload(self._model)  # and its contexts
            self._model = None
            self._execs = {}
            _runtime.sessions.discard(self)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter teardown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
