#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Models for the diagnosis tests (tests/diag/diag.t).

  make_models.py OUT_DIR

writes into OUT_DIR:
  cnn.onnx          Conv-BN-ReLU blocks (BatchNormalization kept, so the
                    compiler folds and fuses it), a residual Add, pooling,
                    a Gemm head; random BN statistics
  cnn_bad.onnx      the same with one weight perturbed: the Conv named in
                    cnn_bad.txt (a fault whose first divergent node is known)
  two_branch.onnx   two independent conv branches (two streams)
  overflow.onnx     x * 1e30 -> Exp: float32 overflows to inf at the Exp
  softmax16.onnx    Linear -> x30 -> exp / sum(exp) -> Linear: fine in
                    float32, the Exp overflows the f16 range (65504) in an
                    f16 compile (npuc --precision force_fp16)
  input.npy         the input of cnn and two_branch (1, 8, 16, 16): 8
                    channels, so that it enters NC1HWC0 through a
                    TransData the dump tests read back (a first Conv reads
                    an image of 4 channels or fewer as NCHW itself)
  small.npy         the input of overflow (1, 8)
  x16.npy, softmax16_ref.npy   the input of softmax16 (4, 32), its output
"""

import os
import sys

import numpy as np
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin, cout, residual):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)
        self.residual = residual

    def forward(self, x):
        y = self.bn(self.conv(x))
        if self.residual:
            y = y + x
        return torch.relu(y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = Block(8, 16, False)
        self.b2 = Block(16, 16, True)
        self.pool = nn.MaxPool2d(2)
        self.b3 = Block(16, 24, False)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        x = self.pool(self.b2(self.b1(x)))
        x = self.gap(self.b3(x))
        return self.fc(torch.flatten(x, 1))


class TwoBranch(nn.Module):
    """Two independent branches (two streams), joined by an Add."""

    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                               nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(),
                               nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())

    def forward(self, x):
        return self.a(x) + self.b(x)


class Overflow(nn.Module):
    def forward(self, x):
        return torch.exp(torch.relu(x * 1e30) + 1.0) * 0.5


class Softmax16(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 32)
        self.fc2 = nn.Linear(32, 16)

    def forward(self, x):
        e = torch.exp(self.fc1(x) * 30.0)
        return self.fc2(e / e.sum(-1, keepdim=True))


def export(model, x, path, preserve):
    kw = {}
    if preserve:
        kw["training"] = torch.onnx.TrainingMode.PRESERVE
    torch.onnx.export(model, (x,), path, opset_version=14,
                      input_names=["input"], output_names=["output"],
                      do_constant_folding=False, **kw)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(3)
    gen = torch.Generator().manual_seed(5)
    net = Net()
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            with torch.no_grad():
                m.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=gen) * 0.5
                                    + 0.75)
    net.eval()
    x = torch.randn(1, 8, 16, 16, generator=gen)
    np.save(os.path.join(out, "input.npy"), x.numpy())
    export(net, x, os.path.join(out, "cnn.onnx"), True)
    # the fault: b3's conv weights perturbed (a real, localised bug)
    with torch.no_grad():
        net.b3.conv.weight[0] += 0.5
    export(net, x, os.path.join(out, "cnn_bad.onnx"), True)
    import onnx
    g = onnx.load(os.path.join(out, "cnn_bad.onnx")).graph
    convs = [n.name for n in g.node if n.op_type == "Conv"]
    with open(os.path.join(out, "cnn_bad.txt"), "w") as f:
        f.write(convs[2] + "\n")
    export(TwoBranch().eval(), x, os.path.join(out, "two_branch.onnx"), False)
    s = torch.randn(1, 8, generator=gen)
    np.save(os.path.join(out, "small.npy"), s.numpy())
    export(Overflow().eval(), s, os.path.join(out, "overflow.onnx"), False)
    sm = Softmax16().eval()
    x16 = torch.randn(4, 32, generator=gen)
    np.save(os.path.join(out, "x16.npy"), x16.numpy())
    with torch.no_grad():
        np.save(os.path.join(out, "softmax16_ref.npy"), sm(x16).numpy())
    export(sm, x16, os.path.join(out, "softmax16.onnx"), False)


if __name__ == "__main__":
    main()
