#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: the op patterns torch's exporter really writes, one by one.

The ONNX node tests (tests/conformance/) check each op as the ONNX project
wrote it; a model exported from torch writes ops its own way (Resize with
constant scales from F.interpolate, Split with a sizes input, Clip with
constant min/max from ReLU6, LayerNorm decomposed at opset 14 or as
LayerNormalization at 17, broadcast batched MatMul, ...). Each case here is
a tiny torch module covering one op of issue 8 in that form: it is exported
(random input, fixed seed, cached under build/models/torch_ops/<case>/),
compiled with npuc, run on the in-process device with npu-run, and compared
with torch: relative error max|out-ref|/max|ref| <= 1e-4 (exact for integer
outputs). A case npuc refuses with "not supported" is a TAP SKIP that says
so; every other failure is a real failure.

Usage: torch_ops.py [-k REGEX]
"""

import argparse
import hashlib
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402

SEED = 1234
UNSUPPORTED_RE = re.compile(r"not supported|unsupported|only .* (is|are) "
                            r"supported", re.I)


def cases():
    """name -> (module factory, input shapes or tensors factory, opset)."""
    import torch
    from torch import nn
    import torch.nn.functional as F

    class Fn(nn.Module):
        def __init__(self, fn, **params):
            super().__init__()
            self.fn = fn
            for k, v in params.items():
                setattr(self, k, v)

        def forward(self, *xs):
            return self.fn(self, *xs)

    def f(fn, **params):
        return lambda: Fn(fn, **params)

    import torchvision.ops as tv_ops

    def grid_sample(mode, pad, align, spread=0.9):
        return (f(lambda s, x, g: F.grid_sample(
            x, g, mode=mode, padding_mode=pad, align_corners=align)),
            lambda: (r(2, 3, 5, 6), r(2, 4, 7, 2) * spread), 16, {})

    def rois():
        g = torch.Generator().manual_seed(SEED)
        xy = torch.rand(6, 2, generator=g) * torch.tensor([14.0, 12.0]) - 2
        wh = torch.rand(6, 2, generator=g) * 10 + 0.5
        b = torch.tensor([[0.0], [1.0], [0.0], [1.0], [1.0], [0.0]])
        return torch.cat([b, xy, xy + wh], 1)

    def bn():
        m = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8))
        with torch.no_grad():
            m[1].running_mean.uniform_(-0.5, 0.5)
            m[1].running_var.uniform_(0.5, 1.5)
            m[1].weight.uniform_(0.5, 1.5)
            m[1].bias.uniform_(-0.5, 0.5)
        return m

    class IfOnData(nn.Module):
        """Two Ifs whose conditions only the data decides (predicated:
        both branches run, Where selects); x takes the then branch, y
        the else branch."""

        def forward(self, x, y):
            if bool(x.sum() > 0):
                a = x * 2.0
            else:
                a = x - 1.0
            if bool(y.mean() < 0):
                b = torch.relu(y)
            else:
                b = y * y
            return a + b

    class LoopWithIf(nn.Module):
        """A for loop over a static dim (Loop, unrolled) whose body
        branches on the step (an If the unrolling folds) and reads the
        weight and the input from outside (captures two levels deep)."""

        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(8, 8) * 0.3)

        def forward(self, x):
            h = torch.zeros(x.size(1), 8)
            for i in range(x.size(0)):
                if i % 2 == 0:
                    h = torch.tanh(h @ self.w + x[i])
                else:
                    h = h * 0.5 + x[i]
            return h

    class WhileCounter(nn.Module):
        """A while loop on a counter (Loop whose body computes its
        condition): peeled step by step, the condition folds."""

        def forward(self, x):
            i = 0
            while i < 4:
                x = torch.tanh(x * 1.5 + 0.25)
                i += 1
            return x

    def script(cls):
        return lambda: torch.jit.script(cls())

    r = torch.randn
    return {
        "script_if_on_data": (script(IfOnData), lambda: (r(3, 4) + 1,
                                                          r(3, 4) + 1),
                              14, {}),
        "script_loop_with_if": (script(LoopWithIf), lambda: (r(5, 2, 8),),
                                14, {}),
        "script_while_counter": (script(WhileCounter), lambda: (r(2, 6),),
                                 14, {}),
        # 3-D convolutions (video, volumes): 2-D ones per kernel depth
        "conv3d": (lambda: nn.Conv3d(4, 6, (3, 3, 2), stride=(2, 1, 1),
                                     padding=(1, 1, 0), dilation=(1, 2, 1),
                                     groups=2),
                   lambda: (r(2, 4, 7, 8, 6),), 14, {}),
        "conv_transpose3d": (lambda: nn.ConvTranspose3d(
            4, 6, (3, 2, 3), stride=(2, 2, 1), padding=(1, 0, 1),
            output_padding=(1, 1, 0), dilation=(1, 1, 2), groups=2),
            lambda: (r(1, 4, 4, 5, 3),), 14, {}),
        # model.double(): double in and out, computed in f32 on the device
        "double_mlp": (lambda: nn.Sequential(
            nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32),
            nn.Linear(32, 4)).double(),
            lambda: (r(3, 16, dtype=torch.float64),), 14, {}),
        # name: (factory, inputs, opset, export kwargs)
        "batchnorm_kept": (bn, lambda: (r(2, 4, 8, 8),), 14,
                           {"training": torch.onnx.TrainingMode.PRESERVE}),
        "concat_split": (f(lambda s, x: torch.cat(
            torch.split(x, [1, 3, 2], dim=1)[::-1], 1) * 2),
            lambda: (r(2, 6, 5),), 14, {}),
        "chunk": (f(lambda s, x: torch.chunk(x, 3, dim=-1)[1].relu()),
                  lambda: (r(2, 4, 9),), 14, {}),
        "slice_steps": (f(lambda s, x: x[:, 1:7:2, ::3] + x[:, :3, -3:]),
                        lambda: (r(2, 8, 9),), 14, {}),
        "transpose_reshape": (f(lambda s, x: x.permute(0, 2, 3, 1)
                                .reshape(2, -1, 3).transpose(1, 2)
                                .flatten(1).unsqueeze(0).squeeze(0)),
                              lambda: (r(2, 3, 4, 5),), 14, {}),
        "embedding_gather": (lambda: nn.Embedding(50, 16),
                             lambda: (torch.randint(0, 50, (3, 7)),), 14, {}),
        "index_select": (f(lambda s, x: x[:, torch.tensor([3, 0, 2])]
                           .index_select(2, torch.tensor([1, 1, 0]))),
                         lambda: (r(2, 4, 3),), 14, {}),
        "reduce_mean_sum_max": (f(lambda s, x: x.mean(dim=(2, 3))
                                  + x.sum(dim=1, keepdim=True).mean(-1)
                                  .flatten(1)[:, :1]
                                  + x.amax(dim=(1, 3))[:, :1]),
                                lambda: (r(2, 3, 5, 6),), 14, {}),
        "layernorm_opset14": (lambda: nn.LayerNorm(32),
                              lambda: (r(2, 10, 32) * 3 + 1,), 14, {}),
        "layernorm_opset17": (lambda: nn.LayerNorm([4, 8]),
                              lambda: (r(2, 3, 4, 8),), 17, {}),
        "pow_sqrt_erf_gelu": (f(lambda s, x: F.gelu(x) + x.abs().pow(1.5)
                                + torch.erf(x) * x.pow(2)
                                + torch.sqrt(x.abs() + 1)),
                              lambda: (r(4, 33),), 14, {}),
        "pad_constant_reflect_replicate": (
            f(lambda s, x: F.pad(x, (1, 2, 0, 1), value=0.5)[..., :5, :6]
              + F.pad(x, (1, 1, 1, 1), mode="reflect")[..., :5, :6]
              + F.pad(x, (2, 0, 1, 0), mode="replicate")[..., :5, :6]),
            lambda: (r(1, 3, 5, 6),), 14, {}),
        "resize_nearest": (f(lambda s, x: F.interpolate(
            x, scale_factor=2, mode="nearest")),
            lambda: (r(1, 3, 5, 4),), 14, {}),
        "resize_bilinear": (f(lambda s, x: F.interpolate(
            x, scale_factor=2, mode="bilinear", align_corners=False)),
            lambda: (r(1, 3, 5, 4),), 14, {}),
        "resize_bilinear_align_corners": (f(lambda s, x: F.interpolate(
            x, size=(7, 9), mode="bilinear", align_corners=True)),
            lambda: (r(1, 2, 4, 5),), 14, {}),
        "resize_bicubic": (f(lambda s, x: F.interpolate(
            x, scale_factor=2, mode="bicubic", align_corners=False)),
            lambda: (r(1, 3, 5, 4),), 14, {}),
        "resize_bicubic_align_corners": (f(lambda s, x: F.interpolate(
            x, size=(7, 3), mode="bicubic", align_corners=True)),
            lambda: (r(1, 2, 4, 5),), 14, {}),
        # torch's grid_sample: each mode and padding once, with and
        # without align_corners; grid values past [-1, 1]
        **{"grid_sample_%s_%s%s" % (m, p, "_align_corners" if a else ""):
           grid_sample(m, p, a) for m, p, a in (
               ("bilinear", "zeros", False), ("bilinear", "border", True),
               ("nearest", "reflection", False), ("nearest", "zeros", True),
               ("bicubic", "zeros", False), ("bicubic", "reflection", True),
               ("bilinear", "reflection", False),
               ("bicubic", "border", False))},
        # grid values far past [-1, 1]: reflection mirrors each bicubic
        # tap (a review finding: the taps were clamped first)
        "grid_sample_bicubic_reflection_far": grid_sample(
            "bicubic", "reflection", False, 4.0),
        # torch.einsum as exporters write it (Einsum, opset 12+): batched
        # and attention products, a transpose, sums, an outer product,
        # the ellipsis and the implicit output
        **{"einsum_" + k: (f(lambda s, *x, eq=eq: torch.einsum(eq, *x)),
                           shapes, 14, {})
           for k, eq, shapes in (
               ("bmm", "bij,bjk->bik", lambda: (r(2, 3, 4), r(2, 4, 5))),
               ("attention", "bhqd,bhkd->bhqk",
                lambda: (r(2, 3, 5, 8), r(2, 3, 7, 8))),
               ("transpose_sum", "ijk->kj", lambda: (r(3, 4, 5),)),
               ("outer", "i,j->ij", lambda: (r(4), r(6))),
               ("batched_dot", "bi,bi->b", lambda: (r(3, 7), r(3, 7))),
               ("ellipsis", "...ij,...jk->...ik",
                lambda: (r(2, 3, 4, 5), r(2, 3, 5, 2))),
               ("implicit", "ij,jk", lambda: (r(3, 4), r(4, 6))),
               ("sum_own", "bij,bjk->bk", lambda: (r(2, 3, 4),
                                                   r(2, 4, 5))))},
        # torch.det (Det) of batched 3 x 3, 4 x 4 and 5 x 5 matrices
        **{"det_%d" % m: (f(lambda s, x: torch.det(x)),
                          lambda m=m: (r(2, 3, m, m),), 14, {})
           for m in (3, 4, 5)},
        # max_pool2d's indices (SegNet-style MaxUnpool decoders; torch
        # has no export of max_unpool2d itself), padded, and in ceil mode
        # with a dilation
        "maxpool_indices": (f(lambda s, x: F.max_pool2d(
            x, 3, 2, padding=1, return_indices=True)[1]),
            lambda: (r(2, 3, 9, 10),), 14, {}),
        "maxpool_indices_ceil_dilated": (f(lambda s, x: F.max_pool2d(
            x, 2, 2, dilation=2, ceil_mode=True, return_indices=True)[1]),
            lambda: (r(1, 4, 9, 8),), 14, {}),
        # torchvision's roi_align (Faster/Mask R-CNN heads): boxes of both
        # images, some past the edges, rows [batch, x1, y1, x2, y2]
        "roi_align_aligned": (f(lambda s, x, b: tv_ops.roi_align(
            x, b, (3, 4), spatial_scale=0.5, sampling_ratio=2,
            aligned=True)),
            lambda: (r(2, 3, 9, 11), rois()), 16, {}),
        # aligned=False at opset 14 (RoiAlign-10: no half-pixel shift);
        # this torch writes it without the attribute at opset 16, where
        # the default is half_pixel
        "roi_align_adaptive": (f(lambda s, x, b: tv_ops.roi_align(
            x, b, (2, 2), spatial_scale=1.0, sampling_ratio=-1,
            aligned=False)),
            lambda: (r(2, 3, 9, 11), rois()), 14, {}),
        # 3-D pooling (video and volumetric models): two 2-D pools;
        # padding, strides, dilation, ceil mode, both count modes, global
        "max_pool3d_pad_dilated_ceil": (f(lambda s, x: F.max_pool3d(
            x, (3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1),
            dilation=(1, 2, 1), ceil_mode=True)),
            lambda: (r(2, 3, 7, 6, 9),), 14, {}),
        "avg_pool3d_pad_exclude_ceil": (f(lambda s, x: F.avg_pool3d(
            x, (2, 3, 3), stride=(2, 2, 1), padding=(1, 1, 0),
            ceil_mode=True, count_include_pad=False)),
            lambda: (r(2, 3, 6, 7, 5),), 14, {}),
        "avg_pool3d_pad_include": (f(lambda s, x: F.avg_pool3d(
            x, 3, stride=2, padding=1)),
            lambda: (r(1, 4, 5, 8, 7),), 14, {}),
        "global_pool3d": (f(lambda s, x: F.adaptive_avg_pool3d(x, 1)
                            + F.adaptive_max_pool3d(x, 1)),
                          lambda: (r(2, 5, 3, 4, 6),), 14, {}),
        "clip_relu6_hardtanh": (f(lambda s, x: F.relu6(x * 4)
                                  + F.hardtanh(x, -0.5, 0.25)
                                  + x.clamp(min=-0.1)),
                                lambda: (r(3, 40),), 14, {}),
        "hardswish_hardsigmoid": (f(lambda s, x: F.hardswish(x * 4)
                                    + F.hardsigmoid(x * 4)),
                                  lambda: (r(3, 40),), 14, {}),
        "leakyrelu_prelu": (lambda: nn.Sequential(
            nn.Conv2d(3, 6, 1), nn.LeakyReLU(0.1), nn.PReLU(6)),
            lambda: (r(2, 3, 4, 4),), 14, {}),
        "where_cast": (f(lambda s, x, y: torch.where(x > y, x, y * 2)
                         + (x > 0).to(torch.float32)
                         + x.to(torch.int32).to(torch.float32)),
                       lambda: (r(3, 8) * 3, r(3, 8) * 3), 14, {}),
        "expand": (f(lambda s, x: x.expand(2, 3, 4, 5) * 1.5),
                   lambda: (r(1, 3, 1, 5),), 14, {}),
        "log_softmax_softmax": (f(lambda s, x: F.log_softmax(x, dim=-1)
                                  + F.softmax(x, dim=1)),
                                lambda: (r(2, 5, 7) * 4,), 14, {}),
        "matmul_batched_broadcast": (f(lambda s, a, b: a @ b),
                                     lambda: (r(2, 1, 4, 5), r(3, 5, 6)),
                                     14, {}),
        "matmul_weight": (lambda: nn.Linear(12, 7),
                          lambda: (r(2, 3, 12),), 14, {}),
        "unary_math": (f(lambda s, x: torch.sigmoid(x) + torch.tanh(x)
                         + torch.exp(x * 0.3) + torch.log(x.abs() + 0.5)
                         - x.neg() / 3),
                       lambda: (r(5, 9),), 14, {}),
        "conv_grouped_dilated_strided": (lambda: nn.Sequential(
            nn.Conv2d(4, 8, 3, stride=2, padding=2, dilation=2, groups=2),
            nn.Conv2d(8, 8, 3, padding=1, groups=8)),
            lambda: (r(1, 4, 11, 10),), 14, {}),
        "pool_ceil_mode": (lambda: nn.Sequential(
            nn.MaxPool2d(3, 2, ceil_mode=True),
            nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False)),
            lambda: (r(1, 3, 12, 13),), 14, {}),
        "adaptive_avg_pool": (lambda: nn.AdaptiveAvgPool2d((2, 3)),
                              lambda: (r(1, 3, 8, 9),), 14, {}),
        "attention_padding_mask": (
            f(lambda s, x, m: s.enc(x, src_key_padding_mask=m),
              enc=nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0,
                                             batch_first=True)),
            lambda: (r(2, 10, 32), torch.arange(10).expand(2, 10) >=
                     torch.tensor([[10], [6]])), 14, {}),
        "multihead_attention": (f(lambda s, x: s.mha(x, x, x,
                                                     need_weights=False)[0],
                                  mha=nn.MultiheadAttention(
                                      32, 4, batch_first=True)),
                                lambda: (r(2, 10, 32),), 14, {}),
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
    factory, inputs, opset, kw = case
    torch.manual_seed(SEED)
    model = factory().eval()
    xs = inputs()
    ref = model(*xs).detach().numpy()
    torch.onnx.export(model, xs, os.path.join(d, "model.onnx"),
                      opset_version=opset, **kw)
    for i, x in enumerate(xs):
        np.save(os.path.join(d, "inputs", "input_%d.npy" % i), x.numpy())
    np.save(os.path.join(d, "expected", "output_0.npy"), ref)
    with open(sp, "w") as f:
        f.write(stamp + "\n")
    return d


class KnownTap:
    """Routes one case's result through TAP TODO when it is a known failure
    (tests/models/known_failures.txt lists it as torch_ops/<case>)."""

    def __init__(self, tap, todo):
        self.tap, self.todo = tap, todo

    def ok(self, cond, what):
        if self.todo:
            return self.tap.todo(cond, what, self.todo)
        return self.tap.ok(cond, what)

    def skip(self, what, why):
        return self.tap.skip(what, why)

    def diag(self, text):
        self.tap.diag(text)


def run_case(name, d, t):
    import numpy as np
    om = os.path.join(d, "model.%d.om" % os.getpid())
    out = os.path.join(d, "out.%d" % os.getpid())
    try:
        argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
                "--no-cache"]
        rc, log = e2e.run(argv, timeout=120)
        if rc != 0:
            if UNSUPPORTED_RE.search(log):
                line = [ln for ln in log.splitlines()
                        if UNSUPPORTED_RE.search(ln)][0]
                t.skip(name, re.sub(r"\S*model\.onnx: ", "", line)[:200])
                return
            t.ok(False, name + ": npuc")
            t.diag("$ " + e2e.cmdline(argv))
            t.diag(log)
            return
        argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
                os.path.join(d, "inputs"), "-o", out]
        rc, log = e2e.run(argv, timeout=120)
        if rc != 0:
            t.ok(False, name + ": npu-run")
            t.diag("$ " + e2e.cmdline(argv))
            t.diag(log)
            return
        got = np.load(os.path.join(out, "output_0.npy"))
        ref = np.load(os.path.join(d, "expected", "output_0.npy"))
        if ref.dtype.kind in "iub":
            good = got.shape == ref.shape and np.array_equal(got, ref)
            what = "%s: exact (%s)" % (name, ref.dtype)
        else:
            err = e2e.rel_error(got, ref)
            good = err <= e2e.REL_TOL
            what = "%s: relative error %.3g" % (name, err)
        if not t.ok(good, what):
            t.diag("$ " + e2e.cmdline(argv))
            t.diag("shapes: npu %s, torch %s" % (got.shape, ref.shape))
    finally:
        if os.path.exists(om):
            os.unlink(om)
        shutil.rmtree(out, ignore_errors=True)


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
    out = os.path.join(e2e.BUILD, "models", "torch_ops")
    for name in names:
        try:
            d = export(name, all_cases[name], out)
        except Exception as ex:  # an export failure is a test bug: show it
            t.ok(False, name + ": torch export")
            t.diag(repr(ex))
            continue
        run_case(name, d, KnownTap(t, known.get("torch_ops/" + name)))
    t.exit()


if __name__ == "__main__":
    sys.exit(main())
