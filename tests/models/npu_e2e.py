# SPDX-License-Identifier: MIT
"""Helpers shared by the end-to-end tests, the conformance run, the model
benchmark and the demo: where the tools are, how to call them, TAP output
and the comparison metric.

Tools are looked up in $BUILD/bin (BUILD defaults to "build", as in
mk/common.mk) unless $NPUC / $NPU_RUN name them explicitly.
"""

import os
import shlex
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))

# Relative error bound of the issue: max |out - ref| / max |ref|.
REL_TOL = 1e-4


def tool(name):
    """Path of one of the stack's programs (npuc, npu-run, npu-om)."""
    env = name.upper().replace("-", "_")
    if os.environ.get(env):
        return os.environ[env]
    return os.path.join(BUILD, "bin", name)


def have(name):
    p = tool(name)
    return os.path.isfile(p) and os.access(p, os.X_OK)


def missing_tools(*names):
    """Names of the tools among NAMES that are not built yet."""
    return [n for n in names if not have(n)]


def run(argv, timeout=600, env=None):
    """Run a command; return (exit status, combined stdout+stderr).

    A timeout is reported as exit status 124, like timeout(1)."""
    e = dict(os.environ)
    e.setdefault("NPU_DEVICE", "sim")
    if env:
        e.update(env)
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout, env=e,
                           cwd=ROOT)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except OSError as ex:   # e.g. the program is being rebuilt right now
        return 127, "cannot run %s: %s" % (argv[0], ex)
    except subprocess.TimeoutExpired as ex:
        out = (ex.stdout or b"").decode("utf-8", "replace")
        return 124, out + "\n(timed out after %ss)" % timeout


def cmdline(argv):
    return " ".join(shlex.quote(os.path.relpath(a, ROOT)
                                if a.startswith(ROOT) else a) for a in argv)


def rel_error(out, ref):
    """max |out - ref| / max |ref| (inf when shapes differ)."""
    import numpy as np
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        return float("inf")
    scale = np.abs(ref).max() if ref.size else 0.0
    diff = np.abs(out - ref).max() if ref.size else 0.0
    if not np.isfinite(diff):
        return float("inf")
    return float(diff / scale) if scale > 0 else float(diff)


class Tap:
    """Minimal TAP producer (plan first, then one line per test)."""

    def __init__(self, plan):
        self.n = 0
        self.failed = 0
        print("1..%d" % plan, flush=True)

    def diag(self, text):
        for line in str(text).rstrip("\n").splitlines()[-40:]:
            print("# " + line)
        sys.stdout.flush()

    def ok(self, cond, what, directive=None):
        self.n += 1
        line = "%s %d - %s" % ("ok" if cond else "not ok", self.n, what)
        if directive:
            line += " # " + directive
        elif not cond:
            self.failed += 1
        print(line, flush=True)
        return cond

    def skip(self, what, reason):
        return self.ok(True, what, "SKIP " + reason)

    def todo(self, cond, what, reason):
        return self.ok(cond, what, "TODO " + reason)

    def exit(self):
        sys.exit(1 if self.failed else 0)


def known_failures(path):
    """Read a known-failures file: 'name  reason' per line, # comments.

    A test listed there still runs; a failure is reported as TAP TODO with
    the reason (so `make check` stays usable) and a pass as an unexpected
    success that prove shows."""
    known = {}
    if not os.path.exists(path):
        return known
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(" ")
            known[name] = reason.strip() or "known failure"
    return known
