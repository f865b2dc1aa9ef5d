#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: one model, several batch sizes (shape gears) end to end.

two_branch_cnn (export_models.py) is exported with a symbolic batch
dimension, compiled once with `npuc --input-shape input:batch,3,64,64
--dynamic-batch=1,2,4`, and run by npu-run with batches 1, 2 and 4 (each
must select its variant and match torch: relative error <= 1e-4, same top-1
per row); a batch of 3, which was not compiled, must be refused as an input
error (exit status 2) that names the compiled variants.
"""

import hashlib
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402
import export_models  # noqa: E402

BATCHES = (1, 2, 4)
REFUSED = 3


def export(d):
    import numpy as np
    import torch
    import warnings
    warnings.filterwarnings("ignore")
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read())
    with open(export_models.__file__, "rb") as f:
        h.update(f.read())
    h.update(torch.__version__.encode())
    stamp = h.hexdigest()
    sp = os.path.join(d, "stamp")
    if os.path.exists(sp) and open(sp).read().strip() == stamp:
        return
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    torch.set_num_threads(1)
    torch.manual_seed(export_models.SEED)
    gen = torch.Generator().manual_seed(export_models.SEED)
    model, args = export_models.two_branch_cnn(gen)
    model.eval()
    torch.onnx.export(model, args, os.path.join(d, "model.onnx"),
                      opset_version=export_models.OPSET,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"},
                                    "logits": {0: "batch"}},
                      training=torch.onnx.TrainingMode.PRESERVE)
    for b in BATCHES + (REFUSED,):
        x = torch.randn(b, 3, 64, 64, generator=gen)
        with torch.no_grad():
            y = model(x).numpy()
        for sub in ("in", "exp"):
            os.makedirs(os.path.join(d, "b%d" % b, sub))
        np.save(os.path.join(d, "b%d" % b, "in", "input_0.npy"), x.numpy())
        np.save(os.path.join(d, "b%d" % b, "exp", "output_0.npy"), y)
    with open(sp, "w") as f:
        f.write(stamp + "\n")


def main():
    import numpy as np
    t = e2e.Tap(2 + len(BATCHES) + 1)
    d = os.path.join(e2e.BUILD, "models", "two_branch_dynamic")
    export(d)
    t.ok(True, "two_branch_cnn exported with a symbolic batch dim")
    miss = e2e.missing_tools("npuc", "npu-run")
    if miss:
        for _ in range(t.n, 2 + len(BATCHES) + 1):
            t.skip("dynamic batch", "%s not built yet" % " and ".join(miss))
        t.exit()
    om = os.path.join(d, "model.%d.om" % os.getpid())
    try:
        argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
                "--no-cache",
                "--input-shape", "input:batch,3,64,64",
                "--dynamic-batch=%s" % ",".join(map(str, BATCHES))]
        rc, log = e2e.run(argv)
        if not t.ok(rc == 0, "npuc --dynamic-batch=%s compiles"
                    % ",".join(map(str, BATCHES))):
            t.diag("$ " + e2e.cmdline(argv))
            t.diag(log)
            for _ in range(t.n, 2 + len(BATCHES) + 1):
                t.skip("dynamic batch", "compile failed")
            t.exit()
        for b in BATCHES:
            out = os.path.join(d, "out.%d.%d" % (b, os.getpid()))
            argv = [e2e.tool("npu-run"), om, "--device", "sim",
                    "--input-dir", os.path.join(d, "b%d" % b, "in"),
                    "-o", out]
            rc, log = e2e.run(argv)
            ref = np.load(os.path.join(d, "b%d" % b, "exp", "output_0.npy"))
            got_path = os.path.join(out, "output_0.npy")
            got = np.load(got_path) if rc == 0 and \
                os.path.exists(got_path) else None
            err = e2e.rel_error(got, ref) if got is not None \
                else float("inf")
            same = got is not None and got.shape == ref.shape and \
                (got.argmax(1) == ref.argmax(1)).all()
            if not t.ok(err <= e2e.REL_TOL and same and
                        "batch=%d" % b in log,
                        "batch %d: variant batch=%d, relative error %.3g, "
                        "same top-1 per row" % (b, b, err)):
                t.diag("$ " + e2e.cmdline(argv))
                t.diag(log)
            shutil.rmtree(out, ignore_errors=True)
        argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
                os.path.join(d, "b%d" % REFUSED, "in")]
        rc, log = e2e.run(argv)
        if not t.ok(rc == 2 and all("batch=%d" % b in log
                                    for b in BATCHES),
                    "batch %d (not compiled) refused with exit 2, naming "
                    "the variants" % REFUSED):
            t.diag("exit %d" % rc)
            t.diag(log)
    finally:
        if os.path.exists(om):
            os.unlink(om)
    t.exit()


if __name__ == "__main__":
    sys.exit(main())
