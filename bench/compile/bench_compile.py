#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make bench-compile: npuc's compile time and peak memory from 1k to 64k
nodes (gen_chain.py's MatMul+Relu+Add+LayerNorm chains), ONNX Runtime's
session creation on the same files in the same run when onnxruntime-node
is installed in $BUILD/ort, and the growth exponent of each (least-squares
slope of log time over log nodes). Writes a table and a JSON file."""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_chain  # noqa: E402
import onnx  # noqa: E402


def run(cmd, env=None):
    """(wall s, cpu s, peak RSS KiB, stdout) of one process. The peak
    comes from GNU time (the rusage of a child forked from this Python
    would count the parent's pages copied before exec)."""
    fd, tfile = tempfile.mkstemp(suffix=".time")
    os.close(fd)
    try:
        t0 = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-o", tfile, "-f", "%U %S %M"]
                           + cmd, capture_output=True, env=env)
        wall = time.monotonic() - t0
        if p.returncode:
            raise RuntimeError("%s failed (%d): %s" % (
                cmd[0], p.returncode, p.stderr.decode()[-500:]))
        with open(tfile) as f:
            u, s, m = f.read().split()[-3:]
    finally:
        os.unlink(tfile)
    return wall, float(u) + float(s), int(m), p.stdout


def slope(ns, ts):
    xs = [math.log(n) for n in ns]
    ys = [math.log(max(t, 1e-6)) for t in ts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,2000,4000,8000,16000,32000,64000")
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per size (the fastest counts)")
    ap.add_argument("--no-ort", action="store_true")
    a = ap.parse_args()
    build = os.environ.get("BUILD", "build")
    npuc = os.path.join(build, "bin", "npuc")
    work = os.path.join(build, "bench", "compile")
    os.makedirs(work, exist_ok=True)
    ort_mods = os.path.join(build, "ort", "node_modules")
    have_ort = (not a.no_ort and
                os.path.isdir(os.path.join(ort_mods, "onnxruntime-node")))
    env = dict(os.environ, NODE_PATH=ort_mods)
    rows = []
    print("%7s %9s %9s %9s %9s %9s %9s %9s" %
          ("nodes", "wall_s", "cpu_s", "import_ms", "peak_MiB",
           "ort_s", "ort_MiB", "ratio"))
    for n in [int(x) for x in a.sizes.split(",")]:
        model = os.path.join(work, "chain%d.onnx" % n)
        if not os.path.exists(model):
            onnx.save(gen_chain.make(n), model)
        om = os.path.join(work, "chain%d.om" % n)
        rep = os.path.join(work, "chain%d.json" % n)
        best = None
        for _ in range(a.repeat):
            r = run([npuc, model, "-o", om, "--no-cache",
                     "--report-json", rep])
            if best is None or r[0] < best[0]:
                best = r
        with open(rep) as f:
            report = json.load(f)
        row = {"nodes": n, "wall_s": best[0], "cpu_s": best[1],
               "peak_kib": best[2],
               "import_ms": report["import_ms"],
               "total_ms": report["total_ms"]}
        if have_ort:
            o = None
            for _ in range(a.repeat):
                r = run(["node", os.path.join(HERE, "ort_session.js"),
                         model], env=env)
                if o is None or r[0] < o[0]:
                    o = r
            row["ort_session_s"] = json.loads(o[3])["ms"] / 1000
            row["ort_peak_kib"] = o[2]
        rows.append(row)
        print("%7d %9.3f %9.3f %9.1f %9.1f %9s %9s %9s" % (
            n, row["wall_s"], row["cpu_s"], row["import_ms"],
            row["peak_kib"] / 1024,
            "%.3f" % row["ort_session_s"] if have_ort else "-",
            "%.1f" % (row["ort_peak_kib"] / 1024) if have_ort else "-",
            "%.2f" % (row["wall_s"] / row["ort_session_s"])
            if have_ort else "-"), flush=True)
    ns = [r["nodes"] for r in rows]
    res = {"model": "gen_chain MatMul+Relu+Add+LayerNorm", "rows": rows,
           "exponent_wall": slope(ns, [r["wall_s"] for r in rows]),
           # GNU time counts CPU in 10 ms steps: only the sizes above
           "exponent_cpu": slope([r["nodes"] for r in rows
                                  if r["cpu_s"] >= 0.05],
                                 [r["cpu_s"] for r in rows
                                  if r["cpu_s"] >= 0.05])
           if sum(r["cpu_s"] >= 0.05 for r in rows) >= 2 else float("nan"),
           "exponent_peak_mem": slope(ns, [r["peak_kib"] for r in rows])}
    if have_ort:
        res["ort_version"] = "onnxruntime-node (build/ort)"
        res["exponent_ort"] = slope(ns, [r["ort_session_s"] for r in rows])
    print("growth exponent (time ~ nodes^k): npuc wall %.2f, cpu %.2f, "
          "peak memory %.2f%s" % (
              res["exponent_wall"], res["exponent_cpu"],
              res["exponent_peak_mem"],
              ", ORT session %.2f" % res["exponent_ort"] if have_ort else
              " (ORT not installed: make difftest-ort)"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
