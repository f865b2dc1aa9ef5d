#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: one real model end to end on the in-process device.

  model_test.py NAME

exports NAME (cached, see export_models.py), compiles it with npuc, runs it
with npu-run on the in-process device (NPU_DEVICE=sim) with --compare against
torch's output, and checks the relative error max|out-ref|/max|ref| <= 1e-4
on the logits and the same top-1 class.

While npuc or npu-run is not built, the steps that need it are reported as
TAP SKIP naming the missing program. A model listed in known_failures.txt
still runs; its failures are reported as TAP TODO with the recorded reason.
"""

import atexit
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402
import export_models  # noqa: E402

# Streams the compiler must find in a model with independent branches.
MIN_STREAMS = {"two_branch_cnn": 2}
# Small models also compiled at -O0 (no folding or fusion), which must give
# the same answer: a difference points at a pass, not at a kernel.
CHECK_O0 = ("two_branch_cnn", "bert_encoder")
# Multi-stream models run again and again (the runtime advances each
# cross-stream semaphore's base per execution): the last of many runs must
# give the same bits as a single run.
CHECK_LOOP = ("two_branch_cnn", "squeezenet1_1", "bert_encoder")
# Models dumped tensor by tensor (npu-run --dump, fused and NC1HWC0
# tensors included) and compared with the compiler's interpreter on the
# ONNX graph (npu-compare, Documentation/diagnosis.rst): all must agree.
CHECK_DUMP = ("two_branch_cnn", "bert_encoder")
# ... and run with a corrupted MaxPool kernel, which npu-compare must name.
CHECK_CORRUPT = ("two_branch_cnn",)


def plan(name):
    return 5 + (name in MIN_STREAMS) + 2 * (name in CHECK_O0) + \
        (name in CHECK_LOOP) + (name in CHECK_DUMP) + (name in CHECK_CORRUPT)


def report_streams(report):
    """Streams of the first (or only) shape variant in an npuc
    --report-json document (Documentation/npuc.rst), or None."""
    if not isinstance(report, dict):
        return None
    variants = report.get("variants")
    if isinstance(variants, list) and variants and \
            isinstance(variants[0], dict):
        n = variants[0].get("streams")
        return n if isinstance(n, int) else None
    n = report.get("streams")
    return n if isinstance(n, int) else None


def check_o0(t, check, name, d, run_dir, ref):
    """Compile at -O0, run, and compare with torch like the -O2 build."""
    import numpy as np
    what = "%s: -O0 build (no folding/fusion) matches torch" % name
    if e2e.missing_tools("npu-run"):
        t.skip(what, "npu-run not built yet")
        return
    om = os.path.join(run_dir, "model-O0.om")
    out = os.path.join(run_dir, "out-O0")
    argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
            "--no-cache",
            "-O0"]
    rc, log = e2e.run(argv)
    if rc == 0:
        argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
                os.path.join(d, "inputs"), "-o", out]
        rc, log = e2e.run(argv)
    path = os.path.join(out, "output_0.npy")
    err = e2e.rel_error(np.load(path), ref) if rc == 0 and \
        os.path.exists(path) else float("inf")
    if not check(err <= e2e.REL_TOL, "%s (relative error %.3g)"
                 % (what, err)):
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(log)


def check_loop(t, check, name, d, run_dir, om, outdir):
    """--warmup 2 --loop 10: the last output equals the single run's."""
    what = "%s: 12 runs in a row (--warmup 2 --loop 10) give the same " \
        "output bits as one run" % name
    if e2e.missing_tools("npu-run"):
        t.skip(what, "npu-run not built yet")
        return
    out = os.path.join(run_dir, "out-loop")
    argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
            os.path.join(d, "inputs"), "-o", out, "--warmup", "2",
            "--loop", "10"]
    rc, log = e2e.run(argv)
    one, many = (os.path.join(p, "output_0.npy") for p in (outdir, out))
    same = False
    if rc == 0 and os.path.exists(one) and os.path.exists(many):
        with open(one, "rb") as a, open(many, "rb") as b:
            same = a.read() == b.read()
    if not check(same, what):
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(log)


def check_reproducible(check, name, d, run_dir, om):
    """A compile that bypasses the cache must give the very same bytes."""
    again = os.path.join(run_dir, "model-again.om")
    rc, _ = e2e.run([e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o",
                     again, "--no-cache"])
    same = False
    if rc == 0 and os.path.exists(om):
        with open(om, "rb") as a, open(again, "rb") as b:
            same = a.read() == b.read()
    check(same, "%s: a second compile gives the same .om "
          "bytes" % name)


def check_dump(t, check, name, d, run_dir, om):
    """Every dumped tensor within npu-compare's thresholds."""
    dump = os.path.join(run_dir, "dump")
    argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
            os.path.join(d, "inputs"), "--dump", dump]
    rc, log = e2e.run(argv)
    argv2 = [e2e.tool("npu-compare"), os.path.join(d, "model.onnx"), dump,
             "--input-dir", os.path.join(d, "inputs")]
    rc2, log2 = e2e.run(argv2) if rc == 0 else (rc, "")
    n = [ln for ln in log2.splitlines() if ln.startswith("compared ")]
    if not check(rc == 0 and rc2 == 0 and n and n[-1].endswith(
            " 0 diverged"), "%s: every dumped tensor matches the "
            "interpreter (%s)" % (name, n[-1] if n else "no comparison")):
        t.diag("$ " + e2e.cmdline(argv) + "\n" + log + "$ " +
               e2e.cmdline(argv2) + "\n" + log2)
    if name not in CHECK_CORRUPT:
        return
    # the device's corrupt_op test mode (NPU_SIM_CORRUPT_OP = opcode + 1)
    # on POOL2D: the first divergent tensor is a MaxPool's, every tensor
    # before it in data-flow order within cosine 0.99999
    bad = os.path.join(run_dir, "dump-corrupt")
    js = os.path.join(run_dir, "corrupt.json")
    rc, log = e2e.run(argv[:-1] + [bad], env={"NPU_SIM_CORRUPT_OP": "7"})
    rc2, log2 = e2e.run([e2e.tool("npu-compare"),
                         os.path.join(d, "model.onnx"), bad, "--input-dir",
                         os.path.join(d, "inputs"), "--json", js])
    fd, before = None, []
    if rc == 0 and rc2 == 1:
        with open(js) as f:
            c = json.load(f)
        fd = c.get("first_divergence") or {}
        for x in c.get("tensors", []):
            if x["tensor"] == fd.get("tensor"):
                break
            before.append(x["cosine"])
    if not check(fd and fd.get("node", "").endswith("/MaxPool") and before and
                 min(before) >= 0.99999,
                 "%s: a corrupted POOL2D kernel: npu-compare names %s, "
                 "the %d tensors before it at cosine >= 0.99999" %
                 (name, fd and fd.get("node"), len(before))):
        t.diag(log + log2)


def keep_last(run_dir, last):
    """Replace last with run_dir (the files of the latest run)."""
    old = "%s.old.%d" % (last, os.getpid())
    try:
        os.rename(last, old)
    except OSError:
        pass
    try:
        os.rename(run_dir, last)
    except OSError:
        shutil.rmtree(run_dir, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in export_models.MODELS:
        print("usage: model_test.py {%s}" % ",".join(export_models.MODELS),
              file=sys.stderr)
        return 2
    name = sys.argv[1]
    known = e2e.known_failures(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "known_failures.txt"))
    todo = known.get(name)
    t = e2e.Tap(plan(name))

    def check(cond, what):
        if todo:
            return t.todo(cond, what, todo)
        return t.ok(cond, what)

    import numpy as np
    import warnings
    warnings.filterwarnings("ignore")
    out_root = os.path.join(e2e.BUILD, "models")
    try:
        d = export_models.export(name, out_root)
        t.ok(True, "%s: exported with torch (cached in %s)"
             % (name, os.path.relpath(d, e2e.ROOT)))
    except Exception as ex:  # a broken torch install is a real failure
        t.ok(False, "%s: export with torch" % name)
        t.diag(repr(ex))
        for _ in range(t.n, plan(name)):
            t.skip("%s: later steps" % name, "export failed")
        t.exit()

    # Compile and run in a directory of this process (several `make check`
    # runs may share the tree); at exit it becomes <model>/last.
    run_dir = os.path.join(d, "run.%d" % os.getpid())
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    atexit.register(keep_last, run_dir, os.path.join(d, "last"))
    om = os.path.join(run_dir, "model.om")
    report = os.path.join(run_dir, "report.json")
    outdir = os.path.join(run_dir, "out")
    ref = np.load(os.path.join(d, "expected", "output_0.npy"))
    atol = e2e.REL_TOL * float(np.abs(ref).max())

    rest = ["npu-run --compare", "relative error <= %g" % e2e.REL_TOL,
            "same top-1 as torch"]
    if name in MIN_STREAMS:
        rest.append("compiler uses >= %d streams" % MIN_STREAMS[name])
    if name in CHECK_O0:
        rest.append("-O0 build matches too")
        rest.append("recompiling gives the same .om bytes")
    if name in CHECK_LOOP:
        rest.append("12 runs in a row give the same bits")
    miss = e2e.missing_tools("npuc")
    if miss:
        t.skip("%s: npuc compiles" % name, "npuc not built yet (%s)"
               % e2e.tool("npuc"))
        for r in rest:
            t.skip("%s: %s" % (name, r), "needs npuc")
        t.exit()

    argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
            "--no-cache",
            "--report-json", report]
    rc, log = e2e.run(argv)
    if not check(rc == 0 and os.path.exists(om), "%s: npuc compiles" % name):
        t.diag("$ " + e2e.cmdline(argv))
        t.diag(log)
        for r in rest:
            t.skip("%s: %s" % (name, r), "compile failed")
        t.exit()

    if e2e.missing_tools("npu-run"):
        for r in rest[:3]:
            t.skip("%s: %s" % (name, r), "npu-run not built yet (%s)"
                   % e2e.tool("npu-run"))
    else:
        argv = [e2e.tool("npu-run"), om, "--device", "sim",
                "--input-dir", os.path.join(d, "inputs"), "-o", outdir,
                "--compare", os.path.join(d, "expected"),
                "--rtol", "0", "--atol", "%.9g" % atol]
        rc, log = e2e.run(argv)
        if not check(rc == 0, "%s: npu-run --compare (atol %.3g = 1e-4 * "
                     "max|ref|)" % (name, atol)):
            t.diag("$ " + e2e.cmdline(argv))
            t.diag(log)
        out_file = os.path.join(outdir, "output_0.npy")
        if os.path.exists(out_file):
            out = np.load(out_file)
            err = e2e.rel_error(out, ref)
            check(err <= e2e.REL_TOL, "%s: relative error %.3g <= %g"
                  % (name, err, e2e.REL_TOL))
            o1 = int(np.argmax(out.reshape(-1))) if out.size else -1
            r1 = int(np.argmax(ref.reshape(-1)))
            check(o1 == r1, "%s: top-1 class %d (torch: %d)"
                  % (name, o1, r1))
        else:
            check(False, "%s: relative error (no output_0.npy written)"
                  % name)
            check(False, "%s: top-1 (no output_0.npy written)" % name)

    if name in MIN_STREAMS:
        try:
            with open(report) as f:
                n = report_streams(json.load(f))
        except (OSError, ValueError) as ex:
            n = None
            t.diag("cannot read %s: %s" % (report, ex))
        check(n is not None and n >= MIN_STREAMS[name],
              "%s: compile report shows %s streams (>= %d)"
              % (name, n, MIN_STREAMS[name]))
    if name in CHECK_O0:
        check_o0(t, check, name, d, run_dir, ref)
        check_reproducible(check, name, d, run_dir, om)
    if name in CHECK_LOOP:
        check_loop(t, check, name, d, run_dir, om, outdir)
    if name in CHECK_DUMP:
        if e2e.missing_tools("npu-run", "npu-compare"):
            for _ in range(1 + (name in CHECK_CORRUPT)):
                t.skip("%s: dump vs interpreter" % name,
                       "npu-compare not built")
        else:
            check_dump(t, check, name, d, run_dir, om)
    t.exit()


if __name__ == "__main__":
    sys.exit(main())
