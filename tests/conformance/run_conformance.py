#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run the ONNX backend node tests through npuc and npu-run.

Every node test of Debian's python3-onnx (generated and converted by
gen_node_tests.py) is classified:

  unsupported  the compiler does not support one of the ops its graph uses
               (from `npuc --list-ops`), the test has non-tensor inputs or
               outputs (sequence, optional, string), or npuc refuses the
               model with an "unsupported"/"not supported" error;
  passed       npuc compiles it and `npu-run --compare` matches the
               expected outputs (ONNX's own tolerances: rtol 1e-3,
               atol 1e-7) on the in-process device;
  failed       anything else: a compile error that is not "unsupported",
               a run error, a wrong result, a crash or a timeout.

Writes --json (build/conformance.json) in the issue's shape
  {"passed":N,"failed":N,"unsupported":N,"ops":{"Add":{"passed":N,...}}}
and the per-test details (command, reason, log tail) to
build/conformance/results.json. With --tap it prints one TAP line per node
test (unsupported ones as SKIP with the reason; tests listed in
known_failures.txt as TODO), which is how `make check` runs it.

Usage: run_conformance.py [--tap] [--json FILE] [-j N] [-k PATTERN]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
sys.path.insert(0, HERE)
import npu_e2e as e2e  # noqa: E402
import gen_node_tests  # noqa: E402

# The ops issue 8 asks the stack to cover (plus what the models use); the
# summary shows each one's result so a gap is visible at a glance.
ISSUE_OPS = ("BatchNormalization Concat Split Slice Transpose Reshape Flatten "
             "Squeeze Unsqueeze Identity Gather ReduceMean ReduceSum ReduceMax "
             "LayerNormalization Pow Erf Pad Resize Clip HardSwish HardSigmoid "
             "LeakyRelu PRelu Where Cast Expand LogSoftmax MatMul Conv Gemm "
             "Relu Add Sub Mul Div Sqrt Tanh Softmax MaxPool AveragePool "
             "GlobalAveragePool GlobalMaxPool").split()
RTOL = "1e-3"
ATOL = "1e-7"
UNSUPPORTED_RE = re.compile(r"unsupported|not supported|not implemented|"
                            r"only .* (is|are) supported", re.I)
# npuc compiles static graphs: a shape, axes, pads, scales, min/max... that
# the node test feeds as a runtime input must be known at compile time.
FREEZE_RE = re.compile(r"known at compile time|must be (given and )?known|"
                       r"must be (a )?constants?|not known at compile time",
                       re.I)


def supported_ops():
    """The op types npuc supports, from `npuc --list-ops`, or None when the
    compiler cannot list them (then each test's compile error decides)."""
    rc, out = e2e.run([e2e.tool("npuc"), "--list-ops"], timeout=60)
    if rc != 0:
        return None
    ops = set()
    for tok in re.split(r"[\s,]+", out):
        tok = tok.strip("\"'[]:")
        if re.fullmatch(r"[A-Z][A-Za-z0-9]*", tok):
            ops.add(tok)
    return ops or None


def classify_static(rec, ops):
    """Reason a test is unsupported without running it, or None."""
    if rec["not_runnable"]:
        return rec["not_runnable"]
    if rec["domains"]:
        return "op domain %s" % ",".join(rec["domains"])
    if ops is not None:
        missing = [o for o in rec["ops"] if o not in ops]
        if missing:
            return "npuc does not support %s" % ",".join(missing)
    return None


def tail(text, n=15):
    return "\n".join(text.rstrip().splitlines()[-n:])


def short(line):
    """A log line without the long model path, for one-line reasons."""
    line = re.sub(r"\S*/model\.onnx: ", "", line or "")
    return line[:220]


def freeze(src, dst, keep):
    """Write dst/model.onnx and dst/inputs/ from the test in src with graph
    inputs [keep:] turned into initializers holding the test's data."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    m = onnx.load(os.path.join(src, "model.onnx"))
    ins = list(m.graph.input)
    ind = os.path.join(dst, "inputs")
    shutil.rmtree(ind, ignore_errors=True)
    os.makedirs(ind)
    frozen = []
    for k, vi in enumerate(ins):
        arr = np.load(os.path.join(src, "inputs", "input_%d.npy" % k))
        if k < keep:
            shutil.copy(os.path.join(src, "inputs", "input_%d.npy" % k),
                        os.path.join(ind, "input_%d.npy" % k))
            continue
        m.graph.input.remove(vi)
        m.graph.initializer.append(numpy_helper.from_array(arr, vi.name))
        frozen.append(vi.name)
    onnx.save(m, os.path.join(dst, "model.onnx"))
    return frozen


def data_shapes(src):
    """--input-shape for the inputs whose data has another shape than
    the model declares (ONNX 1.12's bfloat16 CastLike tests declare
    `like` [3, 4] and give [1]), and the names of those inputs."""
    import numpy as np
    import onnx
    m = onnx.load(os.path.join(src, "model.onnx"), load_external_data=False)
    specs, names = [], []
    for k, vi in enumerate(m.graph.input):
        p = os.path.join(src, "inputs", "input_%d.npy" % k)
        if not os.path.exists(p) or not vi.type.HasField("tensor_type"):
            continue
        dims = vi.type.tensor_type.shape.dim
        decl = [d.dim_value if d.HasField("dim_value") else None
                for d in dims]
        shape = list(np.load(p, mmap_mode="r").shape)
        if None in decl or decl == shape:
            continue
        specs.append("%s:%s" % (vi.name, ",".join(map(str, shape))))
        names.append(vi.name)
    return (["--input-shape", ";".join(specs)] if specs else []), names


def compile_test(rec, src, dst):
    """Compile the test; when npuc needs an input at compile time, retry
    with the inputs after the first frozen as constants, then with all.
    Return (rc, log, argv, input dir, frozen input names, inputs whose
    shape came from their data)."""
    om = os.path.join(dst, "model.om")
    reshape, reshaped = data_shapes(src)
    model, inputs, frozen = os.path.join(src, "model.onnx"), \
        os.path.join(src, "inputs"), []
    for keep in (None, 1, 0):
        if keep is not None:
            if len(rec["inputs"]) <= keep:
                continue
            fdir = os.path.join(dst, "frozen")
            os.makedirs(fdir, exist_ok=True)
            frozen = freeze(src, fdir, keep)
            model, inputs = os.path.join(fdir, "model.onnx"), \
                os.path.join(fdir, "inputs")
        argv = [e2e.tool("npuc"), model, "-o", om, "--no-cache"] + \
            (reshape if keep is None else [])
        rc, log = e2e.run(argv, timeout=120)
        if rc == 0 or not FREEZE_RE.search(log):
            break
    return rc, log, argv, inputs, frozen, reshaped if keep is None else []


def check_random(rec, src, out):
    """A random test (gen_node_tests.RANDOM_CHECK): the outputs' shapes
    and dtypes are the expected ones, a Bernoulli's values 0 or 1 (1 where
    p >= 1, 0 where p <= 0). Returns None or what is wrong."""
    import numpy as np
    k = 0
    while os.path.exists(os.path.join(src, "expected", "output_%d.npy" % k)):
        want = np.load(os.path.join(src, "expected", "output_%d.npy" % k))
        path = os.path.join(out, "output_%d.npy" % k)
        if not os.path.exists(path):
            return "output %d not written" % k
        got = np.load(path)
        if got.shape != want.shape or got.dtype != want.dtype:
            return "output %d: %s %s, expected %s %s" % (
                k, got.dtype, got.shape, want.dtype, want.shape)
        if "Bernoulli" in rec["ops"] or "Greater" in rec["ops"]:
            if not np.isin(got, (0, 1)).all():
                return "output %d: values other than 0 and 1" % k
            p = np.load(os.path.join(src, "inputs", "input_0.npy"))
            if "Bernoulli" in rec["ops"] and p.shape == got.shape and \
                    ((got[p >= 1] != 1).any() or (got[p <= 0] != 0).any()):
                return "output %d: a certain p drew the other value" % k
        k += 1
    return None if k else "no expected outputs"


def run_one(rec, root, work):
    """Compile and run one node test; return (status, reason, detail)."""
    src = os.path.join(root, "tests", rec["name"])
    dst = os.path.join(work, rec["name"])
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    om = os.path.join(dst, "model.om")
    rc, log, argv, inputs, frozen, reshaped = compile_test(rec, src, dst)
    note = " [inputs %s frozen as constants]" % ",".join(frozen) \
        if frozen else ""
    if reshaped:
        note += " [inputs %s shaped as their data: the model declares " \
            "another shape]" % ",".join(reshaped)
    if rc != 0 or not os.path.exists(om):
        detail = {"command": e2e.cmdline(argv), "log": tail(log),
                  "frozen": frozen}
        if rc in (0, 1, 2) and UNSUPPORTED_RE.search(log):
            first = [ln for ln in log.splitlines()
                     if UNSUPPORTED_RE.search(ln)][0].strip()
            shutil.rmtree(dst, ignore_errors=True)
            return "unsupported", short(first), detail
        why = "timed out" if rc == 124 else \
            "crashed (signal %d)" % -rc if rc < 0 else "exit %d" % rc
        return "failed", "npuc %s: %s%s" % (why, short(tail(log, 1)),
                                            note), detail
    argv = [e2e.tool("npu-run"), om, "--device", "sim",
            "--input-dir", inputs,
            "-o", os.path.join(dst, "out")]
    if not rec.get("random"):
        argv += ["--compare", os.path.join(src, "expected_erratum" if
                                           rec.get("erratum") else
                                           "expected"),
                 "--rtol", RTOL, "--atol", ATOL]
    rc, log = e2e.run(argv, timeout=120)
    detail = {"command": e2e.cmdline(argv), "log": tail(log),
              "frozen": frozen}
    if rc == 0 and rec.get("random"):
        bad = check_random(rec, src, os.path.join(dst, "out"))
        if bad:
            return "failed", "random outputs: %s%s" % (bad, note), detail
        note += " [%s]" % rec["random"]
    if rc == 0:
        shutil.rmtree(dst, ignore_errors=True)
        if rec.get("erratum"):
            note += " [erratum: %s]" % rec["erratum"]
        return "passed", note.strip(), detail
    why = {1: "outputs differ", 2: "usage/input error",
           124: "timed out"}.get(rc, "crashed (signal %d)" % -rc if rc < 0
                                 else "exit %d" % rc)
    return "failed", "npu-run %s: %s%s" % (why, short(tail(log, 1)), note), \
        detail


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tap", action="store_true", help="print TAP")
    p.add_argument("--json", default=None,
                   help="summary file (default build/conformance.json; "
                   "with -k build/conformance/subset.json)")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--known", default=os.path.join(HERE,
                                                   "known_failures.txt"),
                   help="known-failures file (default: %(default)s)")
    p.add_argument("-k", "--filter", default=None,
                   help="only tests whose name matches this regex")
    a = p.parse_args()

    root = os.path.join(e2e.BUILD, "conformance")
    if a.json is None:
        # A partial run must not overwrite the full report.
        a.json = os.path.join(root, "subset.json") if a.filter else \
            os.path.join(e2e.BUILD, "conformance.json")
    tap = None
    missing = e2e.missing_tools("npuc", "npu-run")
    if missing and a.tap:
        print("1..0 # SKIP %s not built yet" % " and ".join(missing))
        return 0
    if missing:
        print("run_conformance.py: %s not built (expected in %s); run "
              "`make` first" % (" and ".join(missing),
                                os.path.dirname(e2e.tool("npuc"))),
              file=sys.stderr)
        return 2

    with open(gen_node_tests.generate(root)) as f:
        tests = json.load(f)["tests"]
    if a.filter:
        tests = [t for t in tests if re.search(a.filter, t["name"])]
    known = e2e.known_failures(a.known)
    ops = supported_ops()
    # Each run works in its own directory (several people may run `make
    # check` on one tree at once); at the end it replaces work/, so work/
    # holds the failures of the last run to look at.
    work = os.path.join(root, "work.%d" % os.getpid())
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    if a.tap:
        tap = e2e.Tap(len(tests))
        if ops is None:
            tap.diag("npuc --list-ops unavailable: classifying by compile "
                     "errors")
    results = {}
    todo = []
    for t in tests:
        why = classify_static(t, ops)
        if why:
            results[t["name"]] = ("unsupported", why, {})
        else:
            todo.append(t)

    def report(t):
        status, why, detail = results[t["name"]]
        if not tap:
            return
        what = "%s [%s]" % (t["name"], t["op"])
        if status == "passed" and why:
            what += " " + why
        if status == "unsupported":
            tap.skip(what, why)
        elif t["name"] in known:
            tap.todo(status == "passed", what, known[t["name"]])
        else:
            if not tap.ok(status == "passed", what):
                tap.diag(why)
                if detail:
                    tap.diag("$ " + detail["command"])

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        futs = {t["name"]: ex.submit(run_one, t, root, work) for t in todo}
        for t in tests:  # report in a stable order
            if t["name"] in futs:
                results[t["name"]] = futs[t["name"]].result()
            report(t)

    summary = {"passed": 0, "failed": 0, "unsupported": 0, "ops": {}}
    for t in tests:
        status = results[t["name"]][0]
        summary[status] += 1
        per = summary["ops"].setdefault(
            t["op"], {"passed": 0, "failed": 0, "unsupported": 0})
        per[status] += 1
    summary["ops"] = dict(sorted(summary["ops"].items()))
    # Passed against corrected data (gen_node_tests.py, the erratum says
    # why): listed by name so that no reader mistakes them for the data's.
    summary["errata"] = sorted(t["name"] for t in tests if t.get("erratum")
                               and results[t["name"]][0] == "passed")
    final = os.path.join(root, "work")
    old = final + ".old.%d" % os.getpid()
    try:
        os.rename(final, old)
    except OSError:
        pass
    try:
        os.rename(work, final)
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)
    # Failure details name the work directory: point them at its new place.
    for r in results.values():
        if r[2].get("command"):
            r[2]["command"] = r[2]["command"].replace(
                os.path.relpath(work, e2e.ROOT), os.path.relpath(final,
                                                                  e2e.ROOT))
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    write_json(a.json, summary)
    details = {t["name"]: {"op": t["op"], "status": results[t["name"]][0],
                           "reason": results[t["name"]][1],
                           **results[t["name"]][2]} for t in tests}
    write_json(os.path.join(root, "subset-results.json" if a.filter
                            else "results.json"), details)

    if tap:
        tap.diag("conformance: %d passed, %d failed, %d unsupported (%s)"
                 % (summary["passed"], summary["failed"],
                    summary["unsupported"], os.path.relpath(a.json)))
        tap.exit()
    print_summary(summary, details, a.json)
    # Known failures (known_failures.txt) are reported but do not fail the
    # target; a new failure does.
    new = [n for n, d in details.items()
           if d["status"] == "failed" and n not in known]
    if new:
        print("%d failure(s) not in tests/conformance/known_failures.txt"
              % len(new))
    return 1 if new else 0


def write_json(path, doc):
    """Write doc to path atomically (readers never see half a file)."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=path.endswith("results.json"))
    os.replace(tmp, path)


def print_summary(summary, details, path):
    print("%-28s %6s %6s %11s" % ("op", "passed", "failed", "unsupported"))
    for op, c in summary["ops"].items():
        if c["passed"] or c["failed"]:
            print("%-28s %6d %6d %11d" % (op, c["passed"], c["failed"],
                                          c["unsupported"]))
    print("\nops of issue 8:")
    for op in ISSUE_OPS:
        c = summary["ops"].get(op)
        if c:
            print("  %-20s %s" % (op, ", ".join(
                "%d %s" % (v, k) for k, v in c.items() if v)))
        else:
            print("  %-20s no node tests" % op)
    unsup = [op for op, c in summary["ops"].items()
             if not c["passed"] and not c["failed"]]
    print("\nunsupported ops (%d): %s" % (len(unsup), " ".join(unsup)))
    failed = sorted(n for n, d in details.items() if d["status"] == "failed")
    if failed:
        print("\nfailed tests (%d):" % len(failed))
        for n in failed:
            print("  %s [%s]: %s" % (n, details[n]["op"], details[n]["reason"]))
    if summary["errata"]:
        print("\npassed against corrected data (%d; the erratum in "
              "results.json): %s" % (len(summary["errata"]),
                                     " ".join(summary["errata"])))
    print("\ntotal: %d passed, %d failed, %d unsupported -> %s"
          % (summary["passed"], summary["failed"], summary["unsupported"],
             os.path.relpath(path)))


if __name__ == "__main__":
    sys.exit(main())
