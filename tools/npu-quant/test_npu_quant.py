#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""npu-quant (TAP): a small conv net and an MLP exported by torch at test
time are quantized from .npy calibration sets; the QDQ models pass
onnx.checker and, evaluated by an independent numpy implementation of ONNX's
QuantizeLinear/DequantizeLinear (qdq_ref.py), stay close to float; the
entropy method cuts a heavy-tailed activation where min-max does not; the
sensitivity report ranks an artificially sensitive layer first and the
error threshold leaves it in float; int4 weights are packed, blocked and
dequantize as ONNX opset 21 says; bad inputs give clear errors."""

import json
import re
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import qdq_ref  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
TOOL = os.path.join(BUILD, "bin", "npu-quant")

n = 0
fails = 0


def ok(cond, desc, diag=None):
    global n, fails
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, desc))
    if not cond:
        fails += 1
        if diag:
            for line in str(diag).splitlines()[-20:]:
                print("# " + line)
    sys.stdout.flush()
    return cond


def skip(desc, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, desc, why))
    sys.stdout.flush()


def export(model, x, path):
    import torch
    model.eval()
    torch.onnx.export(model, (x,), path, input_names=["x"],
                      output_names=["y"], opset_version=13)


def make_models(d):
    import torch
    torch.manual_seed(7)
    nn = torch.nn

    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 16, 3, padding=1)
            self.c2 = nn.Conv2d(16, 16, 3, padding=1)
            self.c3 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            a = torch.relu(self.c1(x))
            b = torch.relu(self.c2(a) + a)
            c = torch.relu(self.c3(nn.functional.max_pool2d(b, 2)))
            return self.fc(torch.flatten(
                nn.functional.adaptive_avg_pool2d(c, 1), 1))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(64, 128)
            self.fc2 = nn.Linear(128, 128)
            self.fc3 = nn.Linear(128, 10)

        def forward(self, x):
            h = torch.relu(self.fc1(x))
            h = torch.relu(self.fc2(h))
            return self.fc3(h)

    conv, mlp = Conv(), MLP()
    export(conv, torch.randn(1, 3, 16, 16), os.path.join(d, "conv.onnx"))
    export(mlp, torch.randn(4, 64), os.path.join(d, "mlp.onnx"))
    # the same MLP made sensitive at fc2: one unit of fc1 a thousand times
    # larger, fc2's column for it a thousand times smaller (the float
    # function is unchanged; per-tensor int8 of fc2's input is not)
    with torch.no_grad():
        mlp.fc1.weight[5] *= 1000
        mlp.fc1.bias[5] *= 1000
        mlp.fc2.weight[:, 5] /= 1000
    export(mlp, torch.randn(4, 64), os.path.join(d, "mlp_sens.onnx"))
    # a MatMul MLP with K = 96 (int4 blocks of 32 along K)
    class MM(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = nn.Parameter(torch.randn(96, 64) / 10)
            self.w2 = nn.Parameter(torch.randn(64, 8) / 8)

        def forward(self, x):
            return torch.relu(x @ self.w1) @ self.w2
    export(MM(), torch.randn(2, 96), os.path.join(d, "mm.onnx"))

    # two layers with equal weights: torch's export shares one initializer
    # through Identity nodes
    import copy

    class Shared(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(32, 32)
            self.b = copy.deepcopy(self.a)

        def forward(self, x):
            return self.b(torch.relu(self.a(x)))
    export(Shared(), torch.randn(4, 32), os.path.join(d, "shared.onnx"))

    # two inputs, one with a character files cannot hold
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 8)

        def forward(self, a, b):
            return self.fc(a) + b
    torch.onnx.export(Two().eval(), (torch.randn(2, 16), torch.randn(2, 8)),
                      os.path.join(d, "two.onnx"), input_names=["a", "b:1"],
                      output_names=["y"], opset_version=13)

    def random_stats(*bns):
        # what a trained BatchNorm has: statistics and an affine part
        for b in bns:
            b.running_mean.uniform_(-0.5, 0.5)
            b.running_var.uniform_(0.5, 2.0)
            b.weight.data.uniform_(0.5, 1.5)
            b.bias.data.uniform_(-0.2, 0.2)

    # Conv -> BatchNormalization pairs (eval mode, random statistics), one
    # Conv weight shared by two Convs, one Conv with no bias
    class ConvBN(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
            self.b1 = nn.BatchNorm2d(16)
            self.c2 = nn.Conv2d(16, 32, 3, padding=1)
            self.b2 = nn.BatchNorm2d(32)
            self.fc = nn.Linear(32, 10)
            random_stats(self.b1, self.b2)

        def forward(self, x):
            a = torch.relu(self.b1(self.c1(x)))
            b = torch.relu(self.b2(self.c2(a)))
            return self.fc(torch.flatten(
                nn.functional.adaptive_avg_pool2d(b, 1), 1))

    # one Conv module applied twice, each time with its own BatchNorm:
    # two Conv nodes share the weight initializer (folding copies it)
    class SharedBN(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv2d(3, 8, 3, padding=1)
            self.b1 = nn.BatchNorm2d(8)
            self.b2 = nn.BatchNorm2d(8)
            random_stats(self.b1, self.b2)

        def forward(self, x):
            return (torch.relu(self.b1(self.c(x))) +
                    self.b2(self.c(torch.relu(x))))

    # after the other models: their random weights stay as they were
    for m, f in ((ConvBN(), "convbn.onnx"), (SharedBN(), "sharedbn.onnx")):
        torch.onnx.export(m.eval(), torch.randn(1, 3, 16, 16),
                          os.path.join(d, f), input_names=["x"],
                          output_names=["y"], opset_version=13,
                          do_constant_folding=False,
                          training=torch.onnx.TrainingMode.PRESERVE)


def write_calib(d, name, shape, count, seed, heavy=False):
    rng = np.random.default_rng(seed)
    out = os.path.join(d, name)
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        if heavy:
            x = rng.standard_t(1.5, size=shape).astype(np.float32)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        np.save(os.path.join(out, "%03d.x.npy" % i), x)
    return out


def quant(args, expect=0):
    p = subprocess.run([TOOL] + args, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def load(path):
    import onnx
    return onnx.load(path)


def checker_ok(path):
    import onnx
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return True, ""
    except Exception as e:  # noqa: BLE001
        return False, str(e)


def rel(a, b):
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def float_and_qdq(fmodel, qmodel, xs):
    f = np.concatenate([qdq_ref.run(fmodel, {"x": x})[0] for x in xs])
    q = np.concatenate([qdq_ref.run(qmodel, {"x": x})[0] for x in xs])
    return f, q


def main():
    t = tempfile.mkdtemp(prefix="npu-quant-test.")
    make_models(t)
    conv, mlp = os.path.join(t, "conv.onnx"), os.path.join(t, "mlp.onnx")
    cal_c = write_calib(t, "cal_conv", (1, 3, 16, 16), 16, 1)
    cal_m = write_calib(t, "cal_mlp", (4, 64), 16, 2)
    held_c = [np.random.default_rng(100 + i).standard_normal(
        (1, 3, 16, 16)).astype(np.float32) for i in range(8)]
    held_m = [np.random.default_rng(200 + i).standard_normal(
        (4, 64)).astype(np.float32) for i in range(8)]

    # 1-3: the conv net with each method
    for method in ("minmax", "percentile", "entropy"):
        out = os.path.join(t, "conv_%s.onnx" % method)
        rep = os.path.join(t, "conv_%s.json" % method)
        rc, log = quant([conv, cal_c, "-o", out, "-m", method,
                         "--report", rep])
        good, why = checker_ok(out) if rc == 0 else (False, log)
        if not ok(rc == 0 and good, "conv net, %s: QDQ model written and "
                  "valid for onnx.checker" % method, why):
            continue
        q = load(out)
        ops = [nd.op_type for nd in q.graph.node]
        w8 = [i for i in q.graph.initializer if i.data_type == 3 and
              len(i.dims) == 4]
        dq_axis = [nd for nd in q.graph.node
                   if nd.op_type == "DequantizeLinear" and
                   any(a.name == "axis" for a in nd.attribute)]
        ok(ops.count("QuantizeLinear") >= 5 and len(w8) == 3 and
           len(dq_axis) == 4, "conv net, %s: %d Q, 3 int8 conv weights, "
           "4 per-channel DequantizeLinear (3 Conv, 1 Gemm)" %
           (method, ops.count("QuantizeLinear")), ops)
        f, qq = float_and_qdq(load(conv), q, held_c)
        r = rel(qq, f)
        ok(r < 0.05 and (f.argmax(1) == qq.argmax(1)).mean() >= 0.75,
           "conv net, %s: numpy QDQ evaluation within %.4f of float on "
           "held-out inputs (< 0.05)" % (method, r))
        js = json.load(open(rep))
        ok(js["qdq_check"].get("rel_error", 1) < 0.05 and
           abs(js["qdq_check"]["rel_error"] -
               rel(*float_and_qdq(load(conv), q, [
                   np.load(os.path.join(cal_c, "%03d.x.npy" % i))
                   for i in range(4)])[::-1])) < 2e-3,
           "conv net, %s: the tool's own check of the written model "
           "(compiler interpreter, %.5f) agrees with numpy's" %
           (method, js["qdq_check"].get("rel_error", -1)))

    # KL vs min-max on a heavy-tailed activation (the input of fc1)
    cal_h = write_calib(t, "cal_heavy", (4, 64), 16, 3, heavy=True)
    thr = {}
    for method in ("minmax", "entropy", "percentile"):
        rep = os.path.join(t, "heavy_%s.json" % method)
        rc, log = quant([mlp, cal_h, "-o", os.path.join(t, "h.onnx"), "-m",
                         method, "--report", rep, "-q", "--percentile",
                         "99.5"])
        js = json.load(open(rep)) if rc == 0 else {"tensors": []}
        for e in js["tensors"]:
            if e["tensor"] == "x":
                thr[method] = (e["lo"], e["hi"], e["min"], e["max"])
    if ok(len(thr) == 3, "heavy-tailed input: ranges reported for three "
          "methods", thr):
        mm, kl, pc = thr["minmax"], thr["entropy"], thr["percentile"]
        ok(kl[1] - kl[0] < 0.5 * (mm[1] - mm[0]) and
           mm[1] == mm[3] and mm[0] == mm[2],
           "entropy range [%.2f, %.2f] is under half of min-max's "
           "[%.2f, %.2f] (the tails are cut)" % (kl[0], kl[1], mm[0],
                                                 mm[1]))
        ok(pc[1] - pc[0] < mm[1] - mm[0],
           "percentile range [%.2f, %.2f] is inside min-max's" %
           (pc[0], pc[1]))
    # and on a Gaussian the entropy range keeps most of the range
    rep = os.path.join(t, "gauss_kl.json")
    rc, _ = quant([mlp, cal_m, "-o", os.path.join(t, "g.onnx"), "-m",
                   "entropy", "--report", rep, "-q"])
    if rc == 0:
        e = [e for e in json.load(open(rep))["tensors"]
             if e["tensor"] == "x"][0]
        ok(e["hi"] - e["lo"] > 0.5 * (e["max"] - e["min"]),
           "gaussian input: entropy range [%.2f, %.2f] keeps over half of "
           "[%.2f, %.2f]" % (e["lo"], e["hi"], e["min"], e["max"]))
    else:
        ok(False, "gaussian input: entropy run")

    # sensitivity
    sens = os.path.join(t, "mlp_sens.onnx")
    rep = os.path.join(t, "sens.json")
    out = os.path.join(t, "sens.onnx")
    rc, log = quant([sens, cal_m, "-o", out, "--report", rep, "-q"])
    js = json.load(open(rep)) if rc == 0 else {"layers": []}
    lay = js["layers"]
    fc2 = [nd.name for nd in load(sens).graph.node
           if nd.op_type == "Gemm"][1]
    ok(lay and lay[0]["node"] == fc2 and lay[0]["rel_error"] >
       5 * lay[1]["rel_error"], "sensitivity report ranks the doctored "
       "layer %s first (%s)" % (fc2, ", ".join(
           "%s %.4f" % (x["node"], x["rel_error"]) for x in lay[:3])), log)
    f, q_all = float_and_qdq(load(sens), load(out), held_m)
    r_all = rel(q_all, f)
    out2 = os.path.join(t, "sens_thr.onnx")
    thr_v = (lay[0]["rel_error"] + lay[1]["rel_error"]) / 2 if lay else 0.1
    rc, log = quant([sens, cal_m, "-o", out2, "--report", rep, "-q",
                     "--error-threshold", "%g" % thr_v])
    js = json.load(open(rep)) if rc == 0 else {"layers": []}
    kept = [x["node"] for x in js["layers"] if not x["quantized"]]
    q2 = load(out2) if rc == 0 else None
    node = [nd for nd in q2.graph.node if nd.name == fc2][0] if q2 else None
    ok(kept == [fc2] and node is not None and
       all(not i.endswith("DequantizeLinear_Output") for i in node.input),
       "--error-threshold %.3g leaves %s in float (no DequantizeLinear "
       "feeds it)" % (thr_v, fc2), log)
    _, q_thr = float_and_qdq(load(sens), q2, held_m) if q2 else (0, f)
    r_thr = rel(q_thr, f)
    ok(checker_ok(out2)[0] and r_thr < 0.3 * r_all,
       "... and the model's error drops from %.4f to %.4f" % (r_all, r_thr))
    rc, log = quant([sens, cal_m, "-o", out2, "-q", "--keep-float", fc2])
    q3 = load(out2) if rc == 0 else None
    ok(q3 is not None and any(i.name.startswith("fc2.weight") and
                              i.data_type == 1 for i in q3.graph.initializer)
       and sum(i.data_type == 3 and len(i.dims) == 2
               for i in q3.graph.initializer) == 2,
       "--keep-float NODE keeps its weight in float, the others int8", log)

    # uint8 symmetric activations, weight-only int8
    out = os.path.join(t, "u8.onnx")
    rc, log = quant([mlp, cal_m, "-o", out, "--activations", "uint8",
                     "--symmetric", "-q"])
    if rc == 0:
        q = load(out)
        zps = [i for i in q.graph.initializer if i.name.endswith(
            "_zero_point") and not i.dims]
        f, qq = float_and_qdq(load(mlp), q, held_m)
        ok(checker_ok(out)[0] and zps and all(z.data_type == 2 for z in zps)
           and rel(qq, f) < 0.05, "uint8 symmetric activations: valid, "
           "error %.4f" % rel(qq, f))
    else:
        ok(False, "uint8 symmetric activations", log)
    out = os.path.join(t, "w8.onnx")
    rc, log = quant([mlp, cal_m, "-o", out, "--weight-only", "-q"])
    q = load(out) if rc == 0 else None
    ok(q is not None and checker_ok(out)[0] and
       not any(nd.op_type == "QuantizeLinear" for nd in q.graph.node) and
       sum(nd.op_type == "DequantizeLinear" for nd in q.graph.node) == 3,
       "--weight-only: three weight DequantizeLinear, no QuantizeLinear",
       log)

    # int4 weight-only, blocked
    mm = os.path.join(t, "mm.onnx")
    cal_mm = write_calib(t, "cal_mm", (2, 96), 4, 4)
    errs = {}
    for g in (32, 64):
        out = os.path.join(t, "mm_int4_%d.onnx" % g)
        rc, log = quant([mm, cal_mm, "-o", out, "--weights", "int4",
                         "--group-size", str(g), "-q"])
        if not ok(rc == 0, "--weights int4 --group-size %d written" % g,
                  log):
            continue
        q = load(out)
        fm = load(mm)
        opset = [o.version for o in q.opset_import if o.domain in ("",
                 "ai.onnx")][0]
        i4 = [i for i in q.graph.initializer if i.data_type == 22]
        dq = [nd for nd in q.graph.node if nd.op_type == "DequantizeLinear"]
        at = {a.name: a.i for a in dq[0].attribute} if dq else {}
        ok(opset == 21 and q.ir_version >= 10 and len(i4) == 2 and
           len(i4[0].raw_data) == (96 * 64 + 1) // 2 and
           at.get("block_size") == g and at.get("axis") == 0,
           "int4 g%d: opset 21, IR 10, two INT4 (22) initializers of "
           "K*N/2 bytes, block_size %d along K (axis 0)" % (g, g))
        inits = {i.name: i for i in q.graph.initializer}
        w1 = qdq_ref.tensor_to_numpy(
            [i for i in fm.graph.initializer if list(i.dims) == [96, 64]][0])
        q1 = qdq_ref.tensor_to_numpy(inits[dq[0].input[0]])
        s1 = qdq_ref.tensor_to_numpy(inits[dq[0].input[1]])
        deq = qdq_ref.dequantize(q1, s1, None, 0, g)
        ok(s1.shape == (-(-96 // g), 64) and q1.min() >= -8 and
           q1.max() <= 7 and np.all(np.abs(deq - w1) <=
                                    np.repeat(s1, g, 0)[:96] / 2 + 1e-7),
           "int4 g%d: scales [%d, 64], values in [-8, 7], every weight "
           "within half a step of its block's scale" % (g, -(-96 // g)))
        x = np.random.default_rng(5).standard_normal((2, 96)).astype(
            np.float32)
        f = qdq_ref.run(fm, {"x": x})[0]
        qq = qdq_ref.run(q, {"x": x})[0]
        # 15 levels on Gaussian weights: ~9% per layer, two layers
        errs[g] = rel(qq, f)
        ok(errs[g] < 0.25, "int4 g%d: the w4 model's output within "
           "%.4f of float (< 0.25)" % (g, errs[g]))
    ok(len(errs) == 2 and errs[32] < errs[64], "int4: blocks of 32 are "
       "more accurate than blocks of 64 (%s)" % errs)

    # a weight shared through Identity nodes is quantized once, for both
    sh = os.path.join(t, "shared.onnx")
    cal_s = write_calib(t, "cal_shared", (4, 32), 8, 6)
    out = os.path.join(t, "shared_q.onnx")
    rc, log = quant([sh, cal_s, "-o", out, "-q"])
    if ok(rc == 0 and checker_ok(out)[0], "shared weights: QDQ model valid",
          log):
        q, fm = load(out), load(sh)
        f, qq = float_and_qdq(fm, q, [np.random.default_rng(7).standard_normal(
            (4, 32)).astype(np.float32)])
        ok(any(nd.op_type == "Identity" for nd in fm.graph.node) and
           not any(nd.op_type == "Identity" and nd.input[0] == "a.weight"
                   for nd in q.graph.node) and
           not any(i.data_type == 1 and len(i.dims) == 2
                   for i in q.graph.initializer) and
           sum(nd.op_type == "Gemm" and
               nd.input[1].endswith("DequantizeLinear_Output")
               for nd in q.graph.node) == 2 and rel(qq, f) < 0.05,
           "shared weights: both Gemm read the int8 weight, the float one "
           "and its Identity are gone, error %.4f" % rel(qq, f))

    # two inputs: SAMPLE.INPUT.npy, the name made a file stem
    two = os.path.join(t, "two.onnx")
    cal2 = os.path.join(t, "cal_two")
    os.makedirs(cal2)
    rng = np.random.default_rng(8)
    for i in range(6):
        np.save(os.path.join(cal2, "s%d.a.npy" % i),
                rng.standard_normal((2, 16)).astype(np.float32))
        np.save(os.path.join(cal2, "s%d.b_1.npy" % i),
                rng.standard_normal((2, 8)).astype(np.float32))
    rep = os.path.join(t, "two.json")
    rc, log = quant([two, cal2, "-o", os.path.join(t, "two_q.onnx"),
                     "--report", rep, "-q"])
    js = json.load(open(rep)) if rc == 0 else {}
    ok(rc == 0 and js.get("samples") == 6 and checker_ok(
        os.path.join(t, "two_q.onnx"))[0] and
       {"a", "b:1"} <= {e["tensor"] for e in js["tensors"]},
       "two inputs (a, b:1): 6 samples read as SAMPLE.a.npy and "
       "SAMPLE.b_1.npy, both inputs calibrated", log)
    os.unlink(os.path.join(cal2, "s3.b_1.npy"))
    rc, log = quant([two, cal2, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "'s3'" in log and "s3.b_1.npy" in log,
       "a sample without one of its inputs: exit 2 naming the file", log)
    np.save(os.path.join(cal2, "s3.c.npy"), np.zeros((2, 8), np.float32))
    rc, log = quant([two, cal2, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "s3.c.npy" in log and "names no input" in log,
       "a file for no input: exit 2 naming the inputs", log)

    # garbage in, clear errors out
    bad = os.path.join(t, "bad")
    os.makedirs(bad)
    open(os.path.join(bad, "000.x.npy"), "wb").write(b"not a numpy file")
    rc, log = quant([mlp, bad, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "000.x.npy" in log, "a corrupt .npy: exit 2 naming the "
       "file", log)
    wrong = write_calib(t, "wrong", (4, 63), 2, 9)
    rc, log = quant([mlp, wrong, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "wants" in log and "[4,63]" in log and "[4,64]" in log,
       "a sample of the wrong shape: exit 2 with both shapes", log)
    np.save(os.path.join(t, "wrong", "000.x.npy"),
            np.zeros((4, 64), np.float64))
    rc, log = quant([mlp, wrong, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and ("<f8" in log or "f64" in log) and
       ("float32" in log or "f32" in log),
       "a float64 sample: exit 2 naming the dtypes", log)
    empty = os.path.join(t, "empty")
    os.makedirs(empty)
    rc, log = quant([mlp, empty, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "no .npy" in log, "an empty calibration directory: "
       "exit 2", log)
    open(os.path.join(t, "junk.onnx"), "wb").write(os.urandom(300))
    rc, log = quant([os.path.join(t, "junk.onnx"), cal_m, "-o",
                     os.path.join(t, "b.onnx")])
    ok(rc == 2 and "junk.onnx" in log, "a file that is no ONNX model: "
       "exit 2", log)
    rc, log = quant([mlp, cal_m, "-o", os.path.join(t, "b.onnx"), "-m",
                     "magic"])
    ok(rc == 2 and "--method" in log, "an unknown method: exit 2", log)
    rc, log = quant([os.path.join(t, "conv_minmax.onnx"), cal_c, "-o",
                     os.path.join(t, "b.onnx")])
    ok(rc == 2 and "quantized already" in log, "a QDQ model as input: "
       "exit 2", log)

    # BatchNormalization folded into the Conv before it: the QDQ model has
    # none, and npuc makes int8 convolutions of it
    convbn = os.path.join(t, "convbn.onnx")
    fm = load(convbn)
    out = os.path.join(t, "convbn_q.onnx")
    rc, log = quant([convbn, cal_c, "-o", out])
    q = load(out) if rc == 0 else None
    ops = [nd.op_type for nd in q.graph.node] if q else []
    ok([nd.op_type for nd in fm.graph.node].count("BatchNormalization") == 2
       and rc == 0 and checker_ok(out)[0] and
       "BatchNormalization" not in ops and
       "2 BatchNormalization folded" in log and
       len([i for i in q.graph.initializer if i.data_type == 3 and
            len(i.dims) == 4]) == 2,
       "conv+bn net: both BatchNormalizations folded, 2 int8 conv weights",
       log + " ".join(ops))
    if q:
        f, qq = float_and_qdq(fm, q, held_c)
        r = rel(qq, f)
        ok(r < 0.05, "conv+bn net: numpy QDQ evaluation of the folded "
           "model within %.4f of the float model with its BatchNorms "
           "(< 0.05)" % r)
        # the compiler of the plain build (the sanitizer run builds only
        # npu-quant in its tree)
        bins = [os.path.join(b, "bin") for b in (BUILD, "build")
                if os.path.exists(os.path.join(b, "bin", "npuc")) and
                os.path.exists(os.path.join(b, "bin", "npu-om"))]
        if not bins:
            skip("conv+bn net: npuc compiles it", "npuc, npu-om not built")
        else:
            om = os.path.join(t, "convbn_q.om")
            p = subprocess.run([os.path.join(bins[0], "npuc"), out, "-o",
                                om, "--no-cache"], capture_output=True,
                               text=True)
            tasks = subprocess.run(
                [os.path.join(bins[0], "npu-om"), "--tasks", om],
                capture_output=True, text=True).stdout \
                if p.returncode == 0 else ""
            nq = len(re.findall(r"\bQCONV2D\b", tasks))
            ok(p.returncode == 0 and nq == 2, "conv+bn net: npuc compiles "
               "both convolutions to QCONV2D tasks (%d)" % nq,
               p.stderr[-500:])
    else:
        ok(False, "conv+bn net: numpy QDQ evaluation", log)
        ok(False, "conv+bn net: npuc compiles it", log)

    # a weight two Convs share: each folded Conv gets its own weights
    sbn = os.path.join(t, "sharedbn.onnx")
    fm = load(sbn)
    out = os.path.join(t, "sharedbn_q.onnx")
    rc, log = quant([sbn, cal_c, "-o", out])
    q = load(out) if rc == 0 else None
    convs = [nd for nd in q.graph.node if nd.op_type == "Conv"] if q else []
    r = rel(*reversed(float_and_qdq(fm, q, held_c))) if q else 1
    ok(rc == 0 and checker_ok(out)[0] and len(convs) == 2 and
       convs[0].input[1] != convs[1].input[1] and
       "2 BatchNormalization folded" in log and r < 0.05,
       "shared conv weight: both BatchNormalizations folded into their "
       "own copies of the weight, QDQ within %.4f of float" % r, log)

    # around the folding: an IR version 3 model (initializers listed as
    # inputs) is quantized unfolded; malformed nodes get the importer's
    # message, not a crash
    import onnx
    from onnx import helper
    m3 = load(convbn)
    m3.ir_version = 3
    for init in m3.graph.initializer:
        m3.graph.input.append(helper.make_tensor_value_info(
            init.name, init.data_type, list(init.dims)))
    f3 = os.path.join(t, "convbn_ir3.onnx")
    onnx.save(m3, f3)
    rc, log = quant([f3, cal_c, "-o", os.path.join(t, "ir3_q.onnx")])
    ok(rc == 0 and "folded" not in log, "IR version 3: quantized without "
       "folding (no initializer left behind as an input to feed)", log)
    mb = load(convbn)
    bn = [nd for nd in mb.graph.node if nd.op_type == "BatchNormalization"]
    a = bn[0].attribute.add()
    a.type = onnx.AttributeProto.FLOAT
    a.f = 1.0
    fb = os.path.join(t, "convbn_noname.onnx")
    onnx.save(mb, fb)
    rc, log = quant([fb, cal_c, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "attribute without a name" in log, "a BatchNormalization "
       "attribute without a name: exit 2 with the importer's message", log)
    mn = load(convbn)
    mn.graph.node.add()
    fn = os.path.join(t, "convbn_noop.onnx")
    onnx.save(mn, fn)
    rc, log = quant([fn, cal_c, "-o", os.path.join(t, "b.onnx")])
    ok(rc == 2 and "no op_type" in log, "a node without an op_type: exit 2 "
       "with the importer's message", log)

    print("1..%d" % n)
    import shutil
    if not fails:
        shutil.rmtree(t)
    else:
        print("# files kept in " + t)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
