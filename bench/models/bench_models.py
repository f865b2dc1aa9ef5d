#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`make bench-models`: every e2e model on the in-process NPU beside
ONNX Runtime.

For each model of tests/models/export_models.py (exported and cached as the
tests do) this

  * compiles it with `npuc --report-json` and keeps the compile report's
    figures: workspace bytes vs the memory plan's lower bound, fused ops,
    streams (and the whole report);
  * times it with `npu-run --loop N --warmup 1 --json F` on the in-process
    device (NPU_DEVICE=sim) and the same ONNX file and input with ONNX
    Runtime (onnxruntime-node, CPU provider, ort_bench.js), in ROUNDS
    alternating batches so that both sides see the same machine load;
  * does so on one core (both sides under `taskset -c 0`, ORT with one
    intra-op thread) and on all cores (no pinning, ORT with one intra-op
    thread per CPU);
  * reports p50 and min per side and the ratio npu / ORT of each (> 1:
    the emulated device is slower);
  * measures the fixed cost per run on a tiny model (Relu of 64 floats);
  * generates 32 tokens with the decoders of DECODERS (tests/models/
    decoder_kv.py's GPT-style decoder at two sizes, its KV cache static or
    growing): npu-run --generate (the static form as a .om of two gears,
    the growing one online) beside the same greedy loop on ORT
    (ort_bench.js), tokens/s of each and the ratio ORT / npu tokens/s
    (> 1: the device is slower), both sides' tokens checked against torch.

--torch adds torch with one thread (the previous reference) per model.
The models of INT8_MODELS also get an int8 twin (QDQ: tools/npu-quant
when built, else quantize_simple.py), timed on the device beside the f32
build in alternating batches: models[name]["int8"] holds both latencies,
ratio_p50 / ratio_min (int8 / f32, < 1: int8 is faster) and the top-1
agreement and relative error of the int8 logits (--no-int8 skips it).
N is chosen so each side takes about --seconds per model and configuration.
Writes --json (default build/bench/models.json).

Usage: bench_models.py [--json FILE] [--seconds S] [--rounds R] [--torch]
                       [--ort-dir DIR] [NAME ...]
"""

import argparse
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "models"))
import npu_e2e as e2e  # noqa: E402
import export_models  # noqa: E402
import decoder_kv  # noqa: E402

# name -> (vocabulary, hidden, heads, layers, positions), cache forms
DECODERS = {
    "decoder_small": ((96, 48, 4, 2, 64), ("static", "growing")),
    "decoder_256": ((512, 256, 8, 4, 128), ("static", "growing")),
}


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



TINY = "tiny_relu"


def pct(v, p):
    """p-th percentile of the list v (nearest rank on the sorted list)."""
    v = sorted(v)
    if not v:
        return None
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * (len(v) - 1)))))
    return v[k]


def stats(times):
    return {"runs": len(times), "p50_ms": round(statistics.median(times), 4),
            "min_ms": round(min(times), 4),
            "p90_ms": round(pct(times, 90), 4)}


class Ort:
    """One long-lived node process (ort_bench.js), optionally pinned."""

    def __init__(self, node_path, pin):
        env = dict(os.environ)
        env["NODE_PATH"] = node_path
        argv = ["node", os.path.join(HERE, "ort_bench.js")]
        if pin:
            argv = ["taskset", "-c", "0"] + argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=env,
                                  text=True, bufsize=1)

    def run(self, model, inputs, threads, loops, warmup):
        return self.request({"model": model, "inputs": inputs,
                             "threads": threads, "loops": loops,
                             "warmup": warmup})["times_ms"]

    def request(self, req):
        self.p.stdin.write(json.dumps(req) + "\n")
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("ort_bench.js exited")
        rep = json.loads(line)
        if not rep["ok"]:
            raise RuntimeError("ORT: " + rep["error"])
        return rep

    def close(self):
        self.p.stdin.close()
        self.p.wait(30)


def ort_inputs(d):
    """Raw .bin copies of inputs/input_K.npy named as the ONNX graph's
    inputs, for ort_bench.js."""
    import numpy as np
    import onnx
    m = onnx.load(os.path.join(d, "model.onnx"), load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    res = []
    for k, name in enumerate(names):
        a = np.load(os.path.join(d, "inputs", "input_%d.npy" % k))
        f = os.path.join(d, "inputs", "ort_input_%d.bin" % k)
        a.tofile(f)
        res.append({"name": name, "dtype": str(a.dtype),
                    "shape": list(a.shape), "file": f})
    return res


def make_tiny(out):
    """A Relu over 64 floats: what a run costs besides the compute."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    d = os.path.join(out, TINY)
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    g = helper.make_graph(
        [helper.make_node("Relu", ["input"], ["logits"])], TINY,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       [1, 64])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.save(m, os.path.join(d, "model.onnx"))
    x = np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32)
    np.save(os.path.join(d, "inputs", "input_0.npy"), x)
    return d


def compile_model(d):
    om = os.path.join(d, "bench.om")
    rep_path = os.path.join(d, "bench-report.json")
    argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
            "--no-cache", "--report-json", rep_path]
    t0 = time.time()
    rc, log = e2e.run(argv)
    res = {"compile_seconds": round(time.time() - t0, 3)}
    if rc != 0:
        res["error"] = "npuc failed: " + log.strip()[-300:]
        return None, res
    try:
        with open(rep_path) as f:
            rep = json.load(f)
        res["compile_report"] = report_figures(rep)
        res["compile_report_full"] = rep
    except (OSError, ValueError) as ex:
        res["compile_report"] = {"error": str(ex)}
    return om, res


def npu_run_json(argv, jpath, pin):
    """npu-run ARGV --json JPATH (under taskset -c 0 when @pin): its JSON
    summary."""
    argv = [e2e.tool("npu-run")] + argv + ["--json", jpath]
    if pin:
        argv = ["taskset", "-c", "0"] + argv
    rc, log = e2e.run(argv, timeout=900)
    if rc != 0:
        raise RuntimeError("npu-run failed: " + log.strip()[-300:])
    with open(jpath) as f:
        return json.load(f)


def npu_loop(om, d, n, pin):
    """Latencies (ms) of n timed runs after one warm-up, in one npu-run."""
    doc = npu_run_json([om, "--device", "sim", "--input-dir",
                        os.path.join(d, "inputs"), "--loop", str(n),
                        "--warmup", "1"],
                       os.path.join(d, "bench-run.json"), pin)
    return doc["latencies_ms"], doc


CONFIGS = (("one_core", True), ("all_cores", False))


def bench_model(d, om, inputs, orts, seconds, rounds):
    """Both sides, both configurations, ROUNDS alternating batches each."""
    res = {}
    ncpu = os.cpu_count() or 1
    for cfg, pin in CONFIGS:
        ort = orts[cfg]
        threads = 1 if pin else ncpu
        # one run each to size the batches
        t_npu, _ = npu_loop(om, d, 1, pin)
        t_ort = ort.run(os.path.join(d, "model.onnx"), inputs, threads, 1, 1)
        per = seconds / rounds
        n_npu = max(2, min(500, int(per / max(t_npu[0] / 1e3, 1e-5))))
        n_ort = max(2, min(5000, int(per / max(t_ort[0] / 1e3, 1e-5))))
        npu_t, ort_t, doc = [], [], None
        for _ in range(rounds):
            t, doc = npu_loop(om, d, n_npu, pin)
            npu_t += t
            ort_t += ort.run(os.path.join(d, "model.onnx"), inputs,
                             threads, n_ort, 1)
        s_npu, s_ort = stats(npu_t), stats(ort_t)
        res[cfg] = {
            "npu": s_npu, "ort": s_ort, "ort_threads": threads,
            "ratio_p50": round(s_npu["p50_ms"] / s_ort["p50_ms"], 3),
            "ratio_min": round(s_npu["min_ms"] / s_ort["min_ms"], 3),
            "npu_device": doc.get("device"),
            "npu_streams": doc.get("streams")}
    return res


def npu_generate(model, loops, pin):
    """npu-run --generate: the tokens and the timed generations' median
    tokens/s."""
    doc = npu_run_json([model, "--device", "sim", "--generate",
                        str(decoder_kv.NEW), "--prompt",
                        ",".join(map(str, decoder_kv.PROMPT)), "--warmup",
                        "1", "--loop", str(loops)],
                       os.path.join(os.path.dirname(model), "bench-gen.json"),
                       pin)
    return doc["tokens"], doc["tokens_per_s_median"], doc


def bench_decoder(name, orts, seconds, rounds):
    """Tokens/s of each cache form of decoder @name on both sides."""
    dims, forms = DECODERS[name]
    decoder_kv.configure(*dims)
    d = os.path.join(e2e.BUILD, "bench", name)
    ref = decoder_kv.prepare(d)
    vocab, dim, heads, layers, positions = dims
    rec = {"vocab": vocab, "hidden": dim, "heads": heads, "layers": layers,
           "positions": positions, "prompt_tokens": len(decoder_kv.PROMPT),
           "new_tokens": decoder_kv.NEW,
           "ratio": "ORT tokens/s / npu tokens/s; > 1 = slower"}
    for form in forms:
        r = ref[form]
        model = r["onnx"]
        if form == "static":    # deployed ahead of time: two gears
            model = os.path.join(d, "static.om")
            rc, log = e2e.run([e2e.tool("npuc"), r["onnx"], "-o", model,
                               "--no-cache", "--dynamic-dims",
                               "%d;1" % len(decoder_kv.PROMPT)])
            if rc:
                raise RuntimeError("npuc failed: " + log.strip()[-300:])
        n = 0 if form == "growing" else positions
        cache = [{"name": c, "shape": [1, heads, n, dim // heads]}
                 for c in decoder_kv.cache_names()[0]]
        res = {"model": os.path.basename(model)}
        for cfg, pin in CONFIGS:
            threads = 1 if pin else (os.cpu_count() or 1)
            toks, rate = decoder_kv.NEW, None
            t0 = time.time()
            npu_generate(model, 1, pin)
            loops = max(2, min(50, int(seconds / rounds /
                                       max(time.time() - t0, 1e-3))))
            npu_r, ort_r = [], []
            for _ in range(rounds):
                toks, rate, doc = npu_generate(model, loops, pin)
                npu_r.append(rate)
                rep = orts[cfg].request({
                    "model": r["onnx"], "threads": threads,
                    "generate": decoder_kv.NEW,
                    "prompt": decoder_kv.PROMPT, "cache": cache,
                    "warmup": 1, "loops": loops})
                ort_r += rep["tokens_per_s"]
            npu_tps = statistics.median(npu_r)
            ort_tps = statistics.median(ort_r)
            res[cfg] = {
                "npu_tokens_per_s": round(npu_tps, 1),
                "ort_tokens_per_s": round(ort_tps, 1),
                "ratio": round(ort_tps / npu_tps, 3),
                "npu_tokens_match_torch": toks == r["tokens"],
                "ort_tokens_match_torch": rep["tokens"] == r["tokens"],
                "npu_cache_host_bytes": doc["cache_host_bytes"],
                "npu_shapes_compiled": doc["shapes_compiled"],
                "generations": loops * rounds}
        rec[form] = res
    return rec


# Models that also get an int8 twin (QDQ, quantized at bench time).
# mobilenet_v2 and squeezenet1_1 are left out: their int8 build is slower
# than f32 today (depthwise and 1x1 convolutions of few channels run the
# portable loops or a VNNI kernel bound by its epilogue, quantization.rst).
INT8_MODELS = ("resnet18", "resnet50")


def quantize_model(d):
    """The int8 (QDQ) twin of d/model.onnx: tools/npu-quant when it is
    built, else bench/models/quantize_simple.py (symmetric per-channel
    weights, per-tensor min/max activations over three calibration
    inputs). Returns (path, tool used)."""
    import numpy as np
    out = os.path.join(d, "model_int8.onnx")
    x = np.load(os.path.join(d, "inputs", "input_0.npy"))
    rng = np.random.default_rng(5)
    cal = []
    for i in range(3):
        c = os.path.join(d, "calib_%d.npy" % i)
        np.save(c, (x if i == 0 else x * 0.7 + 0.3 * rng.standard_normal(
            x.shape)).astype(np.float32))
        cal.append(c)
    quant = e2e.tool("npu-quant")
    if e2e.have("npu-quant"):
        cdir = os.path.join(d, "calib")
        os.makedirs(cdir, exist_ok=True)
        for i, c in enumerate(cal):
            shutil.copy(c, os.path.join(cdir, "input_%d.npy" % i))
        rc, log = e2e.run([quant, os.path.join(d, "model.onnx"), cdir,
                           "-o", out])
        if rc == 0:
            return out, "npu-quant"
    argv = [sys.executable, os.path.join(HERE, "quantize_simple.py"),
            os.path.join(d, "model.onnx")] + cal + ["-o", out]
    rc, log = e2e.run(argv, timeout=1800)
    if rc != 0:
        raise RuntimeError("quantize_simple.py failed: " +
                           log.strip()[-300:])
    return out, "quantize_simple.py"


def bench_int8(name, d, rec, seconds, rounds):
    """int8 latency beside the f32 build of the same model on the
    device, in alternating batches per configuration; the ratio
    int8 / f32 (< 1: int8 is faster) and the int8 output's agreement with
    the float one."""
    import numpy as np
    qpath, how = quantize_model(d)
    om = os.path.join(d, "bench_int8.om")
    rc, log = e2e.run([e2e.tool("npuc"), qpath, "-o", om, "--no-cache"])
    if rc != 0:
        return {"error": "npuc (int8) failed: " + log.strip()[-300:]}
    f32_om = os.path.join(d, "bench.om")
    res = {"quantizer": how}
    rc, tasks = e2e.run([e2e.tool("npu-om"), "--tasks", om])
    res["int8_conv_tasks"] = sum(1 for ln in tasks.splitlines()
                                 if " QCONV2D " in ln and "@" in ln)
    for cfg, pin in CONFIGS:
        t_q, _ = npu_loop(om, d, 1, pin)
        n = max(2, min(500, int(seconds / rounds /
                                max(t_q[0] / 1e3, 1e-5))))
        q_t, f_t = [], []
        for _ in range(rounds):
            q_t += npu_loop(om, d, n, pin)[0]
            f_t += npu_loop(f32_om, d, n, pin)[0]
        sq, sf = stats(q_t), stats(f_t)
        res[cfg] = {"int8": sq, "f32": sf,
                    "ratio_p50": round(sq["p50_ms"] / sf["p50_ms"], 3),
                    "ratio_min": round(sq["min_ms"] / sf["min_ms"], 3)}
    # accuracy on the model's input (also a calibration input) and on a
    # held-out one
    agree, errs = 0, []
    x = np.load(os.path.join(d, "inputs", "input_0.npy"))
    held = (x * 0.8 + 0.2 * np.random.default_rng(99).standard_normal(
        x.shape)).astype(np.float32)
    for k, xin in enumerate((x, held)):
        idir = os.path.join(d, "int8_in%d" % k)
        os.makedirs(idir, exist_ok=True)
        np.save(os.path.join(idir, "input_0.npy"), xin)
        outs = []
        for m in (f32_om, om):
            od = os.path.join(d, "int8_out%d" % k)
            shutil.rmtree(od, ignore_errors=True)
            rc, log = e2e.run([e2e.tool("npu-run"), m, "--device", "sim",
                               "--input-dir", idir, "-o", od])
            if rc != 0:
                return dict(res, error="npu-run failed: " +
                            log.strip()[-300:])
            outs.append(np.load(sorted(glob.glob(os.path.join(
                od, "*.npy")))[0]).astype(np.float64))
        agree += int(outs[0].argmax() == outs[1].argmax())
        errs.append(float(np.abs(outs[0] - outs[1]).max() /
                          max(np.abs(outs[0]).max(), 1e-30)))
    res["top1_agreement"] = "%d/2" % agree
    res["max_rel_error_vs_f32"] = [round(e, 5) for e in errs]
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
    return dict(stats(times), threads=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", default=os.path.join(e2e.BUILD, "bench",
                                                  "models.json"))
    p.add_argument("--seconds", type=float, default=2.0,
                   help="time per model, side and configuration "
                   "(default 2)")
    p.add_argument("--rounds", type=int, default=3,
                   help="alternating batches per side (default 3)")
    p.add_argument("--ort-dir", default=os.path.join(e2e.BUILD, "ort",
                                                     "node_modules"),
                   help="node_modules holding onnxruntime-node")
    p.add_argument("--torch", action="store_true",
                   help="also time torch (one thread)")
    p.add_argument("--no-int8", action="store_true",
                   help="skip the int8 twins (INT8_MODELS)")
    p.add_argument("names", nargs="*")
    a = p.parse_args()
    names = a.names or list(export_models.MODELS) + list(DECODERS)
    missing = e2e.missing_tools("npuc", "npu-run")
    if missing:
        print("bench_models.py: %s not built (expected in %s); run `make`"
              % (" and ".join(missing), os.path.dirname(e2e.tool("npuc"))),
              file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(a.ort_dir, "onnxruntime-node")):
        print("bench_models.py: onnxruntime-node not in %s (`make "
              "bench-models` installs it)" % a.ort_dir, file=sys.stderr)
        return 2
    for prog in ("node", "taskset"):
        if not shutil.which(prog):
            print("bench_models.py: %s not found" % prog, file=sys.stderr)
            return 2
    import warnings
    warnings.filterwarnings("ignore")
    with open(os.path.join(a.ort_dir, "onnxruntime-node",
                           "package.json")) as f:
        ort_version = json.load(f).get("version")
    out = {"host": {"machine": platform.machine(),
                    "cpus": os.cpu_count(), "ort": ort_version,
                    # Other jobs on the machine skew both sides' timings.
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                    "device": "sim (in-process)", "rounds": a.rounds},
           "ratio": "npu-run latency / ORT latency; > 1 = slower",
           "int8": "models[name].int8: the QDQ twin on the device; "
                   "ratio_p50 = int8 / f32 latency, < 1 = int8 faster",
           "configs": {"one_core": "taskset -c 0, ORT 1 intra-op thread",
                       "all_cores": "no pinning, ORT %d intra-op threads"
                       % (os.cpu_count() or 1)},
           "models": {}}
    orts = {cfg: Ort(a.ort_dir, pin) for cfg, pin in CONFIGS}
    failed = 0
    print("%-14s %-9s %10s %10s %7s %10s %10s %7s" % (
        "model", "cores", "npu p50", "ort p50", "ratio", "npu min",
        "ort min", "ratio"))
    todo = [(n, None) for n in names if n not in DECODERS] + [(TINY, None)]
    for name in (n for n in names if n in DECODERS):
        try:
            rec = bench_decoder(name, orts, a.seconds, a.rounds)
        except RuntimeError as ex:
            rec = {"error": str(ex)}
            failed += 1
            print("%-14s FAILED: %s" % (name, rec["error"]), flush=True)
        for form in DECODERS[name][1]:
            for cfg, _ in CONFIGS if form in rec else ():
                r = rec[form][cfg]
                print("%-14s %-9s %-7s npu %8.1f tok/s  ort %8.1f tok/s  "
                      "ratio %5.2f  tokens as torch: npu %s ort %s" % (
                          name, cfg.replace("_cores", "").replace(
                              "_core", ""), form, r["npu_tokens_per_s"],
                          r["ort_tokens_per_s"], r["ratio"],
                          r["npu_tokens_match_torch"],
                          r["ort_tokens_match_torch"]), flush=True)
        out.setdefault("decoders", {})[name] = rec
    for name, _ in todo:
        if name == TINY:
            d = make_tiny(os.path.join(e2e.BUILD, "bench"))
        else:
            d = export_models.export(name, os.path.join(e2e.BUILD,
                                                        "models"))
        om, rec = compile_model(d)
        if om:
            try:
                rec.update(bench_model(d, om, ort_inputs(d), orts,
                                       a.seconds, a.rounds))
            except RuntimeError as ex:
                rec["error"] = str(ex)
        if "error" in rec:
            failed += 1
            print("%-14s FAILED: %s" % (name, rec["error"]), flush=True)
        else:
            for cfg, _ in CONFIGS:
                r = rec[cfg]
                print("%-14s %-9s %10.3f %10.3f %7.2f %10.3f %10.3f %7.2f"
                      % (name, cfg.replace("_cores", "").replace(
                          "_core", ""), r["npu"]["p50_ms"],
                         r["ort"]["p50_ms"], r["ratio_p50"],
                         r["npu"]["min_ms"], r["ort"]["min_ms"],
                         r["ratio_min"]), flush=True)
        if om and "error" not in rec and name in INT8_MODELS and \
                not a.no_int8:
            try:
                q = bench_int8(name, d, rec, a.seconds, a.rounds)
            except RuntimeError as ex:
                q = {"error": str(ex)}
            rec["int8"] = q
            if "error" in q:
                print("%-14s int8 FAILED: %s" % (name, q["error"]),
                      flush=True)
            else:
                for cfg, _ in CONFIGS:
                    r = q[cfg]
                    print("%-14s %-9s int8 %8.3f f32 %8.3f int8/f32 %5.2f"
                          " (min %5.2f), top-1 %s" % (
                              name, cfg.replace("_cores", "").replace(
                                  "_core", ""), r["int8"]["p50_ms"],
                              r["f32"]["p50_ms"], r["ratio_p50"],
                              r["ratio_min"], q["top1_agreement"]),
                          flush=True)
        if a.torch and name != TINY:
            rec["torch"] = run_torch(name, a.seconds)
        if name == TINY:
            out["fixed_cost"] = rec
        else:
            out["models"][name] = rec
    for o in orts.values():
        o.close()
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
    print("-> %s" % os.path.relpath(a.json))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
