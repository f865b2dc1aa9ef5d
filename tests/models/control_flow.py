#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: ONNX control flow (If, Loop, Scan) compiled into the graph.

npuc inlines the bodies (compiler/shape/legalize_control.c): an If on a
constant keeps its branch, an If on data runs both and selects with Where,
a Loop with a trip count known at compile time is unrolled, a Scan is
unrolled over its static length. Each case is a small ONNX graph built
with onnx.helper, compiled at -O0 and at the default level, run on the
in-process device and compared with a float64 numpy reference computed
here; the refusals (a while loop, branches of different shapes on a
run-time condition, a trip count beyond the unrolling bound, a trip count
only the data knows) must exit 1 with their message. torch's scripted
exports of an If on data and of a for loop around an If are in
torch_ops.py.

Usage: control_flow.py [-k REGEX] [--keep DIR]
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compiler_regress as cr  # noqa: E402

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
vi, init, model = cr.vi, cr.init, cr.model


def const(name, arr):
    return helper.make_node("Constant", [], [name],
                            value=init(name + "_v", arr))


def branch(name, nodes, out, shape=None, dt=F):
    return helper.make_graph(nodes, name, [], [vi(out, shape, dt)])


def case_if_on_data(rng):
    # both branches read outer values (one computed outside, used only
    # there: the captures keep it alive); cond from the data
    then_b = branch("then", [helper.make_node("Mul", ["x", "x2"], ["t"])], "t")
    else_b = branch("else", [helper.make_node("Sub", ["x", "y"], ["e"])], "e")
    nodes = [helper.make_node("Add", ["x", "x"], ["x2"]),
             helper.make_node("ReduceSum", ["y"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["out"], then_branch=then_b,
                              else_branch=else_b)]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    y -= y.sum() / y.size + 0.1     # sum < 0: the else branch
    m = model(nodes, [vi("x", [2, 3]), vi("y", [2, 3])], [vi("out", None)],
              [init("zero", np.array(0, np.float32))])
    return m, {"x": x, "y": y}, [x.astype(np.float64) - y]


def case_if_constant_shapes(rng):
    # a constant condition keeps one branch: the other may differ in shape
    then_b = branch("then", [helper.make_node("Relu", ["x"], ["t"])], "t")
    else_b = branch("else", [helper.make_node(
        "ReduceSum", ["x"], ["e"], keepdims=0)], "e")
    nodes = [helper.make_node("If", ["c"], ["out"], then_branch=then_b,
                              else_branch=else_b)]
    x = rng.standard_normal((3, 4)).astype(np.float32)
    m = model(nodes, [vi("x", [3, 4])], [vi("out", None)],
              [init("c", np.array(False))])
    return m, {"x": x}, [np.array(x.astype(np.float64).sum())]


def loop_body(extra=()):
    # y <- y * 0.5 + x[i]; scan outputs y and i as float
    nodes = [helper.make_node("Gather", ["x", "i"], ["xi"], axis=0),
             helper.make_node("Mul", ["y_in", "half"], ["yh"]),
             helper.make_node("Add", ["yh", "xi"], ["y_out"]),
             helper.make_node("Identity", ["y_out"], ["y_scan"]),
             helper.make_node("Cast", ["i"], ["fi"], to=F),
             helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    nodes += list(extra)
    return helper.make_graph(
        nodes, "body", [vi("i", [], I64), vi("cond_in", [], B),
                        vi("y_in", [4])],
        [vi("cond_out", [], B), vi("y_out", [4]), vi("y_scan", [4]),
         vi("fi", [])],
        [init("half", np.array(0.5, np.float32))])


def case_loop_unrolled(rng):
    # trip count folded from the input's shape (Shape -> Gather), a
    # carried value, two scan outputs stacked along a new axis 0
    nodes = [helper.make_node("Shape", ["x"], ["shp"]),
             helper.make_node("Gather", ["shp", "zero"], ["n"], axis=0),
             helper.make_node("Loop", ["n", "true", "y0"],
                              ["y", "ys", "is"], body=loop_body())]
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y0 = rng.standard_normal(4).astype(np.float32)
    ys, y = [], y0.astype(np.float64)
    for i in range(5):
        y = y * 0.5 + x[i]
        ys.append(y)
    m = model(nodes, [vi("x", [5, 4]), vi("y0", [4])],
              [vi("y", None), vi("ys", None), vi("is", None)],
              [init("zero", np.array(0, np.int64)),
               init("true", np.array(True))])
    return m, {"x": x, "y0": y0}, [y, np.stack(ys), np.arange(5.0)]


def case_while_counter(rng):
    # a while loop (the body computes its condition from a counter it
    # carries): peeled step by step, the condition folds each time
    body = helper.make_graph(
        [helper.make_node("Add", ["k_in", "one"], ["k_out"]),
         helper.make_node("Less", ["k_out", "five"], ["c_out"]),
         helper.make_node("Mul", ["y_in", "x"], ["y_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F)],
        "b", [vi("i", [], I64), vi("c", [], B), vi("k_in", [], I64),
              vi("y_in", [3])],
        [vi("c_out", [], B), vi("k_out", [], I64), vi("y_out", [3]),
         vi("fi", [])],
        [init("one", np.array(1, np.int64)),
         init("five", np.array(5, np.int64))])
    nodes = [helper.make_node("Loop", ["", "true", "k0", "y0"],
                              ["k", "y", "is"], body=body)]
    x = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    y0 = rng.standard_normal(3).astype(np.float32)
    m = model(nodes, [vi("x", [3]), vi("y0", [3])],
              [vi("k", None, I64), vi("y", None), vi("is", None)],
              [init("true", np.array(True)),
               init("k0", np.array(0, np.int64))])
    y = y0.astype(np.float64) * x.astype(np.float64) ** 5
    return m, {"x": x, "y0": y0}, [np.array(5), y, np.arange(5.0)]


def case_loop_zero_trips(rng):
    # a false initial condition: the carried value passes through
    nodes = [helper.make_node("Loop", ["n", "false", "y0"], ["y"],
                              body=helper.make_graph(
                                  [helper.make_node("Neg", ["y_in"], ["y_o"]),
                                   helper.make_node("Identity", ["c"],
                                                    ["c_o"])],
                                  "b", [vi("i", [], I64), vi("c", [], B),
                                        vi("y_in", [4])],
                                  [vi("c_o", [], B), vi("y_o", [4])]))]
    y0 = rng.standard_normal(4).astype(np.float32)
    m = model(nodes, [vi("y0", [4])], [vi("y", None)],
              [init("n", np.array(3, np.int64)),
               init("false", np.array(False))])
    return m, {"y0": y0}, [y0.astype(np.float64)]


def case_scan_reverse(rng):
    # opset 11: two states, two scan inputs on different axes, one read
    # backwards; scan outputs on axis 1 and one stacked in reverse
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "a"], ["s_out"]),
         helper.make_node("Mul", ["p_in", "b"], ["p_out"]),
         helper.make_node("Mul", ["s_out", "w"], ["o1"]),
         helper.make_node("Sub", ["p_out", "a"], ["o2"])],
        "sb", [vi("s_in", [3]), vi("p_in", [3]), vi("a", [3]), vi("b", [3])],
        [vi("s_out", [3]), vi("p_out", [3]), vi("o1", [3]), vi("o2", [3])])
    nodes = [helper.make_node("Scan", ["s0", "p0", "xa", "xb"],
                              ["s", "p", "y1", "y2"], body=body,
                              num_scan_inputs=2, scan_input_axes=[0, 1],
                              scan_input_directions=[0, 1],
                              scan_output_axes=[1, -1],
                              scan_output_directions=[0, 1])]
    s0 = rng.standard_normal(3).astype(np.float32)
    p0 = rng.standard_normal(3).astype(np.float32)
    xa = rng.standard_normal((4, 3)).astype(np.float32)
    xb = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
    w = rng.standard_normal(3).astype(np.float32)
    s, p, o1, o2 = s0.astype(np.float64), p0.astype(np.float64), [], []
    for t in range(4):
        a, b = xa[t], xb[:, 3 - t]
        s, p = s + a, p * b
        o1.append(s * w)
        o2.append(p - a)
    m = model(nodes, [vi("s0", [3]), vi("p0", [3]), vi("xa", [4, 3]),
                      vi("xb", [3, 4])],
              [vi("s", None), vi("p", None), vi("y1", None), vi("y2", None)],
              [init("w", w)], opset=11)
    return m, {"s0": s0, "p0": p0, "xa": xa, "xb": xb}, \
        [s, p, np.stack(o1, 1), np.stack(o2[::-1], -1)]


def case_nested_loop_in_if(rng):
    # a Loop inside the then branch of an If on data, reading x from two
    # scopes up
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "x"], ["acc_o"]),
         helper.make_node("Identity", ["c"], ["c_o"])],
        "lb", [vi("i", [], I64), vi("c", [], B), vi("acc", [2])],
        [vi("c_o", [], B), vi("acc_o", [2])])
    then_b = branch("then", [helper.make_node(
        "Loop", ["three", "", "x"], ["t"], body=body)], "t")
    else_b = branch("else", [helper.make_node("Neg", ["x"], ["e"])], "e")
    nodes = [helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
             helper.make_node("Greater", ["mx", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["out"], then_branch=then_b,
                              else_branch=else_b)]
    x = np.abs(rng.standard_normal(2)).astype(np.float32)
    m = model(nodes, [vi("x", [2])], [vi("out", None)],
              [init("zero", np.array(0, np.float32)),
               init("three", np.array(3, np.int64))])
    return m, {"x": x}, [x.astype(np.float64) * 4]


def case_if_shapes_refused(rng):
    then_b = branch("then", [helper.make_node("Relu", ["x"], ["t"])], "t")
    else_b = branch("else", [helper.make_node(
        "ReduceSum", ["x"], ["e"], keepdims=1)], "e")
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["out"], then_branch=then_b,
                              else_branch=else_b)]
    m = model(nodes, [vi("x", [3, 4])], [vi("out", None)],
              [init("zero", np.array(0, np.float32))])
    return m, {}, "give an output different shapes or types are not supported"


def case_loop_while_refused(rng):
    body = helper.make_graph(
        [helper.make_node("Add", ["y_in", "one"], ["y_out"]),
         helper.make_node("Less", ["y_out", "ten"], ["c_o"])],
        "b", [vi("i", [], I64), vi("c", [], B), vi("y_in", [])],
        [vi("c_o", [], B), vi("y_out", [])])
    nodes = [helper.make_node("Loop", ["n", "true", "y0"], ["y"], body=body)]
    m = model(nodes, [vi("y0", [])], [vi("y", None)],
              [init("n", np.array(100, np.int64)),
               init("true", np.array(True)),
               init("one", np.array(1, np.float32)),
               init("ten", np.array(10, np.float32))])
    return m, {}, "a while loop whose end the data decides"


def case_loop_huge_refused(rng):
    nodes = [helper.make_node("Loop", ["n", "", "y0"], ["y", "ys", "is"],
                              body=loop_body())]
    m = model(nodes, [vi("x", [5, 4]), vi("y0", [4])],
              [vi("y", None), vi("ys", None), vi("is", None)],
              [init("n", np.array(1 << 40, np.int64))])
    return m, {}, "nodes npuc unrolls: not supported"


def case_nested_loops_budget_refused(rng):
    # 600 outer steps of a 3000-step inner loop: each unroll is in
    # bounds, together they would pass the graph's unrolling budget
    def body(nodes, name):
        return helper.make_graph(
            nodes + [helper.make_node("Identity", ["c"], ["co"])], name,
            [vi("i", [], I64), vi("c", [], B), vi("y", [1])],
            [vi("co", [], B), vi("y2", [1])])
    inner = body([helper.make_node("Add", ["y", "one"], ["y2"])], "inner")
    outer = body([helper.make_node("Loop", ["m3000", "", "y"], ["y2"],
                                   body=inner)], "outer")
    nodes = [helper.make_node("Loop", ["m600", "", "x"], ["y"], body=outer)]
    m = model(nodes, [vi("x", [1])], [vi("y", None)],
              [init("m600", np.array(600, np.int64)),
               init("m3000", np.array(3000, np.int64)),
               init("one", np.array([1], np.float32))])
    return m, {}, "unroll the graph's loops past 65536 nodes in all"


def case_while_too_long_refused(rng):
    # a 3000-step while loop: one shape-inference rewrite per step
    body = helper.make_graph(
        [helper.make_node("Add", ["k_in", "one"], ["k_out"]),
         helper.make_node("Less", ["k_out", "lim"], ["c_out"]),
         helper.make_node("Add", ["y_in", "x"], ["y_out"])],
        "b", [vi("i", [], I64), vi("c", [], B), vi("k_in", [], I64),
              vi("y_in", [3])],
        [vi("c_out", [], B), vi("k_out", [], I64), vi("y_out", [3])],
        [init("one", np.array(1, np.int64)),
         init("lim", np.array(3000, np.int64))])
    nodes = [helper.make_node("Loop", ["", "", "k0", "y0"], ["k", "y"],
                              body=body)]
    m = model(nodes, [vi("x", [3]), vi("y0", [3])], [vi("y", None)],
              [init("k0", np.array(0, np.int64))])
    return m, {}, "more steps are not supported"


def case_loop_trip_from_data_refused(rng):
    nodes = [helper.make_node("Loop", ["n", "", "y0"], ["y", "ys", "is"],
                              body=loop_body())]
    m = model(nodes, [vi("n", [], I64), vi("x", [5, 4]), vi("y0", [4])],
              [vi("y", None), vi("ys", None), vi("is", None)])
    return m, {}, "must be known at compile time"


if __name__ == "__main__":
    cr.main_with_cases(globals())
