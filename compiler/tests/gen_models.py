#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Export the front-end test models with torch (random weights, fixed seed).

usage: gen_models.py OUTDIR [name ...]

For each model writes OUTDIR/NAME.onnx, NAME.in.bin (the input, raw f32) and
NAME.out.bin (torch's output, raw f32), plus NAME.meta (input shape). Models
that exist are kept (cache); delete OUTDIR to regenerate.

Conv nets are exported with do_constant_folding=False so that their
BatchNormalization nodes survive for the compiler's own folding pass (torch
1.13 folds BN into Conv otherwise). The transformer encoder is exported with
grad enabled (torch's no_grad fast path is not exportable) at opset 13, so
LayerNorm and GELU appear in their decomposed forms.
"""
import os
import sys

import numpy as np
import torch


def randomise_bn(model, gen):
    # Non-trivial running statistics so that folding has work to do.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def convnet(name):
    import torchvision
    gen = torch.Generator().manual_seed(1234)
    torch.manual_seed(1234)
    model = getattr(torchvision.models, name)(weights=None)
    randomise_bn(model, gen)
    model.eval()
    x = torch.randn(1, 3, 96, 96, generator=gen)
    return model, x, dict(
        do_constant_folding=False, opset_version=13,
        training=torch.onnx.TrainingMode.PRESERVE)


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            d_model=64, nhead=4, dim_feedforward=128, dropout=0.1,
            activation="gelu", batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, num_layers=2)
        self.head = torch.nn.Linear(64, 16)

    def forward(self, x):
        return self.head(self.enc(x))


def transformer():
    gen = torch.Generator().manual_seed(4321)
    torch.manual_seed(4321)
    model = Encoder().eval()
    # random parameters everywhere (the deep-copied layers start equal and
    # LayerNorm starts as the identity, which would hide the affine part)
    with torch.no_grad():
        for prm in model.parameters():
            prm.copy_(torch.randn(prm.shape, generator=gen) * 0.2)
    x = torch.randn(2, 10, 64, generator=gen)
    return model, x, dict(do_constant_folding=True, opset_version=13)


def transformer_dyn():
    model, x, kw = transformer()
    kw = dict(kw, dynamic_axes={"input": {0: "batch", 1: "seq"},
                                "output": {0: "batch", 1: "seq"}})
    return model, x, kw


MODELS = {
    "resnet18": lambda: convnet("resnet18"),
    "mobilenet_v2": lambda: convnet("mobilenet_v2"),
    "transformer": transformer,
    "transformer_dyn": transformer_dyn,
}


def export(outdir, name):
    path = os.path.join(outdir, name + ".onnx")
    if os.path.exists(path) and os.path.exists(
            os.path.join(outdir, name + ".out.bin")):
        return
    model, x, kw = MODELS[name]()
    with torch.enable_grad():
        y = model(x)
        tmp = path + ".tmp"
        torch.onnx.export(model, (x,), tmp, input_names=["input"],
                          output_names=["output"], **kw)
    x.detach().numpy().astype(np.float32).tofile(
        os.path.join(outdir, name + ".in.bin"))
    y.detach().numpy().astype(np.float32).tofile(
        os.path.join(outdir, name + ".out.bin"))
    with open(os.path.join(outdir, name + ".meta"), "w") as f:
        f.write(",".join(str(d) for d in x.shape) + "\n")
        f.write(",".join(str(d) for d in y.shape) + "\n")
    os.replace(tmp, path)


def main():
    outdir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for n in names:
        export(outdir, n)


if __name__ == "__main__":
    main()
