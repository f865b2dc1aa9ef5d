#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`make bench-models`: every e2e model on the in-process NPU beside torch.

For each model of tests/models/export_models.py (exported and cached as the
tests do) this

  * compiles it with `npuc --report-json` and keeps the compile report's
    figures: workspace bytes vs the memory plan's lower bound, fused ops,
    streams (and the whole report);
  * runs it with `npu-run --loop N --warmup W --json F` on the in-process
    device (NPU_DEVICE=sim) and reads latency and throughput from that JSON;
  * times torch on the CPU with one thread (torch.set_num_threads(1)),
    the same model, weights and input, in the same run;
  * records ratio = npu latency / torch latency (how many times slower the
    emulated device is than torch on one core; < 1 means faster).

N is chosen so each side takes about --seconds per model (at least 3 runs).
Writes --json (default build/bench/models.json).

Usage: bench_models.py [--json FILE] [--seconds S] [NAME ...]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "models"))
import npu_e2e as e2e  # noqa: E402
import export_models  # noqa: E402


def find_number(doc, *words, exclude=()):
    """First number in a JSON document whose key contains all of words."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            lk = k.lower()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and \
                    all(w in lk for w in words) and \
                    not any(x in lk for x in exclude):
                return v
        for v in doc.values():
            r = find_number(v, *words, exclude=exclude)
            if r is not None:
                return r
    elif isinstance(doc, list):
        for v in doc:
            r = find_number(v, *words, exclude=exclude)
            if r is not None:
                return r
    return None


def report_figures(rep):
    """The compile-report figures the issue asks for, from npuc's
    --report-json (Documentation/npuc.rst): workspace vs the plan's lower
    bound, ops fused (the second of each pass's removed/fused/folded/
    rewritten counts, as npuc --report adds them up) and streams."""
    import re
    fig = {"workspace_bytes": None, "workspace_lower_bound_bytes": None,
           "workspace_over_lower_bound": None, "fused_ops": None,
           "streams": None, "tasks": None, "nodes_before": None,
           "nodes_after": None, "planner": None}
    if not isinstance(rep, dict):
        return fig
    var = (rep.get("variants") or [{}])[0]
    plan = var.get("plan", {})
    ws = plan.get("workspace", find_number(rep, "workspace"))
    lb = plan.get("lower_bound", find_number(rep, "lower_bound"))
    passes = rep.get("passes")
    fused = None
    if isinstance(passes, str):
        fused = sum(int(m.group(2)) for m in re.finditer(
            r":(\d+)/(\d+)/(\d+)/(\d+)", passes))
    fig.update({
        "workspace_bytes": ws, "workspace_lower_bound_bytes": lb,
        "workspace_over_lower_bound": round(ws / lb, 4) if ws and lb
        else None,
        "fused_ops": fused if fused is not None
        else find_number(rep, "fused"),
        "streams": var.get("streams", find_number(rep, "streams")),
        "tasks": var.get("tasks"), "planner": plan.get("best"),
        "nodes_before": rep.get("nodes_before"),
        "nodes_after": rep.get("nodes_after")})
    return fig


def npu_latency(doc):
    """(median latency ms, throughput /s) from an npu-run --json summary
    (keys p50_ms and throughput_per_s, Documentation/npu-run.rst)."""
    lat = doc.get("p50_ms") if isinstance(doc, dict) else None
    if lat is None:
        lat = find_number(doc, "p50") or find_number(doc, "mean", "ms")
    thr = doc.get("throughput_per_s") if isinstance(doc, dict) else None
    if thr is None and lat:
        thr = 1000.0 / lat
    return lat, thr


def run_npu(name, d, seconds):
    om = os.path.join(d, "bench.om")
    rep_path = os.path.join(d, "bench-report.json")
    argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
            "--no-cache",
            "--report-json", rep_path]
    t0 = time.time()
    rc, log = e2e.run(argv)
    compile_s = time.time() - t0
    res = {"compile_seconds": round(compile_s, 3)}
    if rc != 0:
        res["error"] = "npuc failed: " + log.strip()[-300:]
        return res
    try:
        with open(rep_path) as f:
            rep = json.load(f)
        res["compile_report"] = report_figures(rep)
        res["compile_report_full"] = rep
    except (OSError, ValueError) as ex:
        res["compile_report"] = {"error": str(ex)}
    inputs = os.path.join(d, "inputs")
    # One timed run first, to size the loop to the time budget.
    jpath = os.path.join(d, "bench-run.json")

    def loop(n, warm):
        argv = [e2e.tool("npu-run"), om, "--device", "sim", "--input-dir",
                inputs, "--loop", str(n), "--warmup", str(warm),
                "--json", jpath]
        t = time.time()
        rc, log = e2e.run(argv, timeout=900)
        wall = time.time() - t
        if rc != 0:
            return None, wall, log
        with open(jpath) as f:
            return json.load(f), wall, log
    doc, wall, log = loop(1, 0)
    if doc is None:
        res["error"] = "npu-run failed: " + log.strip()[-300:]
        return res
    lat1, _ = npu_latency(doc)
    one = (lat1 / 1000.0) if lat1 else wall
    n = max(3, min(200, int(seconds / max(one, 1e-4))))
    doc, wall, log = loop(n, 1)
    if doc is None:
        res["error"] = "npu-run failed: " + log.strip()[-300:]
        return res
    lat, thr = npu_latency(doc)
    if lat is None:
        lat = wall * 1000.0 / (n + 1)
        res["note"] = "latency from wall time (no latency key in npu-run " \
                      "--json)"
        thr = 1000.0 / lat
    res.update({"loops": n, "latency_ms": round(lat, 4),
                "first_ms": doc.get("first_ms"),
                "throughput_per_s": round(thr, 3), "npu_run": doc})
    return res


def run_torch(name, seconds):
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(export_models.SEED)
    gen = torch.Generator().manual_seed(export_models.SEED)
    model, args = export_models.MODELS[name](gen)
    model.eval()
    with torch.inference_mode():
        model(*args)
        t = time.perf_counter()
        model(*args)
        one = time.perf_counter() - t
        n = max(3, min(200, int(seconds / max(one, 1e-4))))
        times = []
        for _ in range(n):
            t = time.perf_counter()
            model(*args)
            times.append((time.perf_counter() - t) * 1000.0)
    # The median, like npu-run's p50; throughput over the mean.
    return {"loops": n, "threads": torch.get_num_threads(),
            "latency_ms": round(statistics.median(times), 4),
            "latency_mean_ms": round(statistics.mean(times), 4),
            "latency_min_ms": round(min(times), 4),
            "throughput_per_s": round(1000.0 / statistics.mean(times), 3)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", default=os.path.join(e2e.BUILD, "bench",
                                                  "models.json"))
    p.add_argument("--seconds", type=float, default=3.0,
                   help="time budget per model and side (default 3)")
    p.add_argument("names", nargs="*")
    a = p.parse_args()
    names = a.names or list(export_models.MODELS)
    missing = e2e.missing_tools("npuc", "npu-run")
    if missing:
        print("bench_models.py: %s not built (expected in %s); run `make`"
              % (" and ".join(missing), os.path.dirname(e2e.tool("npuc"))),
              file=sys.stderr)
        return 2
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    out = {"host": {"machine": platform.machine(),
                    "cpus": os.cpu_count(), "torch": torch.__version__,
                    # Other jobs on the machine skew both sides' timings.
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                    "torch_threads": 1, "device": "sim (in-process)"},
           "ratio": "npu latency / torch latency (1 thread); > 1 = slower",
           "models": {}}
    failed = 0
    print("%-16s %12s %12s %8s %10s %8s %7s" % (
        "model", "npu ms", "torch ms", "ratio", "ws/lb", "fused", "streams"))
    for name in names:
        d = export_models.export(name, os.path.join(e2e.BUILD, "models"))
        npu = run_npu(name, d, a.seconds)
        tch = run_torch(name, a.seconds)
        rec = {"npu": npu, "torch": tch}
        if "latency_ms" in npu:
            rec["ratio"] = round(npu["latency_ms"] / tch["latency_ms"], 3)
            rec["throughput_ratio"] = round(
                tch["throughput_per_s"] / npu["throughput_per_s"], 3)
        else:
            failed += 1
            rec["ratio"] = None
        out["models"][name] = rec
        cr = npu.get("compile_report", {})
        wl = cr.get("workspace_over_lower_bound")
        print("%-16s %12s %12.3f %8s %10s %8s %7s" % (
            name, "%.3f" % npu["latency_ms"] if "latency_ms" in npu
            else "FAILED", tch["latency_ms"],
            rec["ratio"] if rec["ratio"] is not None else "-",
            "%.3f" % wl if wl else "-", cr.get("fused_ops", "-"),
            cr.get("streams", "-")), flush=True)
        if "error" in npu:
            print("  " + npu["error"].replace("\n", "\n  "))
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
    print("-> %s" % os.path.relpath(a.json))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
