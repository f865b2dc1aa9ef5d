#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: QDQ models compile to int8 tasks and match ONNX's int8
semantics (Documentation/quantization.rst).

For a torch fake-quant (QAT-style) export and an ONNX Runtime-style QDQ
model, both made here with /usr/bin/python3 (qdq_models.py):

  * npuc compiles them; npu-om --tasks lists QCONV2D and QMATMUL tasks,
    and the QCONV2D activations are NC1HWC0 with C0 = 32;
  * npu-run (in-process device) on random inputs gives exactly the
    outputs of ONNX's QLinearConv/QLinearMatMul reference semantics
    (qdq_models.qlinear_eval: int32 sums, float64 requantization, round
    half to even), and stays within one quantization step of the float
    evaluation of the QDQ graph (qdq_eval), which ONNX leaves to the
    implementation's float accumulation order;
  * npu-compare finds every dumped tensor equal to the compiler's
    interpreter.

The same for a float CNN quantized here by npu-quant (post-training, 8
calibration samples): int8 tasks, ONNX's int8 numerics, the dump.

Debian 12's python3-onnx (1.12) has no onnx.reference; qdq_models.py is a
numpy implementation of the operators' definitions.
"""

import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import npu_e2e as e2e  # noqa: E402

# name, output scale; ort_qoperator is checked against its QDQ twin
MODELS = (("torch_qat", 0.1), ("ort_qdq", 0.2), ("ort_qoperator", 0.2))
SEEDS = (11, 12, 13)
PER_MODEL = 5
PTQ_TESTS = 4


def main():
    t = e2e.Tap(len(MODELS) * PER_MODEL + PTQ_TESTS)
    missing = e2e.missing_tools("npuc", "npu-run", "npu-om", "npu-compare",
                                "npu-quant")
    try:
        import numpy as np
        import onnx
        import torch  # noqa: F401
        import qdq_models as qm
    except ImportError as ex:
        missing.append(str(ex))
    if missing:
        for _ in range(len(MODELS) * PER_MODEL + PTQ_TESTS):
            t.skip("int8 QDQ model", "missing: " + ", ".join(missing))
        t.exit()
    import warnings
    warnings.filterwarnings("ignore")
    tmp = tempfile.mkdtemp(prefix="npu-quant-")
    try:
        for name, oscale in MODELS:
            path = os.path.join(tmp, name + ".onnx")
            getattr(qm, name)(path)
            model = onnx.load(path + ".qdq.onnx" if os.path.exists(
                path + ".qdq.onnx") else path)
            om = os.path.join(tmp, name + ".om")
            rc, log = e2e.run([e2e.tool("npuc"), path, "-o", om,
                               "--no-cache"])
            if not t.ok(rc == 0, "%s: npuc compiles it" % name):
                t.diag(log)
                for _ in range(PER_MODEL - 1):
                    t.skip(name, "no .om")
                continue
            rc, tasks = e2e.run([e2e.tool("npu-om"), "--tasks", om])
            qconv = [ln for ln in tasks.splitlines()
                     if " QCONV2D " in ln and "@" in ln]
            c0_32 = bool(qconv) and all(
                ln.count(",32]") >= 2 for ln in qconv)
            if not t.ok(rc == 0 and qconv and " QMATMUL " in tasks and
                        c0_32, "%s: %d int8 QCONV2D tasks on NC1HWC0 "
                        "C0 = 32 activations and a QMATMUL task"
                        % (name, len(qconv))):
                t.diag(tasks)
            exact, worst, frac, n = True, 0.0, [], 0
            rng = np.random.default_rng(7)
            for seed in SEEDS:
                x = rng.standard_normal((1, 16, 16, 16)).astype(np.float32)
                xin = os.path.join(tmp, "x%d.npy" % seed)
                np.save(xin, x)
                od = os.path.join(tmp, "%s_out%d" % (name, seed))
                rc, log = e2e.run([e2e.tool("npu-run"), om, "-i",
                                   "x=" + xin, "-o", od])
                if rc != 0:
                    t.diag(log)
                    exact = False
                    continue
                out = np.load(sorted(glob.glob(os.path.join(od,
                                                            "*.npy")))[0])
                ref_q = qm.qlinear_eval(model, {"x": x})[0]
                ref_f = qm.qdq_eval(model, {"x": x})[0]
                if not np.array_equal(out, ref_q):
                    exact = False
                    t.diag("seed %d: max |out - qlinear ref| = %g" % (
                        seed, float(np.abs(out - ref_q).max())))
                d = np.abs(out.astype(np.float64) - ref_f) / oscale
                worst = max(worst, float(d.max()))
                frac.append(float((d < 0.5).mean()))
                n += out.size
            t.ok(exact, "%s: the device equals ONNX QLinearConv/"
                 "QLinearMatMul semantics exactly (%d outputs, %d inputs)"
                 % (name, n, len(SEEDS)))
            t.ok(worst <= 1.0 + 1e-3, "%s: within one step (%.2f) of the "
                 "float QDQ evaluation; %.1f%% of outputs equal" % (
                     name, worst, 100.0 * (sum(frac) / max(len(frac), 1))))
            # the compiler's interpreter computes the same int8 values
            dump = os.path.join(tmp, name + "_dump")
            xin = os.path.join(tmp, "x%d.npy" % SEEDS[0])
            rc1, log1 = e2e.run([e2e.tool("npu-run"), path, "-i",
                                 "x=" + xin, "--dump", dump, "--no-cache"])
            rc2, log2 = e2e.run([e2e.tool("npu-compare"), path, dump, "-i",
                                 "x=" + xin])
            if not t.ok(rc1 == 0 and rc2 == 0, "%s: npu-compare: every "
                        "dumped tensor matches the interpreter" % name):
                t.diag(log1 + log2)
        ptq(t, tmp, qm, np)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.exit()


def int8_tasks(tasks):
    """The QCONV2D tasks of npu-om --tasks, and whether each has its
    NC1HWC0 activations in C0 = 32."""
    qconv = [ln for ln in tasks.splitlines()
             if " QCONV2D " in ln and "@" in ln]
    return qconv, bool(qconv) and all(ln.count(",32]") >= 2 for ln in qconv)


def ptq(t, tmp, qm, np):
    """A float model quantized by npu-quant (post-training) compiles to the
    same int8 tasks and numerics as the QAT and ORT QDQ models."""
    import onnx
    fpath = qm.ptq_float(os.path.join(tmp, "ptq_float.onnx"))
    calib = os.path.join(tmp, "calib")
    os.makedirs(calib)
    rng = np.random.default_rng(3)
    for i in range(8):
        np.save(os.path.join(calib, "s%d.npy" % i),
                rng.standard_normal((1, 16, 16, 16)).astype(np.float32))
    path = os.path.join(tmp, "ptq.onnx")
    rc, log = e2e.run([e2e.tool("npu-quant"), fpath, calib, "-o", path,
                       "-q"])
    om = os.path.join(tmp, "ptq.om")
    rc2, log2 = e2e.run([e2e.tool("npuc"), path, "-o", om, "--no-cache"]) \
        if rc == 0 else (rc, "")
    if not t.ok(rc == 0 and rc2 == 0, "npu_quant: npu-quant quantizes a "
                "float CNN (8 calibration samples) and npuc compiles it"):
        t.diag(log + log2)
        for _ in range(PTQ_TESTS - 1):
            t.skip("npu_quant", "no .om")
        return
    rc, tasks = e2e.run([e2e.tool("npu-om"), "--tasks", om])
    qconv, c0_32 = int8_tasks(tasks)
    nq = tasks.count(" QMATMUL ")
    if not t.ok(rc == 0 and len(qconv) >= 3 and c0_32 and nq >= 1,
                "npu_quant: %d int8 QCONV2D tasks on NC1HWC0 C0 = 32 "
                "activations and %d QMATMUL task(s)" % (len(qconv), nq)):
        t.diag(tasks)
    # as ONNX defines the int8 ops; a float node between them (none here
    # today) would add its own summation order, hence the 1e-5 bound
    model = onnx.load(path)
    worst, n = 0.0, 0
    for seed in SEEDS:
        x = np.random.default_rng(seed).standard_normal(
            (1, 16, 16, 16)).astype(np.float32)
        xin = os.path.join(tmp, "p%d.npy" % seed)
        np.save(xin, x)
        od = os.path.join(tmp, "ptq_out%d" % seed)
        rc, log = e2e.run([e2e.tool("npu-run"), om, "-i", "x=" + xin,
                           "-o", od])
        if rc != 0:
            t.diag(log)
            worst = float("inf")
            continue
        out = np.load(os.path.join(od, "output_0.npy")).astype(np.float64)
        ref = np.asarray(qm.qlinear_eval(model, {"x": x})[0], np.float64)
        worst = max(worst, float(np.abs(out - ref).max() /
                                 max(np.abs(ref).max(), 1e-30)))
        n += out.size
    t.ok(worst <= 1e-5, "npu_quant: the device equals ONNX QLinearConv/"
         "QLinearMatMul semantics (max relative error %.2g over %d "
         "outputs)" % (worst, n))
    dump = os.path.join(tmp, "ptq_dump")
    xin = os.path.join(tmp, "p%d.npy" % SEEDS[0])
    rc1, log1 = e2e.run([e2e.tool("npu-run"), om, "-i", "x=" + xin,
                         "--dump", dump])
    rc2, log2 = e2e.run([e2e.tool("npu-compare"), path, dump, "-i",
                         "x=" + xin])
    if not t.ok(rc1 == 0 and rc2 == 0, "npu_quant: npu-compare: every "
                "dumped tensor matches the interpreter"):
        t.diag(log1 + log2)


if __name__ == "__main__":
    main()
