#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP test: models in the storage types (double, bfloat16, int16, uint16,
uint32, uint64).

The device computes in f32, i32 and i64; its COPY reads and writes the
storage types (uapi 1.8), and npuc narrows a model to its compute types
(compiler/onnx/onnx_storage.c): inputs are cast in, outputs declared in a
storage type are cast out, a Cast to one rounds or wraps as ONNX says.
Each case is a small ONNX graph, compiled at -O0 and at the default level,
run on the in-process device and compared with a float64 numpy reference
(max|out - ref| / max|ref| <= 1e-5; integers exact), and npu-run must
write each output in the type the model declares.

Usage: storage_dtypes.py [-k REGEX] [--keep DIR]
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compiler_regress as cr  # noqa: E402

T = TensorProto
vi, init, model = cr.vi, cr.init, cr.model


def bf16_bits(x):
    """float32 -> bfloat16 bits, rounded to nearest even."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def case_double_model(rng):
    # a double model: computed in f32 (7 digits), double in and out
    x = rng.standard_normal((3, 4))
    w = rng.standard_normal((4, 2))
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]),
             helper.make_node("ReduceSum", ["y"], ["s"], keepdims=0),
             helper.make_node("Identity", ["x"], ["x_out"])]
    m = model(nodes, [vi("x", [3, 4], T.DOUBLE)],
              [vi("s", None, T.DOUBLE), vi("x_out", None, T.DOUBLE)],
              [init("w", w)])
    return m, {"x": x}, [(x @ w).sum(), x]


def case_int16_wraps(rng):
    # int16 sums wrap at the output; Max of uint16 in range
    a = np.array([30000, -5, 7, -32768], np.int16)
    b = np.array([10000, 3, -9, -1], np.int16)
    u = np.array([65535, 1, 40000, 0], np.uint16)
    v = np.array([2, 65534, 39999, 0], np.uint16)
    nodes = [helper.make_node("Add", ["a", "b"], ["s"]),
             helper.make_node("Max", ["u", "v"], ["mx"])]
    m = model(nodes, [vi("a", [4], T.INT16), vi("b", [4], T.INT16),
                      vi("u", [4], T.UINT16), vi("v", [4], T.UINT16)],
              [vi("s", None, T.INT16), vi("mx", None, T.UINT16)])
    return m, {"a": a, "b": b, "u": u, "v": v}, \
        [(a.astype(np.int64) + b).astype(np.int16),
         np.maximum(u, v)]


def case_cast_wraps_midgraph(rng):
    # Cast(int32 -> uint16) wraps before the Add reads it
    x = np.array([70000, -1, 65536, 12], np.int32)
    nodes = [helper.make_node("Cast", ["x"], ["c"], to=T.UINT16),
             helper.make_node("Add", ["c", "one"], ["y"]),
             helper.make_node("Cast", ["y"], ["z"], to=T.INT32)]
    m = model(nodes, [vi("x", [4], T.INT32)], [vi("z", None, T.INT32)],
              [init("one", np.array(1, np.uint16))])
    return m, {"x": x}, [x.astype(np.uint16).astype(np.int32) + 1]


def case_bf16_rounds_midgraph(rng):
    # float -> bfloat16 -> float rounds to nearest even in the middle
    x = rng.standard_normal(16).astype(np.float32)
    nodes = [helper.make_node("Cast", ["x"], ["h"], to=T.BFLOAT16),
             helper.make_node("Cast", ["h"], ["f"], to=T.FLOAT),
             helper.make_node("Mul", ["f", "two"], ["y"]),
             helper.make_node("Cast", ["y"], ["yb"], to=T.BFLOAT16)]
    m = model(nodes, [vi("x", [16])], [vi("y", None), vi("yb", None,
                                                           T.BFLOAT16)],
              [init("two", np.array(2, np.float32))])
    y = bf16_value(bf16_bits(x)).astype(np.float64) * 2
    return m, {"x": x}, [y, bf16_bits(y.astype(np.float32))]


def case_bf16_input(rng):
    bits = bf16_bits(rng.standard_normal(6).astype(np.float32))
    nodes = [helper.make_node("Cast", ["x"], ["f"], to=T.FLOAT),
             helper.make_node("Neg", ["f"], ["y"])]
    m = model(nodes, [vi("x", [6], T.BFLOAT16)], [vi("y", None)])
    return m, {"x": bits}, [-bf16_value(bits).astype(np.float64)]


def case_uint_shifts(rng):
    x32 = np.array([1, 0x80000000, 12345, 7], np.uint32)
    s32 = np.array([31, 1, 4, 40], np.uint32)
    x64 = np.array([1, 3, 0x123456789, 5], np.uint64)
    s64 = np.array([63, 62, 8, 64], np.uint64)
    nodes = [helper.make_node("BitShift", ["x32", "s32"], ["l32"],
                              direction="LEFT"),
             helper.make_node("BitShift", ["x32", "s32"], ["r32"],
                              direction="RIGHT"),
             helper.make_node("BitShift", ["x64", "s64"], ["l64"],
                              direction="LEFT")]
    m = model(nodes, [vi("x32", [4], T.UINT32), vi("s32", [4], T.UINT32),
                      vi("x64", [4], T.UINT64), vi("s64", [4], T.UINT64)],
              [vi("l32", None, T.UINT32), vi("r32", None, T.UINT32),
               vi("l64", None, T.UINT64)])

    def shl(x, s, bits):
        return np.array([(int(a) << int(b)) % (1 << bits) if b < bits
                         else 0 for a, b in zip(x, s)], x.dtype)

    r32 = np.array([int(a) >> int(b) if b < 32 else 0
                    for a, b in zip(x32, s32)], np.uint32)
    return m, {"x32": x32, "s32": s32, "x64": x64, "s64": s64}, \
        [shl(x32, s32, 32), r32, shl(x64, s64, 64)]


def case_uint32_mod_pow(rng):
    x = np.array([4000000000, 7, 100, 5], np.uint32)
    y = np.array([3, 2, 7, 9], np.uint32)
    f = np.array([1.5, 2.0, 0.5, 3.0], np.float32)
    nodes = [helper.make_node("Mod", ["x", "y"], ["md"]),
             helper.make_node("Pow", ["f", "y"], ["pw"])]
    m = model(nodes, [vi("x", [4], T.UINT32), vi("y", [4], T.UINT32),
                      vi("f", [4])],
              [vi("md", None, T.UINT32), vi("pw", None)])
    return m, {"x": x, "y": y, "f": f}, \
        [x % y, f.astype(np.float64) ** y]


if __name__ == "__main__":
    cr.main_with_cases(globals())
