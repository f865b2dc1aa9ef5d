#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make bench-efficiency: the seed's efficiency table, measured on the
device's timing model (Documentation/timing-model.rst).

Each model is compiled four times against its default -O2 build, each time
with one optimisation off: operator fusion, memory reuse, multi-stream
scheduling (1 stream vs 4) and the NC1HWC0 layout. Each compile is run
through `npu-om --timing-json` (modeled bytes moved, bandwidth and cube
utilisation, latency) and its compile report (workspace bytes, and the
workspace without reuse). Writes $BUILD/bench/efficiency.json and a
markdown table beside it; every figure is deterministic on any host.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "models"))
import export_models  # noqa: E402

FUSION_PASSES = ("bn-fold,conv-add-fusion,conv-act-fusion,gelu-fusion,"
                 "layernorm-fusion,matmul-bias-fusion,matmul-add-fusion,"
                 "matmul-act-fusion,attention-fusion,eltwise-act-fusion")

# row: (name, what it varies, npuc options without, npuc options with)
ROWS = [
    ("fusion", "operator fusion off -> on",
     ["--disable-pass=" + FUSION_PASSES], []),
    ("reuse", "workspace without -> with reuse by tensor lifetime", [], []),
    ("streams", "1 stream -> 4 streams", ["--max-streams", "1"],
     ["--max-streams", "4"]),
    ("nc1hwc0", "NCHW -> NC1HWC0 feature maps",
     ["--disable-pass=layout-nc1hwc0"], []),
]

MODELS = ["resnet18", "mobilenet_v2", "two_branch_cnn", "bert_encoder"]


def compile_and_model(build, onnx, opts, tmp, tag):
    om = os.path.join(tmp, tag + ".om")
    rep = os.path.join(tmp, tag + ".report.json")
    tim = os.path.join(tmp, tag + ".timing.json")
    subprocess.run([os.path.join(build, "bin", "npuc"), onnx, "-o", om,
                    "--no-cache", "--report-json", rep] + opts,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([os.path.join(build, "bin", "npu-om"), om,
                    "--timing-json", tim], check=True)
    with open(rep) as f:
        report = json.load(f)
    with open(tim) as f:
        timing = json.load(f)
    plan = report["variants"][0]["plan"]
    m = timing["variants"][0]["modeled"]
    return {
        "options": " ".join(opts),
        "streams": report["variants"][0]["streams"],
        "tasks": m["tasks"],
        "latency_us": m["latency_us"],
        "bytes_moved": m["bytes"],
        "bandwidth_util": m["bandwidth_util"],
        "cube_efficiency": m["cube_efficiency"],
        "cube_busy": m["cube_busy"],
        "vector_busy": m["vector_busy"],
        "overlap_us": m["cube_vector_overlap_cycles"] /
        m["params"]["clock_mhz"],
        "workspace": plan["workspace"],
        "workspace_no_reuse": plan["no_reuse"],
        "params": m["params"],
    }


def ratio(a, b):
    return round(b / a, 4) if a else None


def row_entry(name, before, after):
    if name == "reuse":
        # the same tasks: reuse changes where tensors live, not the work
        return {"workspace_before": before["workspace_no_reuse"],
                "workspace_after": after["workspace"],
                "workspace_ratio": ratio(before["workspace_no_reuse"],
                                         after["workspace"])}
    before = {k: v for k, v in before.items() if k != "params"}
    after = {k: v for k, v in after.items() if k != "params"}
    return {"before": before, "after": after,
            "latency_ratio": ratio(before["latency_us"],
                                   after["latency_us"]),
            "bytes_ratio": ratio(before["bytes_moved"], after["bytes_moved"]),
            "bandwidth_util_ratio": ratio(before["bandwidth_util"],
                                          after["bandwidth_util"]),
            "cube_efficiency_ratio": ratio(before["cube_efficiency"],
                                           after["cube_efficiency"]),
            "workspace_ratio": ratio(before["workspace"],
                                     after["workspace"])}


def markdown(results):
    out = ["# Efficiency on the timing model (after / before)", "",
           "| model | change | latency | bytes moved | bandwidth use | "
           "cube efficiency | workspace |",
           "|---|---|---|---|---|---|---|"]
    for model, rows in results["models"].items():
        for name, what, _, _ in ROWS:
            r = rows[name]

            def f(k):
                v = r.get(k)
                return "-" if v is None else "%.2fx" % v
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                model, what, f("latency_ratio"), f("bytes_ratio"),
                f("bandwidth_util_ratio"), f("cube_efficiency_ratio"),
                f("workspace_ratio")))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    build = os.environ.get("BUILD", "build")
    results = {"timing_params": None, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            d = export_models.export(model, os.path.join(build, "models"))
            onnx = os.path.join(d, "model.onnx")
            base = compile_and_model(build, onnx, [], tmp, model + "-base")
            results["timing_params"] = base["params"]
            rows = {}
            for name, _, without, with_ in ROWS:
                after = base if not with_ else compile_and_model(
                    build, onnx, with_, tmp, model + "-" + name + "-on")
                before = base if name == "reuse" else compile_and_model(
                    build, onnx, without, tmp, model + "-" + name + "-off")
                rows[name] = row_entry(name, before, after)
            results["models"][model] = rows
            print("%s: fusion %.2fx latency, 4 streams %.2fx latency, "
                  "NC1HWC0 %.2fx latency, reuse %.2fx workspace" % (
                      model, rows["fusion"]["latency_ratio"],
                      rows["streams"]["latency_ratio"],
                      rows["nc1hwc0"]["latency_ratio"],
                      rows["reuse"]["workspace_ratio"]), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
    md = os.path.splitext(args.json)[0] + ".md"
    with open(md, "w") as f:
        f.write(markdown(results))
    print("wrote %s and %s" % (args.json, md))


if __name__ == "__main__":
    main()
