# SPDX-License-Identifier: MIT
"""Run one graph through the stack and judge it.

For a graph (dt_graph.Graph) and a work directory, run_case():

1. evaluates the float64 reference (dt_ref) and, in float32, an estimate
   of the rounding the graph amplifies, which sets the tolerance;
2. runs the compiler's reference interpreter (npuc-fe --interp) before and
   after the passes;
3. compiles with npuc: -O2 with 8 streams, -O2 with 1 stream, -O0;
4. runs on the in-process device: the 8-stream .om with the default 4 AI
   cores and with NPU_SIM_CORES=1, the 1-stream and the -O0 .om;
5. (optionally) runs ONNX Runtime on the model;
6. compares: the same -O2 program on 1 or 4 cores and with 1 or 8 streams
   bit for bit; -O0 on the device with the interpreter before the passes
   and -O2 with the interpreter after them bit for bit (the very same
   tasks on the same kernels); -O0 vs -O2, the interpreter vs float64, the
   device vs float64 and vs ONNX Runtime within the tolerance.

The outcome is one class: pass, wrong (a comparison failed), crash (a tool
died of a signal, a runtime/device error, or the device refused a model
npuc wrote), hang (a timeout), error (npuc or the interpreter refused a
valid model with a message that does not say the op/mode is unsupported:
an internal or misleading error), unsupported (a clean "not supported"
refusal). Every failure also gets a signature, the key that the shrinker
preserves and that known-bug matching and de-duplication use.
"""

import os
import re
import shutil
import signal
import subprocess

import numpy as np

import dt_graph
import dt_ref

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))

COMPILE_TIMEOUT = 60
RUN_TIMEOUT = 30

CLASSES = ["pass", "wrong", "crash", "hang", "error", "unsupported"]
SEVERITY = {"crash": 0, "hang": 1, "wrong": 2, "error": 3,
            "unsupported": 4, "pass": 5}

TOL_FLOOR = 2e-4        # scaled error: max |a - b| / max(|ref|, 1e-2)


def tool(name):
    env = name.upper().replace("-", "_")
    return os.environ.get(env) or os.path.join(BUILD, "bin", name)


class Failure:
    def __init__(self, cls, check, detail):
        self.cls = cls
        self.check = check
        self.detail = detail

    def sig(self):
        return "%s:%s" % (self.cls, self.check)

    def __repr__(self):
        return "%s %s: %s" % (self.cls, self.check, self.detail)


class Outcome:
    def __init__(self):
        self.failures = []
        self.notes = []
        self.ort = None         # ORT comparison: None (not run) or status

    def fail(self, cls, check, detail):
        self.failures.append(Failure(cls, check, detail))

    @property
    def cls(self):
        if not self.failures:
            return "pass"
        return min((f.cls for f in self.failures), key=SEVERITY.get)

    def sigs(self):
        return sorted({f.sig() for f in self.failures})

    def first(self):
        return min(self.failures, key=lambda f: SEVERITY[f.cls]) \
            if self.failures else None


def _run(argv, env=None, timeout=RUN_TIMEOUT):
    e = dict(os.environ)
    e["NPU_DEVICE"] = "sim"
    e.pop("NPU_SIM_CORES", None)
    # the interpreter's level of the op kernels: the bit-for-bit checks
    # against it hold on any CPU (Documentation/ops.rst, "Dispatch")
    e["NPU_SIM_ISA"] = "1"
    if env:
        e.update(env)
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout, env=e,
                           start_new_session=True)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as ex:
        out = (ex.stdout or b"").decode("utf-8", "replace")
        return 124, out + "\n(timed out after %ss)" % timeout


def _norm_msg(msg):
    """A message without names and numbers, for signatures."""
    m = msg.strip().splitlines()[-1] if msg.strip() else ""
    m = re.sub(r"'[^']*'", "'X'", m)
    m = re.sub(r"\"[^\"]*\"", "'X'", m)
    m = re.sub(r"\[[0-9, ]*\]", "[S]", m)
    m = re.sub(r"\b\d+\b", "N", m)
    m = re.sub(r"^[^:]*: ", "", m)          # program name / path
    return m[:160]


def _is_unsupported(msg):
    return bool(re.search(r"not supported|unsupported|"
                          r"only [^:]* (is|are) supported", msg))


def _tool_failed(out, what, rc, msg, compile_step, work):
    """Record a non-zero exit of a tool."""
    msg = msg.replace(work + "/", "")
    last = msg.strip().splitlines()[-3:] if msg.strip() else []
    detail = "%s exit %d: %s" % (what, rc, " | ".join(last))
    if rc == 124:
        out.fail("hang", what, detail)
    elif rc < 0 or rc >= 128:
        out.fail("crash", "%s-signal" % what, detail)
    elif compile_step and rc in (1, 2):
        if _is_unsupported(msg):
            out.fail("unsupported", "%s: %s" % (what, _norm_msg(msg)),
                     detail)
        else:
            out.fail("error", "%s: %s" % (what, _norm_msg(msg)), detail)
    elif not compile_step and rc in (2, 3):
        out.fail("crash", "%s: %s" % (what, _norm_msg(msg)), detail)
    else:
        out.fail("crash", "%s-rc%d" % (what, rc), detail)


def scaled_err(a, ref):
    """max |a - ref| / max(max |ref|, 1e-2); NaN == NaN; inf on shape or
    NaN/inf mismatch."""
    a = np.asarray(a, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if a.shape != ref.shape:
        return float("inf")
    if not a.size:
        return 0.0
    na, nr = np.isnan(a), np.isnan(ref)
    if (na != nr).any():
        return float("inf")
    ia, ir = np.isinf(a), np.isinf(ref)
    if (ia != ir).any() or (a[ia] != ref[ir]).any():
        return float("inf")
    ok = ~(na | ia)
    if not ok.any():
        return 0.0
    scale = max(np.abs(ref[ok]).max(), 1e-2)
    return float(np.abs(a[ok] - ref[ok]).max() / scale)


def same_bits(a, b):
    a, b = np.array(a, order="C", copy=True), np.array(b, order="C", copy=True)
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()


def _close(a, ref, tol):
    if ref.dtype.kind in "biu" or a.dtype.kind in "biu":
        return a.shape == ref.shape and np.array_equal(
            a.astype(np.float64), ref.astype(np.float64)), 0.0
    e = scaled_err(a, ref)
    return e <= tol, e


class Case:
    """One graph prepared in a work directory."""

    def __init__(self, g, work):
        self.g = g
        self.work = work
        os.makedirs(work, exist_ok=True)
        with np.errstate(all="ignore"):
            v64, self.dts, self.fragile = dt_ref.evaluate(g, g.feeds)
            v32, _, _ = dt_ref.evaluate(g, g.feeds, np.float32)
        self.ref = {o: v64[o] for o in g.outputs}
        est = 0.0
        for o in g.outputs:
            if self.dts[o] in ("float32", "float16"):
                est = max(est, scaled_err(v32[o], v64[o]))
        self.est = est
        self.tol = max(TOL_FLOOR, 30 * est)
        if "float16" in self.dts.values():
            # a value within rounding of a binary16 midpoint may round
            # either way in two float32 computations: one f16 ulp
            self.tol = max(self.tol, 2e-3)
        self.model = os.path.join(work, "model.onnx")
        dt_graph.save_onnx(g, {o: self.dts[o] for o in g.outputs},
                           self.model)
        self.in_args = []
        for k, (name, dt, shape) in enumerate(g.inputs):
            arr = np.array(g.feeds[name], order="C", copy=True)
            p = os.path.join(work, "in_%d.npy" % k)
            np.save(p, arr)
            arr.tofile(os.path.join(work, "input_%d.bin" % k))
            self.in_args += ["-i", "%s=%s" % (name, p)]

    def out_arrays(self, d):
        res = []
        for k, o in enumerate(self.g.outputs):
            p = os.path.join(d, "output_%d.npy" % k)
            res.append(np.load(p) if os.path.exists(p) else None)
        return res

    def bin_arrays(self, tag):
        res = []
        for k, o in enumerate(self.g.outputs):
            p = os.path.join(self.work, "%s_%d.bin" % (tag, k))
            if not os.path.exists(p):
                res.append(None)
                continue
            dt = np.dtype(self.dts[o])
            res.append(np.fromfile(p, dtype=dt).reshape(self.ref[o].shape)
                       if np.fromfile(p, dtype=dt).size ==
                       self.ref[o].size else np.fromfile(p, dtype=dt))
        return res


STAGES = ("interp", "s8", "s8c1", "s1", "O0")


def stages_for(check):
    """The stages a check needs (to rerun only those while shrinking)."""
    if check.startswith("interp") or check == "passes-vs-interp":
        return {"interp"}
    if check.startswith("npuc -O0"):
        return {"O0c"}
    if check.startswith("npuc -O2 --max-streams 8"):
        return {"s8c"}
    if check.startswith("npuc -O2 --max-streams 1"):
        return {"s1c"}
    for tag in ("s8c1", "s8", "s1", "O0"):
        if check.startswith("npu-run %s:" % tag) or \
                check.startswith("npu-run %s-" % tag) or \
                check == "npu-run " + tag:
            return {tag}
    return {
        "cores-1-vs-4": {"s8", "s8c1"},
        "streams-1-vs-8": {"s8", "s1"},
        "O0-vs-interp": {"interp", "O0"},
        "O2-vs-interp-after": {"interp", "s8"},
        "O0-vs-O2": {"s8", "O0"},
        "npu-vs-f64": {"s8"},
        "npu-vs-ort": {"s8", "ort"},
    }.get(check, set(STAGES))


def run_case(g, work, ort=None, keep=False, stages=None):
    """Run every check on g (or only those of stages); return an Outcome."""
    out = Outcome()
    if os.path.isdir(work):
        shutil.rmtree(work)
    c = Case(g, work)
    out.case = c
    if c.fragile:
        out.notes.append("fragile: " + c.fragile)
    if c.est > 1e-2:
        out.notes.append("ill-conditioned (f32 estimate %.3g)" % c.est)
    want = set(STAGES) | {"ort"} if stages is None else set(stages)
    for t in ("s8", "s8c1", "s1", "O0"):
        if t in want:
            want.add(t[:2] + "c" if t != "s8c1" else "s8c")

    # the interpreter, before and after the passes
    have_interp = False
    if "interp" in want:
        rc, msg = _run([tool("npuc-fe"), c.model, "-O2",
                        "--interp=" + work], timeout=COMPILE_TIMEOUT)
        have_interp = rc == 0
        if rc:
            _tool_failed(out, "interp", rc, msg, True, work)

    # three compiles
    oms = {}
    for tag, opts in (("s8", ["-O2", "--max-streams", "8"]),
                      ("s1", ["-O2", "--max-streams", "1"]),
                      ("O0", ["-O0"])):
        if tag + "c" not in want:
            continue
        om = os.path.join(work, tag + ".om")
        rc, msg = _run([tool("npuc"), c.model, "-o", om, "--no-cache"] +
                       opts, timeout=COMPILE_TIMEOUT)
        if rc:
            _tool_failed(out, "npuc " + " ".join(opts), rc, msg, True, work)
        else:
            oms[tag] = om

    # four runs
    runs = {}
    for tag, om, env in (("s8", "s8", None),
                         ("s8c1", "s8", {"NPU_SIM_CORES": "1"}),
                         ("s1", "s1", None), ("O0", "O0", None)):
        if om not in oms or tag not in want:
            continue
        d = os.path.join(work, "out_" + tag)
        rc, msg = _run([tool("npu-run"), oms[om], "--device", "sim",
                        "-o", d] + c.in_args, env=env)
        if rc:
            _tool_failed(out, "npu-run " + tag, rc, msg, False, work)
        else:
            runs[tag] = c.out_arrays(d)

    ort_out = None
    if ort is not None and "ort" in want:
        ort_out, why = ort.run(c)
        out.ort = why

    before = c.bin_arrays("before") if have_interp else None
    after = c.bin_arrays("after") if have_interp else None
    for k, o in enumerate(g.outputs):
        ref = c.ref[o]

        def cmp_bits(name, x, y):
            if x is not None and y is not None and not same_bits(x, y):
                out.fail("wrong", name, "output %s (%d) differs bitwise "
                         "(scaled err %.3g)" % (o, k, scaled_err(x, y)))

        def cmp_tol(name, x, r):
            if x is None or r is None:
                return
            ok, e = _close(x, r, c.tol)
            if not ok:
                out.fail("wrong", name, "output %s (%d): scaled err %.3g "
                         "> tol %.3g" % (o, k, e, c.tol))

        s8 = runs.get("s8", [None] * (k + 1))[k]
        cmp_bits("cores-1-vs-4", s8, runs.get("s8c1", [None] * (k + 1))[k])
        cmp_bits("streams-1-vs-8", s8, runs.get("s1", [None] * (k + 1))[k])
        o0 = runs.get("O0", [None] * (k + 1))[k]
        if before is not None:
            cmp_bits("O0-vs-interp", o0, before[k])
            cmp_tol("interp-vs-f64", before[k], ref)
        if after is not None:
            cmp_bits("O2-vs-interp-after", s8, after[k])
            if before is not None and after[k] is not None:
                cmp_tol("passes-vs-interp", after[k], before[k].astype(
                    np.float64) if before[k] is not None else ref)
        if o0 is not None and s8 is not None:
            cmp_tol("O0-vs-O2", s8, o0.astype(np.float64))
        cmp_tol("npu-vs-f64", s8, ref)
        if ort_out is not None:
            cmp_tol("npu-vs-ort", s8, ort_out[k].astype(np.float64)
                    if ort_out[k] is not None else None)
    if not keep and not out.failures:
        shutil.rmtree(work, ignore_errors=True)
    return out
