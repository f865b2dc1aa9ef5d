#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: the model families of issue 18 against torch.

Each case is a small model of one family that needs more than a classifier
CNN (a detector with NMS, segmentation, a UNet with ConvTranspose,
recurrent nets), built with
random weights from a fixed seed, exported at test time with Debian's
torch/torchvision (cached under build/models/families/<case>/, keyed by
this file's hash and torch's version), compiled with npuc, run on the
in-process device with npu-run and compared with torch's output: relative
error max|out-ref|/max|ref| <= 1e-4 (tests/models/npu_e2e.py REL_TOL).

Usage: families.py [-k REGEX]
"""

import argparse
import hashlib
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402
import export_models  # noqa: E402
import torch_ops  # noqa: E402

SEED = 18


def _unit_spread(model, xs):
    """Rescale every Conv/ConvTranspose/Linear so that its output has unit
    spread for inputs @xs (random-init nets otherwise shrink their outputs
    towards zero, which makes a relative comparison vacuous; DESIGN.md
    10), and give BatchNorm random statistics."""
    import torch
    nn = torch.nn
    gen = torch.Generator().manual_seed(SEED)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                c = m.num_features
                m.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=gen) * 0.5 +
                                    0.75)
    hooks = []

    def rescale(mod, inp, out):
        with torch.no_grad():
            s = float(out.std())
            if s > 0:
                mod.weight.div_(s)
                if mod.bias is not None:
                    mod.bias.div_(s)
                return out / s
        return out
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d, nn.Linear)):
            hooks.append(m.register_forward_hook(rescale))
    model.eval()
    with torch.no_grad():
        model(*xs)
    for h in hooks:
        h.remove()
    return model


def cases():
    """name -> (model factory, inputs factory)."""
    import torch
    import torchvision
    nn = torch.nn
    r = torch.randn

    class UNet(nn.Module):
        """Two levels down, two ConvTranspose levels up, skip concats."""

        def __init__(self):
            super().__init__()

            def blk(i, o):
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1),
                                     nn.BatchNorm2d(o), nn.ReLU())
            self.d1, self.d2, self.d3 = blk(3, 8), blk(8, 16), blk(16, 32)
            self.pool = nn.MaxPool2d(2)
            self.u2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
            self.c2 = blk(32, 16)
            self.u1 = nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1,
                                         output_padding=1)
            self.c1 = blk(16, 8)
            self.out = nn.Conv2d(8, 2, 1)

        def forward(self, x):
            a = self.d1(x)
            b = self.d2(self.pool(a))
            c = self.d3(self.pool(b))
            b = self.c2(torch.cat([b, self.u2(c)], 1))
            a = self.c1(torch.cat([a, self.u1(b)], 1))
            return self.out(a)

    class Seg(nn.Module):
        """torchvision's segmentation models return a dict."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    class Rnn(nn.Module):
        def __init__(self, kind, hidden=16, **kw):
            super().__init__()
            self.rnn = getattr(nn, kind)(12, hidden, batch_first=True, **kw)
            d = 2 if kw.get("bidirectional") else 1
            self.fc = nn.Linear(hidden * d, 5)

        def forward(self, x):
            return self.fc(self.rnn(x)[0])

    class STN(nn.Module):
        """A spatial transformer: a localisation net predicts an affine
        theta, the sampling grid is theta applied to the output pixels'
        normalised centres (torch's affine_grid, written out: it has no
        ONNX export), GridSample warps the input for the classifier."""

        def __init__(self, hw=32):
            super().__init__()
            F = nn.functional
            self.loc = nn.Sequential(nn.Conv2d(3, 8, 5), nn.MaxPool2d(2),
                                     nn.ReLU(), nn.Conv2d(8, 10, 5),
                                     nn.MaxPool2d(2), nn.ReLU())
            self.fc = nn.Sequential(nn.Linear(250, 32), nn.ReLU(),
                                    nn.Linear(32, 6))
            self.cls = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1),
                                     nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                     nn.Flatten(), nn.Linear(16, 4))
            c = (torch.arange(hw) * 2 + 1) / hw - 1   # pixel centres
            yy, xx = torch.meshgrid(c, c, indexing="ij")
            self.register_buffer("base", torch.stack(
                [xx, yy, torch.ones_like(xx)], -1).reshape(1, -1, 3))
            self.hw, self.sample = hw, F.grid_sample

        def forward(self, x):
            t = self.fc(self.loc(x).flatten(1)).view(-1, 2, 3)
            t = t * 0.1 + torch.tensor([[1.0, 0, 0], [0, 1.0, 0]])
            g = (self.base @ t.transpose(1, 2)).view(-1, self.hw,
                                                     self.hw, 2)
            return self.cls(self.sample(x, g, align_corners=False))

    class RoiHead(nn.Module):
        """The second stage of a two-stage detector: backbone features,
        torchvision's roi_align of given boxes, a box head."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 49, 64),
                                      nn.ReLU(), nn.Linear(64, 5))

        def forward(self, x, boxes):
            f = torchvision.ops.roi_align(self.body(x), boxes, (7, 7),
                                          spatial_scale=0.25,
                                          sampling_ratio=2, aligned=True)
            return self.head(f)

    def boxes():
        xy = torch.rand(6, 2, generator=g) * 48
        wh = torch.rand(6, 2, generator=g) * 24 + 4
        return torch.cat([torch.tensor([[0.], [1.], [0.], [1.], [0.], [1.]]),
                          xy, xy + wh], 1)

    def seg(fn, **kw):
        def make():
            torch.manual_seed(SEED)
            return Seg(fn(weights=None, weights_backbone=None, **kw))
        return make

    def rnn(kind, **kw):
        def make():
            torch.manual_seed(SEED)
            return Rnn(kind, **kw)
        return make

    g = torch.Generator().manual_seed(SEED)
    def detector():
        torch.manual_seed(SEED)
        return export_models.detector_module().eval()

    return {
        "detector_nms": (detector, lambda: (r(1, 3, 32, 32, generator=g),)),
        "unet_convtranspose": (UNet, lambda: (r(1, 3, 32, 32, generator=g),)),
        # GridSample and RoiAlign's half_pixel are opset 16
        "stn_grid_sample": (STN, lambda: (r(2, 3, 32, 32, generator=g),),
                            16),
        "roi_align_head": (RoiHead, lambda: (r(2, 3, 64, 64, generator=g),
                                             boxes()), 16),
        "lraspp_mobilenet_v3": (
            seg(torchvision.models.segmentation.lraspp_mobilenet_v3_large,
                num_classes=4), lambda: (r(1, 3, 96, 96, generator=g),)),
        "fcn_resnet50": (
            seg(torchvision.models.segmentation.fcn_resnet50,
                num_classes=4, aux_loss=False),
            lambda: (r(1, 3, 64, 64, generator=g),)),
        "lstm_2layer": (rnn("LSTM", num_layers=2),
                        lambda: (r(2, 9, 12, generator=g),)),
        "lstm_bidirectional": (rnn("LSTM", bidirectional=True),
                               lambda: (r(3, 7, 12, generator=g),)),
        "gru_2layer": (rnn("GRU", num_layers=2),
                       lambda: (r(2, 9, 12, generator=g),)),
        "gru_bidirectional": (rnn("GRU", bidirectional=True),
                              lambda: (r(3, 7, 12, generator=g),)),
        # hidden 512: a step costs ~2^20 operations per batch row, so the
        # compiler splits the 140 steps into two tasks per direction
        "lstm_long_split_over_time": (
            rnn("LSTM", hidden=512, bidirectional=True),
            lambda: (r(1, 140, 12, generator=g),)),
    }


def export(name, case, out):
    """Export one case into out/name (cached by this file's hash)."""
    import numpy as np
    import torch
    d = os.path.join(out, name)
    with open(os.path.abspath(__file__), "rb") as f:
        stamp = hashlib.sha256(f.read() + name.encode() +
                               torch.__version__.encode()).hexdigest()
    sp = os.path.join(d, "stamp")
    if os.path.exists(sp) and open(sp).read().strip() == stamp and \
            os.path.exists(os.path.join(d, "expected", "output_0.npy")):
        return d
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "inputs"))
    os.makedirs(os.path.join(d, "expected"))
    factory, inputs = case[:2]
    torch.manual_seed(SEED)
    xs = inputs()
    model = _unit_spread(factory(), xs)
    with torch.no_grad():
        ref = model(*xs).numpy()
    torch.onnx.export(model, xs, os.path.join(d, "model.onnx"),
                      opset_version=case[2] if len(case) > 2 else 14)
    for i, x in enumerate(xs):
        np.save(os.path.join(d, "inputs", "input_%d.npy" % i), x.numpy())
    np.save(os.path.join(d, "expected", "output_0.npy"), ref)
    with open(sp, "w") as f:
        f.write(stamp + "\n")
    return d


class StrictTap(torch_ops.KnownTap):
    """torch_ops' runner, but a model npuc refuses is a failure here: the
    families are what issue 18 asks the stack to run."""

    def skip(self, what, why):
        r = self.ok(False, what + ": refused by npuc")
        self.diag(why)
        return r


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-k", "--filter")
    a = p.parse_args()
    miss = e2e.missing_tools("npuc", "npu-run")
    if miss:
        print("1..0 # SKIP %s not built yet" % " and ".join(miss))
        return 0
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(1)
    all_cases = cases()
    names = [n for n in all_cases if not a.filter or re.search(a.filter, n)]
    t = e2e.Tap(len(names))
    known = e2e.known_failures(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "known_failures.txt"))
    out = os.path.join(e2e.BUILD, "models", "families")
    for name in names:
        try:
            d = export(name, all_cases[name], out)
        except Exception as ex:  # an export failure is a test bug: show it
            t.ok(False, name + ": torch export")
            t.diag(repr(ex))
            continue
        torch_ops.run_case(name, d, StrictTap(
            t, known.get("families/" + name)))
    t.exit()


if __name__ == "__main__":
    sys.exit(main())
