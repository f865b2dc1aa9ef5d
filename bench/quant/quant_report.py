#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""PTQ accuracy report: npu-quant on real models, measured on the stack.

For each model (resnet18, mobilenet_v2, the BERT-like encoder of
tests/models/export_models.py; resnet50 on request):

1. The network is the one export_models.py builds (same seed, random
   weights; for the image models the depthwise filters made non-negative
   and each BatchNorm then given the statistics of its input on a batch,
   as a trained network's are and has), with its
   classifier head
   refitted (ridge regression on the penultimate features) to ten classes
   of random-but-structured inputs: images are noisy sinusoidal gratings
   (a class: an orientation, a frequency, a colour; a sample: random
   phase, jitter and pixel noise); token sequences draw 85% of their tokens
   from a class's own 50 words. A random-init network alone answers the same
   class for every input, which makes top-1 agreement vacuous; the refitted
   head makes it a confident, input-dependent classifier. The model is
   exported to ONNX (opset 14, BatchNorm folded by torch's eval export).
2. npu-quant calibrates on CALIB unlabeled samples drawn from the same
   distribution (made now, by seed), with each method asked for.
3. The float and the QDQ model are compiled by the stack (npuc through the
   npu Python package's InferenceSession, online compilation) and run on
   the in-process device on HELD held-out samples: top-1 agreement of the
   QDQ model with the float model (all samples, and the samples where the
   float model's top probability is >= 0.5), the mean and the largest
   relative error of the logits (||q - f|| / ||f|| per sample), the float
   model's accuracy on the held-out labels, calibration time, and the
   compiled QDQ model's tasks by opcode (npu-om), with how many CONV2D and
   MATMUL tasks take int8 operands: whatever the compiler makes of QDQ
   today, the same report measures it.

Writes JSON (--json, default $BUILD/quant/report.json) and a table.

Usage: quant_report.py [--json F] [--calib N] [--held N] [--methods LIST]
                       [--work DIR] [MODEL ...]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", "build")
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
sys.path.insert(0, os.path.join(ROOT, "python"))

CLASSES = 10
TRAIN_PER_CLASS = 24
IMG = 224


def tool(name):
    return os.path.join(ROOT, BUILD, "bin", name)


# --- data ---------------------------------------------------------------------

class ImageData:
    """Ten classes of noisy sinusoidal gratings: each class its own
    orientation, spatial frequency and colour, every sample a random phase,
    jittered orientation and frequency, and pixel noise. (Smooth random
    blobs were tried first: a random-init backbone's pooled features hardly
    tell them apart, so the float model's decisions rested on differences
    under int8's noise.)"""

    def __init__(self, seed=1):
        self.input_name = "input"
        self.yy, self.xx = np.mgrid[0:IMG, 0:IMG] / float(IMG)

    def sample(self, rng, label):
        c = label
        th = np.pi * c / CLASSES + rng.normal(0, 0.05)
        f = 4 + 3 * (c % 4) + rng.normal(0, 0.3)
        g = np.sin(2 * np.pi * f * (np.cos(th) * self.xx +
                                    np.sin(th) * self.yy) +
                   rng.uniform(0, 2 * np.pi))
        col = np.array([np.cos(c), np.sin(c), np.cos(2 * c)])
        x = col[:, None, None] * g[None] * 1.5 + \
            0.3 * rng.standard_normal((3, IMG, IMG))
        return x[None].astype(np.float32)


class TokenData:
    """Ten classes of token sequences: 85% of the tokens from the class's
    own 50 words, the rest uniform over the vocabulary."""

    def __init__(self, seed=1, vocab=1000, seq=128):
        rng = np.random.default_rng(seed)
        self.words = rng.permutation(vocab)[:CLASSES * 50].reshape(
            CLASSES, 50)
        self.vocab, self.seq = vocab, seq
        self.input_name = "input_ids"

    def sample(self, rng, label):
        own = rng.random(self.seq) < 0.85
        ids = np.where(own, rng.choice(self.words[label], self.seq),
                       rng.integers(0, self.vocab, self.seq))
        return ids.astype(np.int64)[None]


def draw(data, seed, n):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % CLASSES
    return [data.sample(rng, int(c)) for c in labels], labels


# --- the model ----------------------------------------------------------------

def head_of(name, model):
    """(parent module, attribute) of the classifier to refit."""
    if name.startswith("resnet"):
        return model, "fc"
    if name == "mobilenet_v2":
        return model.classifier, "1"
    if name == "bert_encoder":
        return model, "cls"
    raise SystemExit("quant_report: no head known for %s" % name)


def bn_recalibrate(model, xs):
    """Give every BatchNorm the statistics of its input on a batch (per
    channel, in forward order), as a trained network's BatchNorm has. With
    export_models.py's random statistics, the constant offsets of 50
    layers drown the input in mobilenet_v2: its pooled features differ
    between classes by 1e-4 against an int8 step of 0.02."""
    import torch
    x = torch.from_numpy(np.concatenate(xs))
    for bn in [m for m in model.modules()
               if isinstance(m, torch.nn.BatchNorm2d)]:
        seen = []
        h = bn.register_forward_pre_hook(lambda m, i: seen.append(i[0]))
        with torch.no_grad():
            model(x)
            h.remove()
            t = seen[0]
            bn.running_mean.copy_(t.mean((0, 2, 3)))
            bn.running_var.copy_(t.var((0, 2, 3)) + 1e-5)


def smooth_depthwise(model):
    """Make every depthwise filter non-negative (|w|): a stand-in for
    trained filters, whose energy lies mostly at low spatial frequencies
    (a 3x3 filter of random signs is a high-pass filter). With random
    signs, the 17
    depthwise layers make mobilenet_v2 chaotic: 1% Gaussian noise on the
    input moves its pooled features by 71% of their spread between
    inputs (resnet18: 6%), int8's rounding noise as far, and top-1
    agreement measures the chaos, not the quantization. With |w|: 3.5%.
    Models without depthwise convolutions are not changed."""
    import torch
    with torch.no_grad():
        for m in model.modules():
            if (isinstance(m, torch.nn.Conv2d) and m.groups > 1 and
                    m.groups == m.in_channels):
                m.weight.abs_()


def build_model(name, out_dir):
    """Export NAME with a refitted ten-class head into out_dir/model.onnx;
    returns (path, data, float accuracy on its training draw)."""
    import torch
    import export_models
    torch.set_num_threads(1)
    data = TokenData() if name == "bert_encoder" else ImageData()
    path = os.path.join(out_dir, "model.onnx")
    meta_path = os.path.join(out_dir, "head.json")
    if os.path.exists(path) and os.path.exists(meta_path):
        with open(meta_path) as f:
            return path, data, json.load(f)
    torch.manual_seed(export_models.SEED)
    gen = torch.Generator().manual_seed(export_models.SEED)
    model, args = export_models.MODELS[name](gen)
    model.eval()
    if isinstance(data, ImageData):
        smooth_depthwise(model)
        bn_recalibrate(model, draw(data, 5, 16)[0])
    parent, attr = head_of(name, model)
    head = getattr(parent, attr)
    feats = []
    hook = head.register_forward_hook(
        lambda m, i, o: feats.append(i[0].detach().reshape(
            i[0].shape[0], -1).numpy()))
    xs, labels = draw(data, 11, CLASSES * TRAIN_PER_CLASS)
    t0 = time.time()
    with torch.no_grad():
        for i in range(0, len(xs), 16):
            model(torch.from_numpy(np.concatenate(xs[i:i + 16])))
    hook.remove()
    fe = np.concatenate(feats).astype(np.float64)
    # ridge regression on the centred features (not standardised: the
    # head leans on the directions in which the features really vary)
    mu = fe.mean(0)
    z = fe - mu
    y = np.eye(CLASSES)[labels] - 1.0 / CLASSES
    gram = z.T @ z
    lam = 0.5 * np.trace(gram) / gram.shape[0]
    w = np.linalg.solve(gram + lam * np.eye(z.shape[1]), z.T @ y)
    logits = z @ w
    # confident logits: a top-1 margin of about 4 on the training draw
    srt = np.sort(logits, 1)
    scale = 4.0 / max(np.median(srt[:, -1] - srt[:, -2]), 1e-6)
    w *= scale
    lin = torch.nn.Linear(fe.shape[1], CLASSES)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(w.T.astype(np.float32)))
        lin.bias.copy_(torch.from_numpy((-mu @ w).astype(np.float32)))
    setattr(parent, attr, lin)
    train_acc = float((logits.argmax(1) == labels).mean())
    tmp = path + ".tmp"
    torch.onnx.export(model, args, tmp, opset_version=14,
                      input_names=[data.input_name],
                      output_names=["logits"])
    os.replace(tmp, path)
    meta = {"train_samples": len(xs), "train_accuracy": train_acc,
            "feature_dim": int(fe.shape[1]),
            "fit_seconds": round(time.time() - t0, 2)}
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    return path, data, meta


# --- measuring ----------------------------------------------------------------

def softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def om_tasks(onnx_path, work):
    """Tasks by opcode of the compiled model and the int8 compute tasks."""
    om = os.path.join(work, os.path.basename(onnx_path) + ".om")
    p = subprocess.run([tool("npuc"), onnx_path, "-o", om, "--no-cache"],
                       capture_output=True, text=True)
    if p.returncode:
        return {"error": (p.stdout + p.stderr).strip()[-300:]}
    p = subprocess.run([tool("npu-om"), "--tasks", om], capture_output=True,
                       text=True)
    ops, int8 = {}, 0
    for line in p.stdout.splitlines():
        m = re.match(r"\s*stream \d+: \d+ task\(s\): (.*)", line)
        if m:
            for op, k in re.findall(r"(\w+) x(\d+)", m.group(1)):
                ops[op] = ops.get(op, 0) + int(k)
        # the int8 ops (QCONV2D, QMATMUL), or a float op fed int8
        m = re.match(r"\s*\d+ (Q?CONV2D|Q?MATMUL)\s+(\S+)", line)
        if m and (m.group(1).startswith("Q") or
                  m.group(2).split(":")[1].startswith(("int8", "uint8"))):
            int8 += 1
    return {"by_opcode": ops, "int8_conv_matmul": int8}


def run_all(sess, name, xs):
    return [sess.run(None, {name: x})[0].reshape(-1) for x in xs]


def measure(name, method, args, work, fpath, data, f_out, held, labels):
    import npu
    qpath = os.path.join(work, "model_%s.onnx" % method)
    rep = os.path.join(work, "npu-quant_%s.json" % method)
    t0 = time.time()
    p = subprocess.run([tool("npu-quant"), fpath, os.path.join(work, "calib"),
                        "-o", qpath, "-m", method, "--report", rep],
                       capture_output=True, text=True)
    wall = time.time() - t0
    if p.returncode:
        return {"method": method, "error": (p.stdout + p.stderr)[-500:]}
    with open(rep) as f:
        qr = json.load(f)
    q_out = run_all(npu.InferenceSession(qpath), data.input_name, held)
    rel = [float(np.linalg.norm(q - f) / np.linalg.norm(f))
           for q, f in zip(q_out, f_out)]
    agree = [int(q.argmax() == f.argmax()) for q, f in zip(q_out, f_out)]
    conf = [softmax(f).max() >= 0.5 for f in f_out]
    nconf = int(sum(conf))
    return {
        "method": method,
        "calibration_samples": qr["samples"],
        "calibration_seconds": qr["calibration_seconds"],
        "sensitivity_seconds": qr["sensitivity_seconds"],
        "npu_quant_seconds": round(wall, 2),
        "held_out": len(held),
        "top1_agreement": float(np.mean(agree)),
        "top1_agreement_confident": float(np.mean(
            [a for a, c in zip(agree, conf) if c])) if nconf else None,
        "confident_samples": nconf,
        "mean_rel_error": float(np.mean(rel)),
        "max_rel_error": float(np.max(rel)),
        "qdq_accuracy": float(np.mean([q.argmax() == c for q, c in
                                       zip(q_out, labels)])),
        "quantized_nodes": sum(1 for x in qr["layers"] if x["quantized"]),
        "most_sensitive": [{"node": x["node"], "rel_error": x["rel_error"]}
                           for x in qr["layers"][:3]],
        "compiled": om_tasks(qpath, work),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*",
                    default=["resnet18", "mobilenet_v2", "bert_encoder"])
    ap.add_argument("--json", default=os.path.join(BUILD, "quant",
                                                   "report.json"))
    ap.add_argument("--calib", type=int, default=16)
    ap.add_argument("--held", type=int, default=100)
    ap.add_argument("--methods", default="minmax,percentile,entropy")
    ap.add_argument("--work", default=os.path.join(BUILD, "quant"))
    a = ap.parse_args()
    for t in ("npu-quant", "npuc", "npu-om"):
        if not os.path.exists(tool(t)):
            raise SystemExit("quant_report: %s is not built (make)" % t)
    import npu
    report = {"classes": CLASSES, "calibration_samples": a.calib,
              "held_out": a.held, "models": {}}
    for name in a.models:
        work = os.path.join(a.work, name)
        os.makedirs(os.path.join(work, "calib"), exist_ok=True)
        fpath, data, head = build_model(name, work)
        cal, _ = draw(data, 21, a.calib)
        for f in os.listdir(os.path.join(work, "calib")):
            os.unlink(os.path.join(work, "calib", f))
        for i, x in enumerate(cal):
            np.save(os.path.join(work, "calib", "%03d.%s.npy" %
                                 (i, data.input_name)), x)
        held, labels = draw(data, 31, a.held)
        fsess = npu.InferenceSession(fpath)
        f_out = run_all(fsess, data.input_name, held)
        # how much the float model itself moves under 1% input noise: a
        # chaotic network moves under int8's noise as much
        noisy = []
        if isinstance(data, ImageData):
            rng = np.random.default_rng(41)
            xs = [(x + 0.01 * x.std() * rng.standard_normal(x.shape)).astype(
                np.float32) for x in held[:10]]
            noisy = [float(np.linalg.norm(g - f) / np.linalg.norm(f))
                     for g, f in zip(run_all(fsess, data.input_name, xs),
                                     f_out)]
        entry = {
            "head": head,
            "float_accuracy": float(np.mean([f.argmax() == c for f, c in
                                             zip(f_out, labels)])),
            "float_mean_top_prob": float(np.mean([softmax(f).max()
                                                  for f in f_out])),
            "float_predicted_classes": len(set(int(f.argmax())
                                               for f in f_out)),
            "float_rel_change_1pct_input_noise":
                float(np.mean(noisy)) if noisy else None,
            "runs": [],
        }
        for method in a.methods.split(","):
            r = measure(name, method, a, work, fpath, data, f_out, held,
                        labels)
            entry["runs"].append(r)
            if "error" in r:
                print("%-14s %-8s error: %s" % (name, method, r["error"]))
                continue
            print("%-14s %-8s top-1 agreement %5.1f%% (confident %s), "
                  "logits rel. error mean %.4f max %.4f, float acc %.0f%%, "
                  "calibration %.1f s (%d samples), int8 conv/matmul tasks "
                  "%s" % (name, method, 100 * r["top1_agreement"],
                          "%.1f%% of %d" % (100 * r["top1_agreement_confident"],
                                            r["confident_samples"])
                          if r["confident_samples"] else "-",
                          r["mean_rel_error"], r["max_rel_error"],
                          100 * entry["float_accuracy"],
                          r["calibration_seconds"], r["calibration_samples"],
                          r["compiled"].get("int8_conv_matmul", "?")))
            sys.stdout.flush()
        report["models"][name] = entry
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
    print("written %s" % a.json)


if __name__ == "__main__":
    main()
