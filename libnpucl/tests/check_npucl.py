#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks the collectives' outputs that npucl_test wrote against numpy.

    check_npucl.py DIR...

Each case directory holds meta ("kind dtype n op count root"), in_R.bin and
out_R.bin per rank. The reference reduces in rank order,
((x0 op x1) op x2) ..., in the case's dtype (numpy's float16 arithmetic
rounds each step as the device does), and must match bit for bit. BOOL
reduces as or (sum, max) and and (prod, min). Prints TAP.
"""
import os
import sys

import numpy as np

DT = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "u8": np.uint8,
      "i32": np.int32, "i64": np.int64, "bool": np.bool_}


def reduce(xs, op, dt):
    if dt == "bool":
        f = np.logical_or if op in ("sum", "max") else np.logical_and
    else:
        f = {"sum": np.add, "prod": np.multiply, "max": np.maximum,
             "min": np.minimum}[op]
    acc = xs[0].copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for x in xs[1:]:
            acc = f(acc, x).astype(xs[0].dtype)
    return acc


def expected(kind, op, dt, n, count, root, ins):
    if kind == "allreduce":
        r = reduce(ins, op, dt)
        return [r] * n
    if kind == "allgather":
        r = np.concatenate(ins)
        return [r] * n
    if kind == "reduce_scatter":
        return [reduce([x[q * count:(q + 1) * count] for x in ins], op, dt)
                for q in range(n)]
    if kind == "broadcast":
        return [ins[root]] * n
    if kind == "sendrecv":
        return [ins[(q + n - 1) % n] for q in range(n)]
    raise ValueError(kind)


def check(path):
    kind, dt, n, op, count, root = open(os.path.join(path, "meta")).read() \
        .split()
    n, count, root = int(n), int(count), int(root)
    t = DT[dt]
    ins = [np.fromfile(os.path.join(path, "in_%d.bin" % q), dtype=t)
           for q in range(n)]
    want = expected(kind, op, dt, n, count, root, ins)
    bad = []
    for q in range(n):
        got = np.fromfile(os.path.join(path, "out_%d.bin" % q), dtype=t)
        w = want[q]
        if got.shape != w.shape or got.tobytes() != w.tobytes():
            diff = np.nonzero(got.view(np.uint8) != w.view(np.uint8))[0] \
                if got.shape == w.shape else [-1]
            bad.append("rank %d: %d bytes differ (first at byte %d)" %
                       (q, len(diff), diff[0]))
    return bad


def main():
    cases = []
    for d in sys.argv[1:]:
        for c in sorted(os.listdir(d)):
            if os.path.exists(os.path.join(d, c, "meta")):
                cases.append(os.path.join(d, c))
    if not cases:
        print("1..0 # SKIP no cases")
        return 0
    fails = 0
    for i, c in enumerate(cases, 1):
        try:
            bad = check(c)
        except (OSError, ValueError) as e:
            bad = [str(e)]
        name = os.path.basename(c)
        if bad:
            fails += 1
            print("not ok %d - %s vs numpy: %s" % (i, name, "; ".join(bad)))
        else:
            print("ok %d - %s: numpy's bits" % (i, name))
    print("1..%d" % len(cases))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
