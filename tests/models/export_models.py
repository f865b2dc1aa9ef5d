#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Export the end-to-end test models to ONNX with torch's reference outputs.

For each model this writes, into OUT/<name>/ (default build/models/<name>/):

  model.onnx            the exported graph (random weights, fixed seed)
  inputs/input_0.npy    the input tensor
  expected/output_0.npy torch's output for that input (float32, CPU)
  meta.json             names, shapes, opset, torch version, export time
  stamp                 hash of this script + torch/torchvision versions

Exports are cached: a model is regenerated only when the stamp differs (this
script changed, or torch was upgraded) or a file is missing. Run it with
Debian's /usr/bin/python3, which has torch and torchvision.

Usage: export_models.py [--out DIR] [--force] [--list] [NAME ...]
"""

import argparse
import fcntl
import hashlib
import json
import os
import sys
import time

OPSET = 14
SEED = 20240229


def _torch():
    import torch
    torch.set_num_threads(1)
    return torch


def randomize_batchnorm(model, gen):
    """Give every BatchNorm non-trivial statistics and affine parameters.

    torchvision initialises BN to weight 1, bias 0, mean 0, var 1, which makes
    BN folding an identity and lets some nets (mobilenet_v2) collapse to
    outputs around 1e-9. Realistic statistics make the test meaningful.
    """
    torch = _torch()
    for mod in model.modules():
        if isinstance(mod, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            c = mod.num_features
            with torch.no_grad():
                mod.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                mod.bias.copy_(torch.randn(c, generator=gen) * 0.1)
                mod.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                mod.running_var.copy_(torch.rand(c, generator=gen) * 0.5
                                      + 0.75)


def torchvision_model(name):
    def build(gen):
        torch = _torch()
        import torchvision
        model = getattr(torchvision.models, name)(weights=None)
        randomize_batchnorm(model, gen)
        x = torch.randn(1, 3, 224, 224, generator=gen)
        return model, (x,)
    return build


def two_branch_cnn(gen):
    """Two independent conv branches over one input, joined at the end.

    Neither branch depends on the other until the Concat, so the compiler's
    stream assignment can put them on two streams.
    """
    torch = _torch()
    nn = torch.nn

    def block(cin, cout, k, stride):
        return nn.Sequential(
            nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2,
                      bias=False),
            nn.BatchNorm2d(cout), nn.ReLU())

    class TwoBranch(nn.Module):
        def __init__(self):
            super().__init__()
            self.left = nn.Sequential(
                block(3, 32, 3, 1), block(32, 32, 3, 1), nn.MaxPool2d(2),
                block(32, 64, 3, 1), block(64, 64, 3, 1),
                nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.right = nn.Sequential(
                block(3, 24, 5, 2), block(24, 48, 5, 1), nn.AvgPool2d(2),
                block(48, 96, 3, 1), nn.Hardswish(),
                nn.AdaptiveMaxPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Linear(64 + 96, 128), nn.ReLU(),
                                      nn.Linear(128, 10))

        def forward(self, x):
            return self.head(torch.cat([self.left(x), self.right(x)], 1))

    model = TwoBranch()
    randomize_batchnorm(model, gen)
    return model, (torch.randn(1, 3, 64, 64, generator=gen),)


def bert_encoder(gen):
    """A BERT-like encoder: token + position embeddings, LayerNorm, four
    post-norm transformer layers with GELU, a tanh pooler over the first
    token and a classifier. Sequence length 128."""
    torch = _torch()
    nn = torch.nn
    vocab, hidden, heads, ffn, layers, seq, classes = 1000, 256, 4, 1024, 4, \
        128, 10

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, hidden)
            self.pos = nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
            self.norm = nn.LayerNorm(hidden, eps=1e-12)
            layer = nn.TransformerEncoderLayer(
                hidden, heads, ffn, dropout=0.0, activation="gelu",
                batch_first=True, layer_norm_eps=1e-12)
            self.encoder = nn.TransformerEncoder(layer, layers,
                                                 enable_nested_tensor=False)
            self.pool = nn.Linear(hidden, hidden)
            self.cls = nn.Linear(hidden, classes)

        def forward(self, ids):
            h = self.norm(self.tok(ids) + self.pos)
            h = self.encoder(h)
            return self.cls(torch.tanh(self.pool(h[:, 0])))

    model = Bert()
    ids = torch.randint(0, vocab, (1, seq), generator=gen, dtype=torch.int64)
    return model, (ids,)


def dense_blocks(gen):
    """A small densenet-like, concat-heavy CNN: two dense blocks of four
    layers (BN-ReLU-1x1 conv-BN-ReLU-3x3 conv, every layer reading the
    concat of all the earlier ones) joined by a transition. Every layer
    feeds every later one, so the graph is full of cross-branch edges: the
    stream and semaphore budget test of densenet121 at a make-check size.
    """
    torch = _torch()
    nn = torch.nn

    class Layer(nn.Module):
        def __init__(self, cin, growth):
            super().__init__()
            self.f = nn.Sequential(
                nn.BatchNorm2d(cin), nn.ReLU(),
                nn.Conv2d(cin, 2 * growth, 1, bias=False),
                nn.BatchNorm2d(2 * growth), nn.ReLU(),
                nn.Conv2d(2 * growth, growth, 3, padding=1, bias=False))

        def forward(self, feats):
            return self.f(torch.cat(feats, 1))

    class Block(nn.Module):
        def __init__(self, cin, growth, n):
            super().__init__()
            self.layers = nn.ModuleList(
                Layer(cin + i * growth, growth) for i in range(n))

        def forward(self, x):
            feats = [x]
            for layer in self.layers:
                feats.append(layer(feats))
            return torch.cat(feats, 1)

    class Dense(nn.Module):
        def __init__(self):
            super().__init__()
            g = 8
            self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
            self.b1 = Block(16, g, 4)
            self.t1 = nn.Sequential(nn.BatchNorm2d(48), nn.ReLU(),
                                    nn.Conv2d(48, 24, 1, bias=False),
                                    nn.AvgPool2d(2))
            self.b2 = Block(24, g, 4)
            self.head = nn.Sequential(nn.BatchNorm2d(56), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                      nn.Linear(56, 10))

        def forward(self, x):
            return self.head(self.b2(self.t1(self.b1(self.stem(x)))))

    model = Dense()
    randomize_batchnorm(model, gen)
    return model, (torch.randn(1, 3, 32, 32, generator=gen),)


def branches40(gen):
    """Forty independent branches over one input (conv 3x3 - ReLU - conv
    1x1 each), joined by one Concat and a classifier: far more parallel
    work than the device has queues, so stream assignment must fold the
    branches onto its streams and keep the semaphores within budget."""
    torch = _torch()
    nn = torch.nn

    class Branches(nn.Module):
        def __init__(self):
            super().__init__()
            self.br = nn.ModuleList(
                nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(),
                              nn.Conv2d(4, 2, 1))
                for _ in range(40))
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                      nn.Linear(80, 10))

        def forward(self, x):
            return self.head(torch.cat([b(x) for b in self.br], 1))

    model = Branches()
    return model, (torch.randn(1, 4, 16, 16, generator=gen),)


def detector_module():
    """A one-stage detector: a conv backbone, box and score heads over an
    8x8 anchor grid, box decoding and torchvision's nms; returns the kept
    boxes and their scores, [n, 5] (NonMaxSuppression, then Gathers by its
    selection: an output whose extent the data decides)."""
    torch = _torch()
    import torchvision
    nn = torch.nn

    class Detector(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
            self.box, self.cls = nn.Conv2d(16, 4, 1), nn.Conv2d(16, 1, 1)
            ys, xs = torch.meshgrid(torch.arange(8.), torch.arange(8.),
                                    indexing="ij")
            self.register_buffer("anchors", torch.stack(
                [xs.flatten(), ys.flatten()], 1) * 4 + 2)

        def forward(self, x):
            f = self.body(x)
            d = self.box(f).flatten(2)[0].t()
            s = torch.sigmoid(self.cls(f).flatten())
            c, wh = self.anchors + d[:, :2], torch.exp(d[:, 2:]) * 24
            b = torch.cat([c - wh / 2, c + wh / 2], 1)
            keep = torchvision.ops.nms(b, s, 0.3)
            return torch.cat([b[keep], s[keep, None]], 1)

    return Detector()


def detector_nms(gen):
    torch = _torch()
    return detector_module(), (torch.randn(1, 3, 32, 32, generator=gen),)


MODELS = {
    "resnet18": torchvision_model("resnet18"),
    "resnet50": torchvision_model("resnet50"),
    "mobilenet_v2": torchvision_model("mobilenet_v2"),
    "squeezenet1_1": torchvision_model("squeezenet1_1"),
    "two_branch_cnn": two_branch_cnn,
    "bert_encoder": bert_encoder,
    "densenet121": torchvision_model("densenet121"),
    "dense_blocks": dense_blocks,
    "branches40": branches40,
    "detector_nms": detector_nms,
}


# Exported with their BatchNormalization nodes (see export()).
KEEP_BATCHNORM = ("resnet18", "two_branch_cnn")


def stamp_of(name):
    torch = _torch()
    import torchvision
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read())
    h.update(("%s|%s|%s" % (name, torch.__version__,
                            torchvision.__version__)).encode())
    return h.hexdigest()


def up_to_date(d, stamp):
    need = ["model.onnx", "inputs/input_0.npy", "expected/output_0.npy",
            "meta.json", "stamp"]
    if not all(os.path.exists(os.path.join(d, n)) for n in need):
        return False
    with open(os.path.join(d, "stamp")) as f:
        return f.read().strip() == stamp


def export(name, out, force=False):
    """Export one model into out/name unless it is already up to date."""
    import numpy as np
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, ".lock"), "w") as lock:
        # Several tests may ask for the same model at once.
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = stamp_of(name)
        if not force and up_to_date(d, stamp):
            return d
        torch = _torch()
        t0 = time.time()
        torch.manual_seed(SEED)
        gen = torch.Generator().manual_seed(SEED)
        model, args = MODELS[name](gen)
        model.eval()
        # Grad stays enabled: a TransformerEncoder under no_grad takes a
        # fused fast path that the exporter cannot trace (DESIGN.md 10).
        ref = model(*args)
        ref = ref.detach().numpy().astype(np.float32)
        in_names = ["input_ids" if name == "bert_encoder" else "input"]
        tmp = os.path.join(d, "model.onnx.tmp")
        # For the models in KEEP_BATCHNORM the exporter does not fold
        # BatchNormalization into Conv, so the compiler's own BN folding is
        # what the test exercises (DESIGN.md 10).
        torch.onnx.export(model, args, tmp, opset_version=OPSET,
                          input_names=in_names, output_names=["logits"],
                          training=(torch.onnx.TrainingMode.PRESERVE
                                    if name in KEEP_BATCHNORM else
                                    torch.onnx.TrainingMode.EVAL))
        os.replace(tmp, os.path.join(d, "model.onnx"))
        for sub in ("inputs", "expected"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        # Files are named by position only (input_K.npy, output_K.npy), so
        # npu-run never has to choose between two spellings of one tensor.
        for i, a in enumerate(args):
            np.save(os.path.join(d, "inputs", "input_%d.npy" % i), a.numpy())
        np.save(os.path.join(d, "expected", "output_0.npy"), ref)
        top = np.sort(ref.reshape(ref.shape[0], -1)[0])[::-1]
        meta = {
            "name": name, "opset": OPSET, "seed": SEED,
            "torch": torch.__version__, "inputs": in_names,
            "input_shapes": [list(a.shape) for a in args],
            "outputs": ["logits"], "output_shape": list(ref.shape),
            "max_abs_logit": float(np.abs(ref).max()),
            "top1_margin": float(top[0] - top[1]) if top.size > 1 else 0.0,
            "export_seconds": round(time.time() - t0, 3),
        }
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
        with open(os.path.join(d, "stamp"), "w") as f:
            f.write(stamp + "\n")
        return d


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="build/models",
                   help="output directory (default: %(default)s)")
    p.add_argument("--force", action="store_true",
                   help="re-export even when the cached copy is current")
    p.add_argument("--list", action="store_true", help="list model names")
    p.add_argument("names", nargs="*", help="models (default: all)")
    a = p.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return 0
    bad = [n for n in a.names if n not in MODELS]
    if bad:
        print("export_models.py: unknown model %s; known: %s"
              % (", ".join(bad), ", ".join(MODELS)), file=sys.stderr)
        return 2
    import warnings
    warnings.filterwarnings("ignore")
    for n in a.names or MODELS:
        print(export(n, a.out, a.force))
    return 0


if __name__ == "__main__":
    sys.exit(main())
