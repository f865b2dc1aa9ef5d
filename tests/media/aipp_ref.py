# SPDX-License-Identifier: MIT
"""Test data for tests/media/test_aipp.sh, made at test time.

Writes into DIR:
  model.onnx         torchvision resnet18 (10 classes) for [1, 3, 64, 64]
                     f32 input, random weights rescaled so logits are O(1)
  rgb.conf           AIPP: RGB888_U8 80x72 image, centre crop 64x64,
                     ImageNet mean/std (min_chn = 255 mean,
                     var_reci = 1 / (255 std))
  nv12.conf          AIPP: YUV420SP_U8 64x64 frame, BT.601 full-range CSC,
                     the same normalisation
  imgs/*.jpg|png     80x72 test images (JPEG quality 90, 4:2:0; PNG)
  ref_rgb.json       logits of the float model fed by PIL decode +
                     torchvision CenterCrop(64), ToTensor, Normalize
  nv12/x.npy         an NV12 frame [1, 96, 64] (Y rows then UV rows)
  ref_nv12.npy       logits of the float model fed by the frame converted
                     with the Q8 BT.601 formula of Documentation/media.rst
                     (numpy), ToTensor/Normalize as above
  ref_nv12_float.npy the same with a float BT.601 conversion (how far the
                     fixed-point conversion is from the textbook one)
  bad/               good.jpg plus truncated.jpg, bomb.png (declares
                     100000 x 100000 pixels), garbage.jpg
"""
import json
import os
import struct
import sys
import zlib

import numpy as np
import torch
import torchvision
from PIL import Image
from torchvision import transforms

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
OUT = sys.argv[1]


def model():
    torch.manual_seed(19)
    m = torchvision.models.resnet18(num_classes=10).eval()
    x = torch.randn(4, 3, 64, 64)
    # Unit output spread per Conv/Linear (DESIGN.md: random-init nets give
    # vanishing outputs, which would make the comparison vacuous).
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)

        hooks = []

        def rescale(mod, inp, out):
            s = out.std().item()
            if s > 0:
                mod.weight.mul_(1.0 / s)
                if mod.bias is not None:
                    mod.bias.mul_(1.0 / s)

        for mod in m.modules():
            if isinstance(mod, (torch.nn.Conv2d, torch.nn.Linear)):
                hooks.append(mod.register_forward_hook(rescale))
        m(x)
        for h in hooks:
            h.remove()
    torch.onnx.export(m, torch.randn(1, 3, 64, 64),
                      os.path.join(OUT, "model.onnx"),
                      input_names=["x"], output_names=["logits"],
                      opset_version=13)
    return m


def conf(path, fmt, extra):
    lines = ["aipp_op {", "  aipp_mode : static",
             "  input_format : %s" % fmt] + ["  " + e for e in extra]
    for c in range(3):
        lines.append("  min_chn_%d : %.6f" % (c, 255.0 * MEAN[c]))
        lines.append("  var_reci_chn_%d : %.9g" % (c, 1.0 / (255.0 * STD[c])))
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def image(seed, w=80, h=72):
    # smooth content with some texture: JPEG keeps it well
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.stack([128 + 100 * np.sin(xx / (5 + c) + seed + c) *
                    np.cos(yy / (7 - c)) for c in range(3)], -1)
    img += rng.normal(0, 12, img.shape)
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def main():
    os.makedirs(os.path.join(OUT, "imgs"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "bad"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "nv12"), exist_ok=True)
    m = model()
    conf(os.path.join(OUT, "rgb.conf"), "RGB888_U8",
         ["src_image_size_w : 80", "src_image_size_h : 72", "crop : true",
          "load_start_pos_w : 8", "load_start_pos_h : 4",
          "crop_size_w : 64", "crop_size_h : 64"])
    conf(os.path.join(OUT, "nv12.conf"), "YUV420SP_U8",
         ["src_image_size_w : 64", "src_image_size_h : 64",
          "csc_switch : true",
          "matrix_r0c0 : 256", "matrix_r0c1 : 0", "matrix_r0c2 : 359",
          "matrix_r1c0 : 256", "matrix_r1c1 : -88", "matrix_r1c2 : -183",
          "matrix_r2c0 : 256", "matrix_r2c1 : 454", "matrix_r2c2 : 0",
          "input_bias_0 : 0", "input_bias_1 : 128", "input_bias_2 : 128"])
    # torchvision's CenterCrop(64) of 80x72 starts at (8, 4): the AIPP crop
    tf = transforms.Compose([transforms.CenterCrop(64), transforms.ToTensor(),
                             transforms.Normalize(MEAN, STD)])
    ref = {}
    names = ["a.jpg", "b.jpg", "c.jpg", "d.png"]
    for i, n in enumerate(names):
        p = os.path.join(OUT, "imgs", n)
        if n.endswith(".jpg"):
            image(i).save(p, quality=90, subsampling=2)
        else:
            image(i).save(p)
        with torch.no_grad():
            x = tf(Image.open(p).convert("RGB")).unsqueeze(0)
            ref[n] = m(x)[0].tolist()
    with open(os.path.join(OUT, "ref_rgb.json"), "w") as f:
        json.dump(ref, f)

    # dynamic AIPP: the same crop, the parameters as the model's input
    # x_aipp (struct drm_npu_aipp_dyn, Documentation/media.rst)
    with open(os.path.join(OUT, "dyn.conf"), "w") as f:
        f.write("aipp_op {\n  aipp_mode : dynamic\n"
                "  input_format : RGB888_U8\n"
                "  src_image_size_w : 80\n  src_image_size_h : 72\n"
                "  crop : true\n  load_start_pos_w : 8\n"
                "  load_start_pos_h : 4\n}\n")
    os.makedirs(os.path.join(OUT, "dyn"), exist_ok=True)
    np.save(os.path.join(OUT, "dyn", "x.npy"), np.asarray(
        Image.open(os.path.join(OUT, "imgs", "a.jpg")).convert("RGB"))[None])
    packed = struct.pack("<I9h3B3B4H4f4ffI", 0, *([0] * 9), 0, 0, 0, 0, 0, 0,
                         0, 0, 0, 0, *[255.0 * v for v in MEAN], 0.0,
                         *[1.0 / (255.0 * v) for v in STD], 0.0, 0.0, 0)
    assert len(packed) == 76
    np.save(os.path.join(OUT, "dyn", "x_aipp.npy"),
            np.frombuffer(packed, np.uint8))

    # bad files beside a good one
    good = open(os.path.join(OUT, "imgs", "a.jpg"), "rb").read()
    open(os.path.join(OUT, "bad", "good.jpg"), "wb").write(good)
    open(os.path.join(OUT, "bad", "truncated.jpg"), "wb").write(
        good[:len(good) // 2])
    open(os.path.join(OUT, "bad", "garbage.jpg"), "wb").write(
        b"\xff\xd8\xff" + bytes(range(256)) * 2)
    png = bytearray(open(os.path.join(OUT, "imgs", "d.png"), "rb").read())
    png[16:24] = struct.pack(">II", 100000, 100000)
    png[29:33] = struct.pack(">I", zlib.crc32(bytes(png[12:29])) & 0xffffffff)
    open(os.path.join(OUT, "bad", "bomb.png"), "wb").write(bytes(png))

    # NV12: a 64x64 frame from a test image (JFIF YCbCr, 2x2 chroma mean)
    rgb = np.asarray(image(7, 64, 64)).astype(np.float64)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    Y = 0.299 * r + 0.587 * g + 0.114 * b
    U = 128 + (b - Y) / 1.772
    V = 128 + (r - Y) / 1.402
    y8 = np.clip(np.rint(Y), 0, 255).astype(np.uint8)
    sub = lambda c: np.clip(np.rint(c.reshape(32, 2, 32, 2).mean((1, 3))),
                            0, 255).astype(np.uint8)
    uv = np.stack([sub(U), sub(V)], -1).reshape(32, 64)
    frame = np.concatenate([y8, uv], 0)[None]          # [1, 96, 64]
    np.save(os.path.join(OUT, "nv12", "x.npy"), frame)
    # the device's Q8 conversion (Documentation/media.rst), in numpy
    M = np.array([[256, 0, 359], [256, -88, -183], [256, 454, 0]], np.int64)
    yy = y8.astype(np.int64)
    u = np.repeat(np.repeat(sub(U).astype(np.int64), 2, 0), 2, 1) - 128
    v = np.repeat(np.repeat(sub(V).astype(np.int64), 2, 0), 2, 1) - 128
    q8 = np.stack([np.clip(np.floor_divide(M[c, 0] * yy + M[c, 1] * u +
                                           M[c, 2] * v + 128, 256), 0, 255)
                   for c in range(3)], -1).astype(np.uint8)
    fl = np.stack([yy + 1.402 * v, yy - 0.344136 * u - 0.714136 * v,
                   yy + 1.772 * u], -1)
    fl = np.clip(np.rint(fl), 0, 255).astype(np.uint8)
    norm = transforms.Compose([transforms.ToTensor(),
                               transforms.Normalize(MEAN, STD)])
    with torch.no_grad():
        for name, px in (("ref_nv12.npy", q8), ("ref_nv12_float.npy", fl)):
            np.save(os.path.join(OUT, name),
                    m(norm(Image.fromarray(px)).unsqueeze(0)).numpy())
    print("max |q8 - float| conversion: %d levels" %
          np.abs(q8.astype(int) - fl.astype(int)).max())


main()
