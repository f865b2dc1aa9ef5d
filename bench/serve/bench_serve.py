#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`make bench-serve`: one loaded model served by 1..N threads.

For each model (tests/models/export_models.py names, exported and cached
as the tests do; compiled with npuc) and each thread count T this runs

  * bench_serve pool: T threads calling npurt_model_execute() on one
    loaded model (its pool of execution contexts; weights loaded once);
  * ONNX Runtime (onnxruntime-node, CPU provider, one intra-op thread,
    bench/models/ort_bench.js) with T requests in flight on one session,

alternating the two within each of ROUNDS rounds, so both see the same
machine load. At the largest T it also runs `execs` (one npurt_exec
context per thread) and `separate` (the model loaded T times, what a
server needed before execution contexts) for throughput and device
memory. Every thread's outputs are checked bit for bit against a
single execution's (bench_serve exits nonzero otherwise).

Writes --json (default build/bench/serve.json): per model and T the
requests/s of each round and their median, the speedup over T = 1, the
ratio npu / ORT of the medians (< 1: the emulated device serves fewer
requests), and the memory figures.

Usage: bench_serve.py [--json FILE] [--threads 1,2,4] [--seconds S]
                      [--rounds R] [--ort-dir DIR] [NAME ...]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
import export_models  # noqa: E402
import bench_models  # noqa: E402  (Ort, ort_inputs)


def build_dir():
    return os.path.join(ROOT, os.environ.get("BUILD", "build"))


def compile_model(name):
    d = export_models.export(name, os.path.join(build_dir(), "models"))
    om = os.path.join(build_dir(), "bench", "serve", name + ".om")
    os.makedirs(os.path.dirname(om), exist_ok=True)
    src = os.path.join(d, "model.onnx")
    if not os.path.exists(om) or os.path.getmtime(om) < os.path.getmtime(src):
        subprocess.run([os.path.join(build_dir(), "bin", "npuc"), src,
                        "-o", om], check=True, stdout=subprocess.DEVNULL)
    return d, om


def npu(om, d, threads, seconds, mode):
    p = subprocess.run([os.path.join(build_dir(), "bench", "bench_serve"),
                        om, os.path.join(d, "inputs"), str(threads),
                        str(seconds), mode],
                       capture_output=True, text=True,
                       env=dict(os.environ, NPU_DEVICE="sim"))
    if p.returncode:
        raise RuntimeError("bench_serve %s %d: %s" % (mode, threads,
                                                      p.stderr.strip()))
    return json.loads(p.stdout)


def ort_run(ort, d, threads, seconds):
    req = {"model": os.path.join(d, "model.onnx"),
           "inputs": bench_models.ort_inputs(d), "threads": 1,
           "warmup": threads, "concurrency": threads, "seconds": seconds}
    ort.p.stdin.write(json.dumps(req) + "\n")
    rep = json.loads(ort.p.stdout.readline())
    if not rep["ok"]:
        raise RuntimeError("ORT: " + rep["error"])
    return rep["requests"] / rep["seconds"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=os.path.join(build_dir(), "bench",
                                                   "serve.json"))
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ort-dir", default=os.path.join(build_dir(), "ort",
                                                      "node_modules"))
    ap.add_argument("names", nargs="*",
                    default=["resnet18", "bert_encoder"])
    a = ap.parse_args()
    tlist = [int(t) for t in a.threads.split(",")]
    have_ort = os.path.exists(os.path.join(a.ort_dir, "onnxruntime-node"))
    ort = bench_models.Ort(a.ort_dir, False) if have_ort else None
    doc = {"machine": {"cpus": os.cpu_count(),
                       "load_avg_start": os.getloadavg(),
                       "platform": platform.platform()},
           "seconds": a.seconds, "rounds": a.rounds, "threads": tlist,
           "ort": "onnxruntime-node" if ort else None, "models": {}}
    for name in a.names:
        d, om = compile_model(name)
        res = {"npu": {t: [] for t in tlist},
               "ort": {t: [] for t in tlist}}
        mem = {}
        for r in range(a.rounds):
            for t in tlist:
                j = npu(om, d, t, a.seconds, "pool")
                res["npu"][t].append(j["requests_per_s"])
                mem[t] = j
                if ort:
                    res["ort"][t].append(ort_run(ort, d, t, a.seconds))
                print("%s round %d T=%d: npu %.2f/s%s" % (
                    name, r, t, j["requests_per_s"],
                    ", ORT %.2f/s" % res["ort"][t][-1] if ort else ""),
                    flush=True)
        top = max(tlist)
        execs = npu(om, d, top, a.seconds, "execs")
        sep = npu(om, d, top, a.seconds, "separate")
        m = {"per_threads": {}, "memory": {
            "threads": top,
            "one_model_pool_bytes": mem[top]["model_bytes"],
            "execution_contexts": mem[top]["execution_contexts"],
            "execs_bytes": execs["model_bytes"],
            "loaded_n_times_bytes": sep["model_bytes"],
            "weights_bytes": mem[top]["weights_bytes"],
            "pool_over_n_loads": round(mem[top]["model_bytes"] /
                                       sep["model_bytes"], 4)},
            "execs_requests_per_s": execs["requests_per_s"],
            "loaded_n_times_requests_per_s": sep["requests_per_s"]}
        base = statistics.median(res["npu"][tlist[0]])
        obase = statistics.median(res["ort"][tlist[0]]) if ort else None
        for t in tlist:
            med = statistics.median(res["npu"][t])
            e = {"npu_requests_per_s": res["npu"][t],
                 "npu_median": round(med, 3),
                 "npu_speedup_vs_1": round(med / base, 3)}
            if ort:
                om_ = statistics.median(res["ort"][t])
                e.update({"ort_requests_per_s": [round(x, 3) for x in
                                                 res["ort"][t]],
                          "ort_median": round(om_, 3),
                          "ort_speedup_vs_1": round(om_ / obase, 3),
                          "npu_over_ort": round(med / om_, 4)})
            m["per_threads"][t] = e
        doc["models"][name] = m
        print(json.dumps({name: m}, indent=1), flush=True)
    doc["machine"]["load_avg_end"] = os.getloadavg()
    if ort:
        ort.close()
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1)
    print("wrote", a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
