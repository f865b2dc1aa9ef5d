#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP tests of the npu Python package on the in-process device.

Run by test_npu.t (prove, `make check`) with Debian's python3. Skips the
whole plan without numpy, and the npu.compile() tests without torch.
"""

import ctypes
import json
import os
import subprocess
import sys
import threading
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("BUILD", "build")
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("NPU_DEVICE", "sim")
os.environ["NPU_SIM_VRAM_MB"] = "256"

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP numpy is not installed")
    sys.exit(0)

try:
    import torch
except ImportError:
    torch = None

import npu  # noqa: E402

TINY = os.path.join(ROOT, "models", "tinynet")
n = 0
failed = 0


def ok(cond, name, diag=None):
    global n, failed
    n += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, name))
    if not cond:
        failed += 1
        if diag:
            for line in str(diag).splitlines():
                print("# " + line)
    sys.stdout.flush()


def skip(name, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, name, why))


def raises(fn, exc):
    try:
        fn()
    except exc as e:
        return e
    except Exception as e:  # noqa: BLE001
        return AssertionError("raised %r" % e)
    return None


def test_session():
    x = np.load(os.path.join(TINY, "inputs", "input_0.npy"))
    ref = np.load(os.path.join(TINY, "expected", "output_0.npy"))
    tol = 1e-4 * max(1.0, float(np.abs(ref).max()))

    s = npu.InferenceSession(os.path.join(TINY, "model.onnx"))
    ins, outs = s.get_inputs(), s.get_outputs()
    ok(len(ins) == 1 and ins[0].name == "image" and
       ins[0].shape == [1, 3, 32, 32] and ins[0].type == "tensor(float)" and
       ins[0].dtype == np.float32 and len(outs) == 1 and
       outs[0].shape == [1, 10],
       "get_inputs/get_outputs describe tinynet", (ins, outs))
    y = s.infer([x])
    ok(len(y) == 1 and y[0].shape == (1, 10) and
       np.abs(y[0] - ref).max() <= tol,
       "infer() of the ONNX file (compiled online) agrees with torch",
       "max diff %g" % np.abs(y[0] - ref).max())
    y2, = s.run([outs[0].name], {"image": x})
    ok(np.array_equal(y2, y[0]), "run() with names gives infer()'s output")
    ok(np.array_equal(s.run(None, {"image": x})[0], y[0]),
       "run(None, feeds) returns every output")
    # A non-contiguous feed of another float type is converted.
    xf = np.asfortranarray(x.astype(np.float64))
    ok(np.abs(s.infer([xf])[0] - ref).max() <= tol,
       "a Fortran-ordered float64 feed is converted and agrees")
    e = raises(lambda: s.run(None, {"img": x}), ValueError)
    ok(isinstance(e, ValueError) and "image" in str(e),
       "run() with a wrong input name names the model's inputs", e)
    before = s.shape_cache_stats()
    y31 = s.infer([np.ones((1, 3, 31, 31), np.float32)])[0]
    after = s.shape_cache_stats()
    s.infer([np.ones((1, 3, 31, 31), np.float32)])
    again = s.shape_cache_stats()
    ok(y31.shape == (1, 10) and after["misses"] == before["misses"] + 1 and
       again["misses"] == after["misses"] and
       again["hits"] == after["hits"] + 1,
       "an ONNX session runs a new input shape, compiled once on demand",
       (before, after, again))
    s.close()

    with open(os.path.join(TINY, "model.onnx"), "rb") as f:
        onnx_bytes = f.read()
    with npu.InferenceSession(onnx_bytes) as s2:
        ok(np.abs(s2.infer(x)[0] - ref).max() <= tol,
           "ONNX bytes load and agree with torch")

    om = npu.compile_onnx(onnx_bytes)
    ok(om[:6] == b"\x89NPUOM", "compile_onnx() returns .om bytes (libnpuc)")
    path = os.path.join(BUILD, "test_npu.%d.om" % os.getpid())
    with open(path, "wb") as f:
        f.write(om)
    try:
        s3 = npu.InferenceSession(path)
        ok(not s3.is_onnx and np.abs(s3.infer(x)[0] - ref).max() <= tol,
           "a .om file loads and agrees with torch")
        for hw in (31, 33):
            e = raises(lambda: s3.infer([np.zeros((1, 3, hw, hw),
                                                  np.float32)]),
                       npu.NpuError)
            ok(isinstance(e, npu.NpuError) and
               e.code == "NPURT_ERR_SHAPE",
               "a %dx%d input the .om has no variant for raises "
               "NPURT_ERR_SHAPE" % (hw, hw), e)
        e = raises(lambda: npu.InferenceSession(path, opt_level=1),
                   TypeError)
        ok(isinstance(e, TypeError), "ONNX options on a .om are refused")

        # Several threads on one session, each in its own execution
        # context: every output equals the single-threaded one.
        errs = []
        wants = [s3.infer(x * (1.0 + 0.25 * k))[0] for k in range(4)]

        # all four alive at once: a finished thread's ident may be reused
        barrier = threading.Barrier(4)

        def worker(k):
            xi = x * (1.0 + 0.25 * k)
            barrier.wait()
            for _ in range(5):
                if not np.array_equal(s3.infer(xi)[0], wants[k]):
                    errs.append(k)
        ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        ok(not errs and len(s3._execs) == 5,
           "4 threads running one .om session, each in its own execution "
           "context (%d in all), get the single-threaded outputs"
           % len(s3._execs), errs)
        s3.close()
    finally:
        os.unlink(path)


def smi():
    out = subprocess.run(
        [os.path.join(ROOT, BUILD, "bin", "npu-smi"), "--device", "sim",
         "--query=memory.total,memory.used,memory.free,"
         "memory.largest_free,memory.fragmentation_ppm", "--format=json"],
        capture_output=True, text=True, check=True,
        env=dict(os.environ, NPU_SIM_VRAM_MB="256"))
    return json.loads(out.stdout)[0]


def test_memory():
    npu.empty_cache()
    base = npu.memory_allocated()
    b = npu.Buffer(3 << 20)
    ok(npu.memory_allocated() - base == 3 << 20,
       "memory_allocated() counts a 3 MiB buffer",
       npu.memory_allocated())
    ok(npu.memory_reserved() >= npu.memory_allocated(),
       "memory_reserved() >= memory_allocated()")
    data = np.arange(1000, dtype=np.float32)
    b.copy_from(data)
    ok(np.array_equal(b.numpy("float32", (1000,)), data),
       "a buffer's bytes go to the device and back")
    peak = npu.max_memory_allocated()
    b.free()
    ok(npu.memory_allocated() == base and
       npu.max_memory_allocated() == peak and peak >= (3 << 20),
       "free() lowers memory_allocated(), the peak stays")
    ok(npu.memory_reserved() > 0, "the freed block stays cached (reserved)")
    npu.empty_cache()
    ok(npu.memory_reserved() == 0, "empty_cache() returns cached blocks",
       npu.memory_reserved())
    npu.reset_peak_memory_stats()
    ok(npu.max_memory_allocated() == npu.memory_allocated(),
       "reset_peak_memory_stats() resets the peak")

    st = npu.memory_stats()
    keys = ("allocated_bytes.all.current", "reserved_bytes.all.peak",
            "num_alloc_retries", "num_ooms", "fragmentation")
    ok(all(k in st for k in keys), "memory_stats() has PyTorch's keys and "
       "fragmentation", [k for k in keys if k not in st])
    ok("NPU memory summary" in npu.memory_summary() and
       "fragmentation" in npu.memory_summary(), "memory_summary() prints")

    # With no model loaded and the cache empty, this process's device is
    # as npu-smi sees a fresh one (the in-process device is per process).
    ref = smi()
    mine = (st["device.total"], st["device.used"], st["device.free"],
            st["device.largest_free"], round(st["fragmentation"] * 1e6))
    theirs = (ref["memory.total"], ref["memory.used"], ref["memory.free"],
              ref["memory.largest_free"], ref["memory.fragmentation_ppm"])
    ok(mine == theirs, "memory_stats() device figures agree with npu-smi",
       "python %s, npu-smi %s" % (mine, theirs))

    # Fragment the device: free every other buffer; the figure follows
    # npu-smi's definition (1 - largest free / free).
    bufs = [npu.Buffer(21 << 20) for _ in range(8)]
    for bb in bufs[::2]:
        bb.free()
    npu.empty_cache()
    st = npu.memory_stats()
    want = 1.0 - st["device.largest_free"] / st["device.free"]
    ok(st["fragmentation"] > 0 and abs(st["fragmentation"] - want) < 1e-12,
       "fragmentation is 1 - largest free / free (%.4f)" %
       st["fragmentation"])
    for bb in bufs:
        bb.free()
    npu.empty_cache()

    npu.set_per_process_memory_fraction(0.25)
    e = raises(lambda: npu.Buffer(100 << 20), npu.NpuError)
    ok(isinstance(e, npu.NpuError) and e.code == "NPURT_ERR_DEVICE_NOMEM"
       and "fraction" in str(e),
       "set_per_process_memory_fraction(0.25) refuses 100 MiB of 256", e)
    b = npu.Buffer(32 << 20)
    ok(npu.memory_allocated() >= 32 << 20, "32 MiB fit under the fraction")
    b.free()
    npu.set_per_process_memory_fraction(1.0)
    e = raises(lambda: npu.set_per_process_memory_fraction(1.5),
               npu.NpuError)
    ok(isinstance(e, npu.NpuError), "a fraction above 1 is refused", e)
    ok(npu.memory_stats()["num_ooms"] >= 1, "num_ooms counts the refusal")


def test_compile():
    if torch is None:
        skip("npu.compile() of a small CNN agrees with torch",
             "torch is not installed")
        return
    torch.manual_seed(0)
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16),
                nn.ReLU(inplace=True), nn.MaxPool2d(2),
                nn.Conv2d(16, 32, 3, stride=2, padding=1),
                nn.BatchNorm2d(32), nn.ReLU(inplace=True),
                nn.AdaptiveAvgPool2d(1))
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            return self.fc(torch.flatten(self.features(x), 1))

    m = Net().eval()
    # Random BatchNorm statistics (DESIGN §10): not an identity.
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-0.2, 0.2)
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        want = m(x)
    fn = npu.compile(m, (x,))
    got = fn(x)
    spread = float(want.std())
    diff = float((got - want).abs().max())
    ok(isinstance(got, torch.Tensor) and got.shape == want.shape and
       spread > 1e-2 and diff <= 1e-4 * max(1.0, float(want.abs().max())),
       "npu.compile() of a small CNN agrees with torch",
       "max diff %g, output spread %g" % (diff, spread))
    got_np = fn(x.numpy())
    ok(isinstance(got_np, np.ndarray) and
       np.array_equal(got_np, got.numpy()),
       "a compiled module called with numpy returns numpy")


def test_dynamic_aipp():
    """A u8 image model with dynamic AIPP: two normalisations, one .om."""
    if torch is None:
        ok(True, "dynamic AIPP # SKIP torch is not installed")
        return
    import io
    torch.manual_seed(3)
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1),
                            torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.Linear(4 * 8 * 8, 5)).eval()
    f = io.BytesIO()
    torch.onnx.export(m, torch.randn(1, 3, 8, 8), f, input_names=["x"],
                      output_names=["y"], opset_version=13)
    conf = ("aipp_op {\n aipp_mode : dynamic\n input_format : RGB888_U8\n"
            " src_image_size_w : 10\n src_image_size_h : 9\n crop : true\n"
            " load_start_pos_w : 1\n load_start_pos_h : 1\n}\n")
    om = npu.compile_onnx(f.getvalue(), insert_op_conf=conf)
    sess = npu.InferenceSession(om)
    names = [i.name for i in sess.get_inputs()]
    img = np.random.default_rng(5).integers(0, 256, (1, 9, 10, 3),
                                            dtype=np.uint8)
    crop = img[:, 1:9, 1:9, :].astype(np.float32).transpose(0, 3, 1, 2)
    worst = 0.0
    for mean, std in (((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
                      ((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))):
        p = npu.aipp_params(min=[255 * v for v in mean],
                            var_reci=[1 / (255 * v) for v in std])
        y, = sess.run(None, {"x": img, "x_aipp": p})
        x = (crop / 255 - np.array(mean, np.float32)[:, None, None]) / \
            np.array(std, np.float32)[:, None, None]
        with torch.no_grad():
            want = m(torch.from_numpy(x.astype(np.float32))).numpy()
        worst = max(worst, float(np.abs(y - want).max()))
    ok(names == ["x", "x_aipp"] and p.dtype == np.uint8 and
       p.shape == (76,) and worst < 1e-4,
       "dynamic AIPP: npu.aipp_params() per run, two normalisations match "
       "torch", "inputs %s, max diff %g" % (names, worst))


def test_profiling():
    import tempfile
    x = np.load(os.path.join(TINY, "inputs", "input_0.npy"))
    om = npu.compile_onnx(os.path.join(TINY, "model.onnx"))
    for what, model in (("ONNX", os.path.join(TINY, "model.onnx")),
                        (".om", om)):
        s = npu.InferenceSession(model)
        s.infer([x])
        s.start_profiling()
        y1 = s.infer([x])[0]
        y2 = s.infer([x])[0]
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            got = s.end_profiling(path)
            tr = json.load(open(path))["traceEvents"]
        finally:
            os.unlink(path)
        tasks = [e for e in tr if e["ph"] == "X" and e["pid"] == 1]
        runs = [e for e in tr if e["ph"] == "X" and e["pid"] == 2]
        per_run = {}
        for e in tasks:
            per_run.setdefault(e["args"]["run"], []).append(e)
        inside = all(r["ts"] <= e["ts"] and
                     e["ts"] + e["dur"] <= r["ts"] + r["dur"] + 1
                     for r in runs for e in per_run.get(r["args"]["run"],
                                                        []))
        ok(got == path and len(runs) == 2 and len(per_run) == 2 and
           len(per_run[0]) == len(per_run[1]) > 0 and
           all(e["name"] and e["dur"] >= 0 for e in tasks) and inside and
           np.array_equal(y1, y2) and
           any(e["ph"] == "M" and e["name"] == "thread_name"
               for e in tr),
           "%s session: start/end_profiling write a Chrome trace, %d "
           "device tasks per run inside the host's run spans"
           % (what, len(per_run.get(0, []))), tr[:6])
        s.infer([x])  # profiling off again: per-thread contexts
        s.close()


def test_dump():
    """InferenceSession.dump(): every ONNX tensor of a run, as npu-run
    --dump (npurt_model_set_dump); the last one is the output."""
    x = np.load(os.path.join(TINY, "inputs", "input_0.npy"))
    om = npu.compile_onnx(os.path.join(TINY, "model.onnx"))
    for what, model in (("ONNX", os.path.join(TINY, "model.onnx")),
                        (".om", om)):
        s = npu.InferenceSession(model)
        y = s.infer([x])[0]
        d = s.dump({s.get_inputs()[0].name: x})
        names = list(d)
        last = d[names[-1]] if names else None
        one = s.dump({s.get_inputs()[0].name: x}, select=names[1:2])
        relu = s.dump({s.get_inputs()[0].name: x},
                      select=lambda name, op, nodes:
                      any("Relu" in n for n in nodes))
        ok(len(names) >= 4 and last is not None and
           np.array_equal(last.reshape(y.shape), y) and
           list(one) == names[1:2] and
           np.array_equal(one[names[1]], d[names[1]]) and
           relu and set(relu) < set(d) and
           np.array_equal(s.infer([x])[0], y),
           "%s session: dump() gives %d ONNX tensors, the last equal to "
           "the output; by names (%d) and by a filter (%d Relu tensors); "
           "runs after it as before" % (what, len(names), len(one),
                                        len(relu)), names)
        s.close()


def test_eager():
    if torch is None:
        skip("eager mode (npu.to_device)", "torch is not installed")
        return
    import torchvision
    torch.manual_seed(1)
    nn = torch.nn
    m = torchvision.models.resnet18(num_classes=10).eval()
    # Random BatchNorm statistics (DESIGN §10): not an identity.
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 2.0)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-0.2, 0.2)
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        want = m(x)
    import copy
    dm = npu.to_device(copy.deepcopy(m))
    dx = npu.to_device(x)
    ok(isinstance(dx, npu.Tensor) and isinstance(dm.conv1.weight, npu.Tensor)
       and dx.shape == x.shape and dx.dtype == torch.float32,
       "npu.to_device: tensors and a module's parameters in device memory")
    with torch.no_grad():
        y = dm(dx)
    got = y.cpu()
    spread = float(want.std())
    diff = float((got - want).abs().max())
    ok(isinstance(y, npu.Tensor) and type(got) is torch.Tensor and
       got.shape == want.shape and spread > 1e-2 and
       diff <= 1e-4 * max(1.0, float(want.abs().max())),
       "torchvision resnet18 in eager mode agrees with torch "
       "(max diff %.2g, spread %.2g)" % (diff, spread))
    st0 = npu.op_cache_stats()
    with torch.no_grad():
        y2 = dm(dx).numpy()
    st1 = npu.op_cache_stats()
    ok(np.array_equal(y2, got.numpy()) and st1["misses"] == st0["misses"] and
       st1["hits"] > st0["hits"],
       "a second eager run compiles nothing: %d op cache hits, %d misses in "
       "all" % (st1["hits"], st1["misses"]))
    a = torch.randn(4, 8)
    b = torch.randn(8, 5)
    da, db = npu.to_device(a), npu.to_device(b)
    r = ((da * 2.0 + 1.0) - da / 4.0).relu()
    r2 = torch.softmax(da @ db, dim=-1).permute(1, 0)
    want1 = ((a * 2.0 + 1.0) - a / 4.0).relu()
    want2 = torch.softmax(a @ b, dim=-1).permute(1, 0)
    ok(torch.allclose(r.cpu(), want1, atol=1e-5) and
       torch.allclose(r2.cpu(), want2, atol=1e-5) and r2.shape == (5, 4),
       "eager elementwise with scalars, matmul, softmax, permute agree")
    e = raises(lambda: torch.cumsum(da, 0), npu.NpuEagerError)
    ok(isinstance(e, npu.NpuEagerError) and "cumsum" in str(e),
       "an unsupported torch op is refused by name: %s" % e)
    # Eager vs graph mode on the same model: the seed's trade-off.
    import time
    fn = npu.compile(m, (x,))
    gdiff = float((fn(x) - want).abs().max())
    ok(gdiff <= 1e-4 * max(1.0, float(want.abs().max())),
       "the same torchvision resnet18 through npu.compile (graph mode) "
       "agrees with torch (max diff %.2g)" % gdiff)
    t0 = time.perf_counter()
    for _ in range(3):
        fn(x)
    tg = (time.perf_counter() - t0) / 3
    t0 = time.perf_counter()
    with torch.no_grad():
        for _ in range(3):
            dm(dx).cpu()
    te = (time.perf_counter() - t0) / 3
    print("# resnet18 1x3x64x64: graph %.1f ms, eager %.1f ms per run "
          "(eager / graph %.2f)" % (tg * 1e3, te * 1e3, te / tg))


def test_option_structs():
    """The ctypes option structs are the C libraries' own size: their init
    functions write sizeof() of the C struct (a shorter ctypes struct was a
    heap overflow once a field was added in C only)."""
    from npu import _lib
    for init, cls in ((_lib.npuc().npuc_options_init, _lib.NpucOptions),
                      (_lib.rt.npurt_onnx_options_init, _lib.OnnxOptions),
                      (_lib.rt.npurt_generate_options_init,
                       _lib.GenerateOptions)):
        try:
            o = _lib.init_options(init, cls)
            good = o.size == ctypes.sizeof(cls)
            why = "%d bytes" % o.size
        except RuntimeError as e:
            good, why = False, str(e)
        ok(good, "%s matches the C library's struct" % cls.__name__, why)


def test_counted_outputs():
    """NonZero: an output whose extent the data decides comes back with
    the extent of each run, from the ONNX (online) and from a .om."""
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError:
        skip("NonZero outputs", "python3-onnx is not installed")
        return
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["y"])], "nz",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
    mb = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    mb.ir_version = 8
    data = mb.SerializeToString()
    om = npu.compile_onnx(data)
    path = os.path.join(BUILD, "test_npu_nz.%d.om" % os.getpid())
    with open(path, "wb") as f:
        f.write(om)
    try:
        for what, src in (("ONNX", data), (".om", path)):
            with npu.InferenceSession(src) as sess:
                good = True
                for k in (5, 0, 12, 1):
                    x = np.zeros(12, np.float32)
                    x[RNG_NZ.permutation(12)[:k]] = 1.5
                    x = x.reshape(3, 4)
                    y = sess.infer([x])[0]
                    good &= y.shape == (2, k) and \
                        np.array_equal(y, np.array(np.nonzero(x)))
                ok(good, "NonZero from the %s: each run's extent (5, 0, 12, "
                   "1 of 12) and numpy's coordinates" % what)
    finally:
        os.unlink(path)


RNG_NZ = np.random.default_rng(18)


def test_generate():
    """generate(): the static-cache decoder of tests/models/decoder_kv.py
    gives torch's greedy tokens, its cache never crossing to the host;
    on_token sees each token and stops the generation."""
    if torch is None:
        skip("generate()", "python3-torch is not installed")
        return
    sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
    import decoder_kv
    import warnings
    warnings.filterwarnings("ignore")
    ref = decoder_kv.prepare(os.path.join(ROOT, "build", "models",
                                          "decoder_kv"))["static"]
    with npu.InferenceSession(ref["onnx"]) as sess:
        toks, st = sess.generate(decoder_kv.PROMPT, decoder_kv.NEW)
        ok(toks == ref["tokens"] and st["cache_host_bytes"] == 0 and
           st["new_tokens"] == decoder_kv.NEW and st["cache_bytes"] > 0,
           "generate(): torch's %d tokens, the %d-byte cache on the "
           "device" % (decoder_kv.NEW, st["cache_bytes"]),
           "npu %s\ntorch %s\n%s" % (toks, ref["tokens"], st))
        seen = []
        toks, st = sess.generate(decoder_kv.PROMPT, decoder_kv.NEW,
                                 on_token=lambda i, t: seen.append(t) or
                                 len(seen) == 3)
        ok(seen == ref["tokens"][:3] and toks == seen,
           "on_token sees each token, a true return stops after it",
           "%s %s" % (seen, toks))
        toks, _ = sess.generate(decoder_kv.PROMPT, decoder_kv.NEW,
                                eos_token_id=ref["tokens"][1])
        ok(toks == ref["tokens"][:2], "eos_token_id stops after that token")

        def boom(i, t):
            raise KeyError("from on_token")

        def nested(i, t):
            sess.generate(decoder_kv.PROMPT, 1)
        def refused(fn, exc):
            return isinstance(raises(fn, exc), exc)
        ok(refused(lambda: sess.generate(decoder_kv.PROMPT, 4,
                                         on_token=boom), KeyError) and
           refused(lambda: sess.generate(decoder_kv.PROMPT, 4,
                                         on_token=nested), RuntimeError) and
           refused(lambda: sess.generate([1.5, 2.0], 4), TypeError) and
           refused(lambda: sess.generate(decoder_kv.PROMPT, 2**31),
                   ValueError),
           "generate(): on_token's exception comes back, a nested call, a "
           "float prompt and 2^31 tokens are refused")


def main():
    for t in (test_option_structs, test_session, test_memory, test_compile,
              test_dynamic_aipp, test_profiling, test_dump, test_eager,
              test_counted_outputs, test_generate):
        try:
            t()
        except Exception:  # noqa: BLE001 - a crash is a failed test
            ok(False, "%s ran to its end" % t.__name__,
               traceback.format_exc())
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
