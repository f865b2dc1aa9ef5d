#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`make demo`: compile the bundled model and run it on the in-process NPU.

  1. npuc compiles models/tinynet/model.onnx to build/demo/tinynet.om and
     prints its compile report;
  2. npu-run runs it on the in-process device (NPU_DEVICE=sim) on the
     bundled image, checks the result against torch's output recorded in
     models/tinynet/expected/ and prints its summary;
  3. the top-5 classes and their probabilities are printed.

Exit status: 0 when all went well and the output matches, 1 otherwise.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
import npu_e2e as e2e  # noqa: E402

MODEL = os.path.join(HERE, "tinynet")


def step(title, argv):
    print("\n== %s\n$ %s" % (title, e2e.cmdline(argv)), flush=True)
    env = dict(os.environ, NPU_DEVICE="sim")
    rc = subprocess.call(argv, cwd=ROOT, env=env)
    if rc != 0:
        print("demo: %s failed (exit status %d)" % (title, rc),
              file=sys.stderr)
    return rc


def main():
    missing = e2e.missing_tools("npuc", "npu-run")
    if missing:
        print("demo: %s not found in %s; the build did not produce it "
              "(run `make` and look for errors)"
              % (" and ".join(missing), os.path.dirname(e2e.tool("npuc"))),
              file=sys.stderr)
        return 1
    work = os.environ.get("NPU_DEMO_DIR") or os.path.join(e2e.BUILD, "demo")
    os.makedirs(work, exist_ok=True)
    om = os.path.join(work, "tinynet.om")
    out = os.path.join(work, "out")
    if step("compile models/tinynet/model.onnx with npuc",
            [e2e.tool("npuc"), os.path.join(MODEL, "model.onnx"), "-o", om,
             "--report"]):
        return 1
    rc = step("run it on the in-process device with npu-run",
              [e2e.tool("npu-run"), om, "--device", "sim",
               "--input-dir", os.path.join(MODEL, "inputs"), "-o", out,
               "--compare", os.path.join(MODEL, "expected"),
               "--rtol", "1e-4", "--atol", "1e-6"])
    path = os.path.join(out, "output_0.npy")
    if not os.path.exists(path):
        print("demo: npu-run wrote no %s" % path, file=sys.stderr)
        return 1

    import numpy as np
    probs = np.load(path).reshape(-1)
    with open(os.path.join(MODEL, "labels.txt")) as f:
        labels = f.read().splitlines()
    print("\n== top-5 classes (input: models/tinynet/inputs/input_0.npy, "
          "a checkerboard)")
    for k, i in enumerate(np.argsort(-probs, kind="stable")[:5]):
        name = labels[i] if i < len(labels) else "?"
        print("  %d. class %d  %-20s %.6f" % (k + 1, i, name, probs[i]))
    ref = np.load(os.path.join(MODEL, "expected", "output_0.npy")).reshape(-1)
    same = int(np.argmax(probs)) == int(np.argmax(ref))
    print("\ntorch says class %d (%s); the NPU %s."
          % (int(np.argmax(ref)), labels[int(np.argmax(ref))],
             "agrees" if same else "DISAGREES"))
    return 0 if rc == 0 and same else 1


if __name__ == "__main__":
    sys.exit(main())
