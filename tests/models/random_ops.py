#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: ONNX's random ops through npuc and the in-process device.

RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike and
Bernoulli compile into the device's RANDOM task (compiler/shape/
legalize_random.c, Documentation/ops.rst). Their values are checked as
distributions, 65,536 of them a case (moments, range, Bernoulli's
frequency per probability, p = 0 and p = 1), in the dtype the model
declares; a seeded model gives the same values in two processes, an
unseeded one different values; two unseeded nodes of one input are not
merged (CSE) and a Bernoulli of a constant p is not folded. Each model at
-O0 and at the default level. The refusals exit 1 with their message.

Usage: random_ops.py
"""

import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npu_e2e as e2e  # noqa: E402

F, F16, F64, I64 = (TensorProto.FLOAT, TensorProto.FLOAT16,
                    TensorProto.DOUBLE, TensorProto.INT64)
WORK = os.path.join(e2e.BUILD, "tests", "random_ops")
LEVELS = ["-O0", None]


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "random", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    return m


def vi(name, shape, dt=F):
    return helper.make_tensor_value_info(name, dt, shape)


def compile_run(tap, name, m, inputs, runs=1):
    """Compile @m at each level, run it @runs times (separate processes);
    returns {level: [outputs of run 0, of run 1, ...]} or None."""
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "in"))
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, v in inputs.items():
        np.save(os.path.join(d, "in", k + ".npy"), v)
    res = {}
    for lvl in LEVELS:
        om = os.path.join(d, "m%s.om" % (lvl or ""))
        argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o", om,
                "--no-cache"] + ([lvl] if lvl else [])
        rc, log = e2e.run(argv, timeout=120)
        if rc:
            tap.diag("$ " + e2e.cmdline(argv) + "\n" + log)
            return None
        res[lvl] = []
        for r in range(runs):
            od = os.path.join(d, "out%s.%d" % (lvl or "", r))
            argv = [e2e.tool("npu-run"), om, "--device", "sim",
                    "--input-dir", os.path.join(d, "in"), "-o", od]
            rc, log = e2e.run(argv, timeout=120)
            if rc:
                tap.diag("$ " + e2e.cmdline(argv) + "\n" + log)
                return None
            res[lvl].append([np.load(os.path.join(od, "output_%d.npy" % k))
                             for k in range(len(m.graph.output))])
    return res


def each_level(tap, res, what, check):
    for lvl in LEVELS:
        name = "%s%s" % (what, " " + lvl if lvl else "")
        if res is None:
            tap.ok(False, name + ": compiles and runs")
            continue
        good, why = check(res[lvl])
        if not good:
            tap.diag(why)
        tap.ok(good, "%s: %s" % (name, why))


def case_uniform(tap):
    n = helper.make_node("RandomUniform", [], ["y"], shape=[256, 256],
                         low=-2.0, high=3.0, seed=5.0)
    res = compile_run(tap, "uniform", model([n], [], [vi("y", [256, 256])]),
                      {}, runs=2)

    def check(runs):
        y = runs[0][0]
        ok = (y.dtype == np.float32 and y.min() >= -2 and y.max() < 3 and
              abs(y.mean() - 0.5) < 0.02 and abs(y.var() - 25 / 12) < 0.05
              and np.array_equal(y, runs[1][0]))
        return ok, ("RandomUniform [-2, 3) seed 5: f32, range %.4f..%.4f, "
                    "mean %.4f, var %.4f (2.0833), the same values in a "
                    "second process" % (y.min(), y.max(), y.mean(),
                                        y.var()))
    each_level(tap, res, "uniform", check)


def case_normal_double(tap):
    n = helper.make_node("RandomNormal", [], ["y"], shape=[256, 256],
                         mean=1.0, scale=2.0, dtype=F64)
    res = compile_run(tap, "normal_f64",
                      model([n], [], [vi("y", [256, 256], F64)]), {},
                      runs=2)

    def check(runs):
        y = runs[0][0]
        # unseeded: 5 sigma of the mean (0.0078) and of the std (0.0055)
        ok = (y.dtype == np.float64 and abs(y.mean() - 1) < 0.04 and
              abs(y.std() - 2) < 0.03 and np.isfinite(y).all() and
              not np.array_equal(y, runs[1][0]))
        return ok, ("RandomNormal mean 1 scale 2 as double, no seed: "
                    "mean %.4f, std %.4f, other values in a second "
                    "process" % (y.mean(), y.std()))
    each_level(tap, res, "normal_f64", check)


def case_like_f16_twice(tap):
    # two unseeded draws of one input: two nodes, two different draws
    a = helper.make_node("RandomUniformLike", ["x"], ["a"])
    b = helper.make_node("RandomUniformLike", ["x"], ["b"])
    m = model([a, b], [vi("x", [64, 1024], F16)],
              [vi("a", [64, 1024], F16), vi("b", [64, 1024], F16)])
    res = compile_run(tap, "like_f16", m,
                      {"x": np.zeros((64, 1024), np.float16)})

    def check(runs):
        a, b = runs[0]
        ok = (a.dtype == np.float16 and a.min() >= 0 and a.max() <= 1 and
              abs(float(a.mean()) - 0.5) < 0.02 and
              (a != b).mean() > 0.9)
        return ok, ("two RandomUniformLike of one f16 input: f16 in [0, 1], "
                    "mean %.4f, %.1f%% of the two draws differ (not merged)"
                    % (float(a.mean()), 100 * (a != b).mean()))
    each_level(tap, res, "like_f16", check)


def case_normal_like(tap):
    n = helper.make_node("RandomNormalLike", ["x"], ["y"], mean=-3.0,
                         scale=0.5, seed=1.0)
    res = compile_run(tap, "normal_like",
                      model([n], [vi("x", [4, 128, 128])],
                            [vi("y", [4, 128, 128])]),
                      {"x": np.zeros((4, 128, 128), np.float32)})

    def check(runs):
        y = runs[0][0]
        ok = (y.shape == (4, 128, 128) and abs(y.mean() + 3) < 0.01 and
              abs(y.std() - 0.5) < 0.01)
        return ok, "RandomNormalLike mean -3 scale 0.5: mean %.4f std %.4f" \
            % (y.mean(), y.std())
    each_level(tap, res, "normal_like", check)


def case_bernoulli(tap):
    p = np.repeat(np.arange(16, dtype=np.float32) / 15, 4096).reshape(16,
                                                                      4096)
    n = helper.make_node("Bernoulli", ["p"], ["y"], dtype=I64, seed=3.0)
    res = compile_run(tap, "bernoulli", model([n], [vi("p", [16, 4096])],
                                              [vi("y", [16, 4096], I64)]),
                      {"p": p})

    def check(runs):
        y = runs[0][0]
        freq = y.mean(axis=1)
        worst = float(np.abs(freq - np.arange(16) / 15).max())
        ok = (y.dtype == np.int64 and np.isin(y, (0, 1)).all() and
              (y[0] == 0).all() and (y[15] == 1).all() and worst < 0.025)
        return ok, ("Bernoulli to int64 over 16 probabilities: 0/1 only, "
                    "p 0 all 0, p 1 all 1, frequency within %.4f of p"
                    % worst)
    each_level(tap, res, "bernoulli", check)


def case_bernoulli_const_not_folded(tap):
    pc = helper.make_tensor("p", F, [8, 512], np.full(4096, 0.5, np.float32))
    n = helper.make_node("Bernoulli", ["p"], ["y"])
    res = compile_run(tap, "bernoulli_const",
                      model([n], [], [vi("y", [8, 512])], [pc]), {}, runs=2)

    def check(runs):
        y0, y1 = runs[0][0], runs[1][0]
        ok = abs(y0.mean() - 0.5) < 0.05 and (y0 != y1).mean() > 0.3
        return ok, ("Bernoulli of a constant p = 0.5 is drawn at run time "
                    "(not folded): mean %.3f, %.0f%% differ between two "
                    "processes" % (y0.mean(), 100 * (y0 != y1).mean()))
    each_level(tap, res, "bernoulli_const", check)


def refused(tap, name, m, want):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(m, os.path.join(d, "model.onnx"))
    argv = [e2e.tool("npuc"), os.path.join(d, "model.onnx"), "-o",
            os.path.join(d, "m.om"), "--no-cache"]
    rc, log = e2e.run(argv, timeout=120)
    good = rc == 1 and want in log
    if not good:
        tap.diag("$ " + e2e.cmdline(argv) + "\n" + log)
    tap.ok(good, "%s: refused (\"%s\")" % (name, want))


def case_refusals(tap):
    refused(tap, "uniform_no_shape",
            model([helper.make_node("RandomUniform", [], ["y"])], [],
                  [vi("y", None)]), "needs a shape attribute")
    refused(tap, "uniform_int64",
            model([helper.make_node("RandomUniform", [], ["y"], shape=[4],
                                    dtype=I64)], [], [vi("y", [4], I64)]),
            "dtype 7 is not supported")
    refused(tap, "normal_infinite_scale",
            model([helper.make_node("RandomNormal", [], ["y"], shape=[4],
                                    scale=float("inf"))], [],
                  [vi("y", [4])]), "must be finite")


CASES = [case_uniform, case_normal_double, case_like_f16_twice,
         case_normal_like, case_bernoulli, case_bernoulli_const_not_folded]


def main():
    missing = e2e.missing_tools("npuc", "npu-run")
    if missing:
        print("1..0 # SKIP %s not built yet" % " and ".join(missing))
        return 0
    tap = e2e.Tap(len(CASES) * len(LEVELS) + 3)
    for c in CASES:
        c(tap)
    case_refusals(tap)
    tap.exit()


if __name__ == "__main__":
    sys.exit(main())
