#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: stream and semaphore budgets (issue 17).

  streams_budget.py

For a small densenet-like concat-heavy CNN (dense_blocks) and a 40-branch
model (branches40), exported by export_models.py with torch's outputs:

  * compile with every --max-streams from 1 to 16 for the default target
    and run on the default in-process device: the report keeps the streams
    within the target's queues and the semaphores, with the runtime's, within
    its budget; the outputs match torch;
  * run the 4- and 16-stream builds on smaller devices - 8 semaphores
    (NPU_SIM_SEMS=8), 2 hardware queues (NPU_SIM_QUEUES=2), a model limited
    to 2 queues (NPURT_MAX_QUEUES=2) - where the runtime merges the streams
    onto fewer queues: still correct, and reported;
  * compile for that small device (--target-device sim, --target
    sim910-lite): the model fits it as compiled (no merging);

and densenet121 (torchvision, random weights) compiled by default loads on
the default device and on one of 4 semaphores (merged when it has more
than one stream) and matches torch.
"""

import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402
import export_models  # noqa: E402

MODELS = ("dense_blocks", "branches40")
STREAMS = range(1, 17)
SMALL = (("8 semaphores", {"NPU_SIM_SEMS": "8"}),
         ("2 hardware queues", {"NPU_SIM_QUEUES": "2"}),
         ("2 queues for the model", {"NPURT_MAX_QUEUES": "2"}),
         ("8 semaphores, 2 queues", {"NPU_SIM_SEMS": "8",
                                     "NPU_SIM_QUEUES": "2"}))
LITE = {"NPU_SIM_SEMS": "8", "NPU_SIM_QUEUES": "2", "NPU_SIM_CORES": "2"}
# the target profile's budget (compiler/driver/target.c)
DEFAULT_QUEUES, DEFAULT_SEMS = 8, 64


def plan():
    per_model = len(STREAMS) + 2 * len(SMALL) + 2 + 1
    return len(MODELS) * per_model + 2


def compile_model(d, om, extra, env=None):
    rep = om + ".json"
    argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
            "--no-cache", "--report-json", rep] + extra
    rc, log = e2e.run(argv, env=env)
    report = None
    if rc == 0:
        with open(rep) as f:
            report = json.load(f)
    return rc, log, report, argv


def run_model(d, om, out, env=None):
    import numpy as np
    argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
            os.path.join(d, "inputs"), "-o", out, "--loop", "3"]
    rc, log = e2e.run(argv, env=env)
    path = os.path.join(out, "output_0.npy")
    ref = np.load(os.path.join(d, "expected", "output_0.npy"))
    err = e2e.rel_error(np.load(path), ref) if rc == 0 and \
        os.path.exists(path) else float("inf")
    m = re.search(r"^queues\s+(\d+) for (\d+) stream", log, re.M)
    queues = (int(m.group(1)), int(m.group(2))) if m else None
    return err, queues, log, argv


def check_run(t, what, d, om, out, env=None, want_merged=None):
    err, queues, log, argv = run_model(d, om, out, env)
    good = err <= e2e.REL_TOL and queues is not None
    note = ""
    if queues:
        note = ", %d streams on %d queues" % (queues[1], queues[0])
        if want_merged is not None:
            good = good and (queues[0] < queues[1]) == want_merged
    if not t.ok(good, "%s (relative error %.3g%s)" % (what, err, note)):
        t.diag("$ " + " ".join("%s=%s" % kv for kv in (env or {}).items())
               + " " + e2e.cmdline(argv))
        t.diag(log)
    return good


def variant(report):
    return report["variants"][0]


def model_checks(t, name, tmp):
    d = export_models.export(name, os.path.join(e2e.BUILD, "models"))
    builds = {}
    for n in STREAMS:
        om = os.path.join(tmp, "%s-%d.om" % (name, n))
        rc, log, rep, argv = compile_model(d, om, ["--max-streams", str(n)])
        if rc:
            t.ok(False, "%s --max-streams %d compiles" % (name, n))
            t.diag("$ " + e2e.cmdline(argv))
            t.diag(log)
            continue
        v = variant(rep)
        fits = v["streams"] <= min(n, DEFAULT_QUEUES) and \
            v["semaphore_budget_used"] <= DEFAULT_SEMS and \
            v["semaphores"] <= v["streams"]
        builds[n] = om
        check = fits
        err, queues, log, argv = run_model(d, om, os.path.join(tmp, "o"))
        check = check and err <= e2e.REL_TOL and queues is not None and \
            queues[0] == queues[1]
        if not t.ok(check, "%s --max-streams %d: %d streams, %d "
                    "semaphores (%d with the runtime's), runs as compiled, "
                    "relative error %.3g" % (name, n, v["streams"],
                                             v["semaphores"],
                                             v["semaphore_budget_used"],
                                             err)):
            t.diag("$ " + e2e.cmdline(argv))
            t.diag(log)
    for n in (4, 16):
        for label, env in SMALL:
            what = "%s %d-stream build on a device of %s" % (name, n, label)
            if n not in builds:
                t.ok(False, what + " (no build)")
                continue
            check_run(t, what, d, builds[n], os.path.join(tmp, "o"), env)
    # Compiled for the small device: fits it, no merging at run time.
    om = os.path.join(tmp, "%s-dev.om" % name)
    rc, log, rep, argv = compile_model(
        d, om, ["--max-streams", "16", "--target-device", "sim"], env=LITE)
    ok = rc == 0 and rep["target"]["semaphores"] == 8 and \
        variant(rep)["semaphore_budget_used"] <= 8 and \
        variant(rep)["streams"] <= 2
    if not t.ok(ok, "%s --target-device sim (8 semaphores, 2 queues): %s"
                % (name, "%d streams, %d semaphores with the runtime's" %
                   (variant(rep)["streams"],
                    variant(rep)["semaphore_budget_used"]) if rc == 0
                   else "failed")):
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(log)
    check_run(t, "%s compiled for the device runs on it unmerged" % name, d,
              om, os.path.join(tmp, "o"), LITE, want_merged=False)
    om = os.path.join(tmp, "%s-lite.om" % name)
    rc, log, rep, argv = compile_model(
        d, om, ["--max-streams", "16", "--target", "sim910-lite"])
    ok = rc == 0 and rep["target"]["name"] == "sim910-lite" and \
        variant(rep)["semaphore_budget_used"] <= 8
    if not t.ok(ok, "%s --target sim910-lite fits 8 semaphores" % name):
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(log)


def main():
    t = e2e.Tap(plan())
    missing = e2e.missing_tools("npuc", "npu-run")
    if missing:
        for _ in range(plan()):
            t.skip("streams budget", "%s not built yet" % missing[0])
        t.exit()
    tmp = tempfile.mkdtemp(prefix="streams-budget-")
    try:
        for name in MODELS:
            model_checks(t, name, tmp)
        d = export_models.export("densenet121",
                                 os.path.join(e2e.BUILD, "models"))
        om = os.path.join(tmp, "densenet121.om")
        rc, log, rep, argv = compile_model(d, om, [])
        if rc:
            t.diag(log)
        v = variant(rep) if rc == 0 else None
        t.diag("densenet121 default compile: %s" % (
            "%d streams, %d signal/wait pairs on %d semaphores, %d with "
            "the runtime's" % (v["streams"], v["sync_pairs"],
                               v["semaphores"],
                               v["semaphore_budget_used"]) if v else
            "failed"))
        check_run(t, "densenet121 (default compile) loads on the default "
                  "device as compiled and matches torch", d, om,
                  os.path.join(tmp, "o"), want_merged=False)
        # With its Concats kept in NC1HWC0 (no TransData branches beside
        # the chain) densenet121 compiles to one stream: then there is
        # nothing to merge, and the small device runs it as compiled.
        multi = bool(v) and v["streams"] > 1
        check_run(t, "densenet121 on a device of 4 semaphores (%s) matches "
                  "torch" % ("merged onto one queue" if multi else
                             "one stream, nothing to merge"),
                  d, om, os.path.join(tmp, "o"), {"NPU_SIM_SEMS": "4"},
                  want_merged=multi)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.exit()


if __name__ == "__main__":
    main()
