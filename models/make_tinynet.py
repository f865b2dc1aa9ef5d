#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Make the bundled demo model, models/tinynet/ (run once; output committed).

tinynet is a small CNN (about 60k parameters) that classifies 32x32 RGB
images of ten synthetic patterns (stripes in four directions, checkerboard,
ring, square, cross, dots, blob). The patterns are drawn procedurally with
random frequency, phase, colours and noise, so the model can be trained here
in about half a minute on one CPU thread, with a fixed seed, and then
recognises a pattern it has never seen, which makes `make demo` print a
meaningful answer rather than the near-uniform scores of random weights.

Writes models/tinynet/: model.onnx (opset 14, BatchNorm folded by the
exporter, a Softmax at the end so the output is class probabilities),
inputs/input_0.npy (one test image), expected/output_0.npy (torch's output
for it), labels.txt and meta.json.

Usage: /usr/bin/python3 models/make_tinynet.py
"""

import json
import math
import os
import sys

import numpy as np
import torch
from torch import nn

SEED = 7
SIZE = 32
LABELS = ["horizontal stripes", "vertical stripes", "diagonal stripes /",
          "diagonal stripes \\", "checkerboard", "ring", "square", "cross",
          "dots", "blob"]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tinynet")


def pattern(cls, rng):
    """One 3x32x32 image of class cls, values roughly in [-1, 1]."""
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32) / SIZE
    f = rng.uniform(3, 6)
    ph = rng.uniform(0, 2 * math.pi)
    cx, cy = rng.uniform(0.35, 0.65, 2)
    r = np.hypot(x - cx, y - cy)
    if cls == 0:
        m = np.sin(2 * math.pi * f * y + ph) > 0
    elif cls == 1:
        m = np.sin(2 * math.pi * f * x + ph) > 0
    elif cls == 2:
        m = np.sin(2 * math.pi * f * (x + y) / 1.4 + ph) > 0
    elif cls == 3:
        m = np.sin(2 * math.pi * f * (x - y) / 1.4 + ph) > 0
    elif cls == 4:
        m = (np.sin(2 * math.pi * f * x + ph) > 0) ^ \
            (np.sin(2 * math.pi * f * y + ph) > 0)
    elif cls == 5:
        rad = rng.uniform(0.18, 0.3)
        m = np.abs(r - rad) < 0.05
    elif cls == 6:
        h = rng.uniform(0.15, 0.28)
        m = (np.abs(x - cx) < h) & (np.abs(y - cy) < h)
    elif cls == 7:
        w = rng.uniform(0.05, 0.09)
        m = (np.abs(x - cx) < w) | (np.abs(y - cy) < w)
    elif cls == 8:
        m = (np.sin(2 * math.pi * f * x + ph) > 0.7) & \
            (np.sin(2 * math.pi * f * y + ph) > 0.7)
    else:
        m = np.exp(-(r / rng.uniform(0.12, 0.25)) ** 2) > \
            rng.uniform(0.2, 0.5) * np.exp(rng.normal(0, 0.3, r.shape))
    fg = rng.uniform(-1, 1, 3).astype(np.float32)
    bg = rng.uniform(-1, 1, 3).astype(np.float32)
    while np.abs(fg - bg).sum() < 0.8:
        bg = rng.uniform(-1, 1, 3).astype(np.float32)
    img = np.where(m[None], fg[:, None, None], bg[:, None, None])
    img = img + rng.normal(0, 0.15, img.shape)
    return img.astype(np.float32)


def batch(n, rng):
    ys = rng.integers(0, len(LABELS), n)
    return (torch.from_numpy(np.stack([pattern(c, rng) for c in ys])),
            torch.from_numpy(ys))


def tinynet():
    def block(cin, cout, stride):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                nn.BatchNorm2d(cout), nn.ReLU()]
    return nn.Sequential(
        *block(3, 16, 1), *block(16, 32, 2), *block(32, 32, 1),
        nn.MaxPool2d(2), *block(32, 64, 1), *block(64, 64, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 64), nn.ReLU(),
        nn.Linear(64, len(LABELS)))


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    rng = np.random.default_rng(SEED)
    net = tinynet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    net.train()
    for step in range(600):
        x, y = batch(64, rng)
        loss = nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print("step %d loss %.3f" % (step, loss.item()))
    net.eval()
    x, y = batch(1000, rng)
    with torch.no_grad():
        acc = (net(x).argmax(1) == y).float().mean().item()
    print("held-out accuracy %.3f" % acc)

    model = nn.Sequential(net, nn.Softmax(dim=1)).eval()
    # The demo image: a fresh checkerboard the model has not seen.
    img = torch.from_numpy(pattern(4, np.random.default_rng(SEED + 1))[None])
    with torch.no_grad():
        ref = model(img).numpy()
    os.makedirs(os.path.join(OUT, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "expected"), exist_ok=True)
    torch.onnx.export(model, (img,), os.path.join(OUT, "model.onnx"),
                      opset_version=14, input_names=["image"],
                      output_names=["probabilities"])
    np.save(os.path.join(OUT, "inputs", "input_0.npy"), img.numpy())
    np.save(os.path.join(OUT, "expected", "output_0.npy"), ref)
    with open(os.path.join(OUT, "labels.txt"), "w") as f:
        f.write("\n".join(LABELS) + "\n")
    with open(os.path.join(OUT, "meta.json"), "w") as f:
        json.dump({"seed": SEED, "torch": torch.__version__,
                   "train_steps": 600, "batch": 64,
                   "heldout_accuracy": round(acc, 4),
                   "input": "checkerboard (class 4)",
                   "parameters": sum(p.numel() for p in net.parameters())},
                  f, indent=1)
    print("top-1: %s (%.4f)" % (LABELS[int(ref.argmax())], ref.max()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
