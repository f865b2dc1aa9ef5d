# SPDX-License-Identifier: MIT
"""FP16 models and weight-only quantized linears, end to end (issue 13).

1. Weight-only linears (w8a16, w4a16): ONNX models written here with the
   INT4 fields set directly (data type 22, opset 21 blocked
   DequantizeLinear; Debian's onnx 1.12 cannot make them), compiled by
   npuc and run on the in-process device. Checked: the tasks are
   MATMUL_WQ, the .om weights are a quarter (int8) or an eighth (int4)
   of f32 plus the scales, and the outputs match a numpy reference of
   the same dequantization (w * s in f32, then the product).
2. An FP16 model: a small CNN + MLP in torch, exported and retyped to
   float16 (the graph `model.half()` exports: torch 1.13 cannot run half
   convolutions on a CPU, so it cannot trace them), compiled with each
   --precision mode and run; the reference is torch's f32 evaluation of
   the same f16-rounded weights and inputs.

Tolerances (Documentation/quantization.rst): max |out - ref| / max |ref|
<= 1e-5 for f32 activations, 4e-3 for f16 ones (a few f16 roundings of
2^-11 each).
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402

TOL32 = 1e-5
TOL16 = 4e-3


def pack_int4(v):
    """Signed int4 values (flattened order) -> ONNX packed bytes."""
    import numpy as np
    v = (np.asarray(v).astype(np.int16).ravel() & 15).astype(np.uint8)
    if v.size % 2:
        v = np.concatenate([v, np.zeros(1, np.uint8)])
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8).tobytes()


def wq_model(path, m, k, n, bits, bs, act16, gemm_t=False, bias=False,
             seed=0):
    """Y = X @ DQ(W) (or Gemm(X, DQ(W^T), transB=1, C)); returns the
    reference pieces (x, dequantized w [K, N], bias)."""
    import numpy as np
    import onnx
    from onnx import helper, TensorProto
    rng = np.random.default_rng(seed)
    fdt = np.float16 if act16 else np.float32
    tdt = TensorProto.FLOAT16 if act16 else TensorProto.FLOAT
    lo, hi = (-8, 8) if bits == 4 else (-128, 128)
    w = rng.integers(lo, hi, size=(k, n)).astype(np.int8)     # [K, N]
    if bs:
        g = (k + bs - 1) // bs
        s = rng.uniform(0.002, 0.02, size=(g, n)).astype(fdt)
        sk = np.repeat(s.astype(np.float32), bs, axis=0)[:k]    # [K, N]
    else:
        s = rng.uniform(0.002, 0.02, size=(n,)).astype(fdt)
        sk = np.broadcast_to(s.astype(np.float32), (k, n))
    wdq = (w.astype(np.float32) * sk).astype(np.float32)        # [K, N]
    x = rng.standard_normal((m, k)).astype(fdt)
    c = rng.standard_normal(n).astype(fdt) if bias else None

    stored = w.T.copy() if gemm_t else w                        # x of DQ
    wt = TensorProto()
    wt.name = "w_q"
    wt.dims.extend(stored.shape)
    if bits == 4:
        wt.data_type = 22                                        # INT4
        wt.raw_data = pack_int4(stored)
    else:
        wt.data_type = TensorProto.INT8
        wt.raw_data = stored.tobytes()
    sv = s.T.copy() if (gemm_t and bs) else s
    st = TensorProto()
    st.name = "w_s"
    st.data_type = tdt
    st.dims.extend(sv.shape)
    st.raw_data = np.ascontiguousarray(sv).astype(fdt).tobytes()
    attrs = {}
    if bs:
        attrs = {"axis": 1 if gemm_t else 0, "block_size": bs}
    else:
        attrs = {"axis": 0 if gemm_t else 1}
    nodes = [helper.make_node("DequantizeLinear", ["w_q", "w_s"], ["w"],
                              **attrs)]
    inits = [wt, st]
    if gemm_t:
        ins = ["x", "w"]
        if bias:
            ct = TensorProto()
            ct.name = "c"
            ct.data_type = tdt
            ct.dims.extend([n])
            ct.raw_data = c.tobytes()
            inits.append(ct)
            ins.append("c")
        nodes.append(helper.make_node("Gemm", ins, ["y"], transB=1))
    else:
        nodes.append(helper.make_node("MatMul", ["x", "w"], ["y"]))
    graph = helper.make_graph(
        nodes, "wq", [helper.make_tensor_value_info("x", tdt, [m, k])],
        [helper.make_tensor_value_info("y", tdt, [m, n])], inits)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21 if bs else 13)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return x, wdq, c


def compile_run(t, d, model, inputs, extra=()):
    """npuc + npu-run: (output array or None, npuc report text)."""
    import numpy as np
    om = os.path.join(d, "m.om")
    argv = [e2e.tool("npuc"), model, "-o", om, "--no-cache", "--report"]
    argv += list(extra)
    rc, rep = e2e.run(argv, timeout=120)
    if rc != 0:
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(rep)
        return None, rep, ""
    rc, tasks = e2e.run([e2e.tool("npu-om"), om, "--tasks"], timeout=60)
    ind = os.path.join(d, "in")
    shutil.rmtree(ind, ignore_errors=True)
    os.makedirs(ind)
    for i, x in enumerate(inputs):
        np.save(os.path.join(ind, "input_%d.npy" % i), x)
    out = os.path.join(d, "out")
    argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
            ind, "-o", out]
    rc, log = e2e.run(argv, timeout=120)
    if rc != 0:
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(log)
        return None, rep, tasks
    return np.load(os.path.join(out, "output_0.npy")), rep, tasks


def weights_bytes(rep):
    m = re.search(r"weights (\d+) bytes", rep)
    return int(m.group(1)) if m else -1


WQ_CASES = [
    # name, M, K, N, bits, block, f16 activations, Gemm transB, bias
    ("w8a32 per-channel MatMul", 8, 256, 96, 8, 0, False, False, False),
    ("w8a16 g64 MatMul", 5, 256, 80, 8, 64, True, False, False),
    ("w4a32 g32 MatMul", 16, 256, 128, 4, 32, False, False, False),
    ("w4a16 g128 Gemm transB bias", 3, 512, 64, 4, 128, True, True, True),
    ("w4a16 g32 odd N", 4, 128, 45, 4, 32, True, False, False),
]


def wq_tests(t, d):
    import numpy as np
    for name, m, k, n, bits, bs, a16, gt, bias in WQ_CASES:
        path = os.path.join(d, "wq.onnx")
        x, wdq, c = wq_model(path, m, k, n, bits, bs, a16, gt, bias)
        got, rep, tasks = compile_run(t, d, path, [x])
        if got is None:
            t.ok(False, name + ": compiles and runs")
            t.ok(False, name + ": weights stored packed")
            continue
        ref = x.astype(np.float64) @ wdq.astype(np.float64)
        if bias:
            ref = ref + c.astype(np.float64)
        err = e2e.rel_error(got.astype(np.float64), ref)
        tol = TOL16 if a16 else TOL32
        t.ok(got.dtype == x.dtype and err <= tol,
             "%s: %s out, rel err %.3g <= %g (numpy, same dequantization)"
             % (name, got.dtype, err, tol))
        wb = weights_bytes(rep)
        g = (k + bs - 1) // bs if bs else 1
        sbytes = g * n * 4
        qbytes = k * ((n + 1) // 2) if bits == 4 else k * n
        f32 = k * n * 4
        has_wq = "MATMUL_WQ" in tasks
        t.ok(has_wq and qbytes + sbytes <= wb <= qbytes + sbytes + n * 4 + 64,
             "%s: MATMUL_WQ task, weights %d bytes = %d quantized + %d "
             "scales%s (f32 would be %d: %.3fx)"
             % (name, wb, qbytes, sbytes, " + bias" if bias else "", f32,
                wb / f32))


def f16_model(d):
    """A CNN + MLP exported from torch and retyped to float16."""
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper, TensorProto

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = torch.nn.Conv2d(3, 16, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(16)
            self.c2 = torch.nn.Conv2d(16, 16, 3, padding=1, groups=4)
            self.fc1 = torch.nn.Linear(16 * 4 * 4, 64)
            self.ln = torch.nn.LayerNorm(64)
            self.fc2 = torch.nn.Linear(64, 10)

        def forward(self, x):
            y = torch.relu(self.bn(self.c1(x)))
            y = torch.nn.functional.max_pool2d(y, 2)
            y = torch.sigmoid(self.c2(y)) * y + y
            y = torch.nn.functional.avg_pool2d(y, 2).flatten(1)
            y = torch.nn.functional.gelu(self.ln(self.fc1(y)))
            return torch.softmax(self.fc2(y), -1) + self.fc2(y) * 0.1

    torch.manual_seed(3)
    net = Net().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-0.5, 0.5)
        net.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 16, 16)
    path32 = os.path.join(d, "net32.onnx")
    torch.onnx.export(net, x, path32, opset_version=17)
    model = onnx.load(path32)
    for init in model.graph.initializer:
        if init.data_type == TensorProto.FLOAT:
            a = numpy_helper.to_array(init).astype(np.float16)
            init.CopyFrom(numpy_helper.from_array(a, init.name))
    for node in model.graph.node:
        for at in node.attribute:
            if at.name == "value" and at.t.data_type == TensorProto.FLOAT:
                a = numpy_helper.to_array(at.t).astype(np.float16)
                at.t.CopyFrom(numpy_helper.from_array(a, at.t.name))
            if node.op_type == "Cast" and at.name == "to" and \
                    at.i == TensorProto.FLOAT:
                at.i = TensorProto.FLOAT16
    for v in list(model.graph.input) + list(model.graph.output) + \
            list(model.graph.value_info):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    path = os.path.join(d, "net16.onnx")
    onnx.save(model, path)
    # the reference: the same f16 numbers, computed in f32 by torch
    net16 = Net().eval()
    net16.load_state_dict(net.state_dict())
    with torch.no_grad():
        for p in list(net16.parameters()) + list(net16.buffers()):
            if p.dtype == torch.float32:
                p.copy_(p.half().float())
        xh = x.half()
        ref = net16(xh.float()).numpy()
    return path, xh.numpy(), ref


def f16_tests(t, d):
    import numpy as np
    try:
        path, x, ref = f16_model(d)
    except Exception as ex:   # an export failure is a test bug: show it
        for mode in MODES:
            t.ok(False, "f16 model (%s): export" % mode)
        t.diag(repr(ex))
        return
    for mode in MODES:
        got, rep, tasks = compile_run(t, d, path, [x],
                                      ["--precision", mode])
        if got is None:
            t.ok(False, "f16 model, --precision %s: compiles and runs"
                 % mode)
            continue
        err = e2e.rel_error(got.astype(np.float64), ref)
        copies = tasks.count("COPY")
        # f16 pooling in NC1HWC0 (C0 = 16) where the model stays f16
        c0 = re.search(r"POOL2D +\S+:float16\[\d+,\d+,\d+,\d+,16\]",
                       tasks) is not None
        t.ok(got.dtype == np.float16 and err <= TOL16 and
             (c0 or mode == "allow_mix_precision"),
             "f16 model, --precision %s: float16 out, rel err %.3g <= %g "
             "(%d COPY tasks, weights %d bytes%s)"
             % (mode, err, TOL16, copies, weights_bytes(rep),
                ", f16 NC1HWC0 pooling" if c0 else ""))


MODES = ["must_keep_origin_dtype", "allow_mix_precision", "force_fp16"]


def f32_force_test(t, d):
    """force_fp16 on an f32 model: f32 I/O, f16 storage inside."""
    import numpy as np
    import onnx
    from onnx import helper, TensorProto
    rng = np.random.default_rng(5)
    w = rng.standard_normal((32, 16)).astype(np.float32) * 0.2
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Softmax", ["r"], ["y"], axis=-1)]
    g = helper.make_graph(nodes, "f", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [4, 32])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [4, 16])],
        [onnx.numpy_helper.from_array(w, "w")])
    path = os.path.join(d, "f32.onnx")
    onnx.save(helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 17)]), path)
    x = rng.standard_normal((4, 32)).astype(np.float32)

    def soft(v):
        e = np.exp(v - v.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    for keep in ["", "Softmax"]:
        extra = ["--precision", "force_fp16"]
        if keep:
            extra += ["--keep-dtype", keep]
        got, rep, tasks = compile_run(t, d, path, [x], extra)
        x16 = x.astype(np.float16).astype(np.float64)
        w16 = w.astype(np.float16).astype(np.float64)
        h = np.maximum(x16 @ w16, 0).astype(np.float16).astype(np.float64)
        ref = soft(h)
        if not keep:
            ref = ref.astype(np.float16)
        if got is None:
            t.ok(False, "f32 model, force_fp16 %s" % keep)
            continue
        err = e2e.rel_error(got.astype(np.float64),
                            ref.astype(np.float64))
        t.ok(got.dtype == np.float32 and err <= TOL16,
             "f32 model, force_fp16%s: float32 out, rel err %.3g vs the "
             "f16-rounded reference" % (" keep " + keep if keep else "",
                                        err))


def main():
    miss = e2e.missing_tools("npuc", "npu-run", "npu-om")
    if miss:
        print("1..0 # SKIP %s not built yet" % " and ".join(miss))
        return 0
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(1)
    t = e2e.Tap(2 * len(WQ_CASES) + len(MODES) + 2)
    d = tempfile.mkdtemp(prefix="npu-precision-")
    try:
        wq_tests(t, d)
        f16_tests(t, d)
        f32_force_test(t, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.exit()


if __name__ == "__main__":
    sys.exit(main())
