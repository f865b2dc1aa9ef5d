# SPDX-License-Identifier: MIT
"""Delta debugging of a failing graph down to a minimal one.

shrink(g, sig) keeps applying reductions while the graph still fails with
the same signature (dt_run.Failure.sig(), e.g. "wrong:O0-vs-O2" or
"error:npuc -O0: ...") and the float64 reference still evaluates without
fragility:

- keep one output only (or fewer outputs);
- cut a node: its output becomes a new graph input holding the value the
  float64 reference computed there (so everything upstream dies), or is
  bypassed by one of its inputs of the same dtype and shape;
- shrink shapes: slice every input and float initializer that has a given
  extent at a given (right-aligned) axis down to 1 or to half;
- drop attributes (back to the ONNX default) and constant inputs that are
  optional.

Only the stages of the compiler/device that the signature needs are rerun
per candidate (dt_run.stages_for()).
"""

import os
import time

import numpy as np

import dt_graph
import dt_ref
import dt_run


class Shrinker:
    def __init__(self, sig, work, ort=None, budget_s=60, max_trials=400):
        self.sig = sig
        self.cls, _, self.check = sig.partition(":")
        self.work = work
        self.ort = ort
        self.stages = dt_run.stages_for(self.check)
        self.deadline = time.time() + budget_s
        self.trials = 0
        self.max_trials = max_trials

    def out_of_time(self):
        return time.time() > self.deadline or self.trials >= self.max_trials

    def fails(self, g):
        """Does g still fail with the signature?"""
        if not g.nodes or not g.outputs:
            return False
        try:
            with np.errstate(all="ignore"):
                vals, dts, fragile = dt_ref.evaluate(g, g.feeds)
        except Exception:
            return False
        if fragile:
            return False
        # every tensor non-empty, as generated (an empty window is no
        # valid pooling)
        if any(np.asarray(v).size == 0 for v in vals.values()):
            return False
        for o in g.outputs:
            if o not in vals:
                return False
            v = vals[o]
            if not v.size:
                return False
            if dts[o] == "float32" and (not np.isfinite(v).all() or
                                        np.abs(v).max() > 1e4):
                return False
        self.trials += 1
        try:
            out = dt_run.run_case(g, self.work, ort=self.ort,
                                  stages=self.stages)
        except Exception:
            return False
        return self.sig in out.sigs()

    # ------------------------------------------------------------ steps

    def try_outputs(self, g):
        if len(g.outputs) == 1:
            return None
        for o in g.outputs:
            h = g.copy()
            h.outputs = [o]
            if self.fails(h):
                return h
        return None

    def try_cut(self, g):
        with np.errstate(all="ignore"):
            vals, dts, _ = dt_ref.evaluate(g, g.feeds)
        # latest nodes first: cutting near the outputs removes the most
        for idx in range(len(g.nodes) - 1, -1, -1):
            if self.out_of_time():
                return None
            n = g.nodes[idx]
            for o in n.outputs:
                if not o or o in g.outputs and len(g.nodes) == 1:
                    continue
                if o not in g.outputs and not g.consumers(o):
                    continue
                # bypass by an input of the same dtype and shape
                for i in n.inputs:
                    if i and dts.get(i) == dts.get(o) and \
                            vals[i].shape == vals[o].shape:
                        h = _replace_uses(g, o, i)
                        if h and self.fails(h):
                            return h
                # a new graph input with the reference value
                if o in g.outputs or dts[o] not in ("float32", "bool",
                                                    "int64", "int32"):
                    continue
                h = g.copy()
                name = "cut_" + o
                v = vals[o]
                arr = v.astype(np.float32) if dts[o] == "float32" else \
                    v.astype(dts[o])
                h.inputs.append((name, dts[o], tuple(arr.shape)))
                h.feeds[name] = arr
                h = _replace_uses(h, o, name)
                if h and self.fails(h):
                    return h
        return None

    def try_prune(self, g):
        """Drop dead code: all of it, else one dead node at a time (dead
        nodes matter at -O0, where no pass removes them)."""
        h = g.copy()
        h.prune()
        if len(h.nodes) == len(g.nodes) and len(h.inputs) == len(g.inputs) \
                and len(h.inits) == len(g.inits):
            return None
        if self.fails(h):
            return h
        live = {o for n in h.nodes for o in n.outputs}
        for idx, n in enumerate(g.nodes):
            if self.out_of_time():
                return None
            if any(o in live for o in n.outputs):
                continue
            h2 = g.copy()
            del h2.nodes[idx]
            _drop_unused(h2)
            if self.fails(h2):
                return h2
        return None

    def try_shapes(self, g):
        tensors = [(n, tuple(s)) for n, dt, s in g.inputs] + \
            [(k, v.shape) for k, v in g.inits.items()
             if v.dtype.kind == "f" and v.ndim]
        extents = set()
        for _, s in tensors:
            r = len(s)
            for ax, d in enumerate(s):
                if d > 1:
                    extents.add((r - ax, d))       # right-aligned axis
        for ra, d in sorted(extents, key=lambda e: -e[1]):
            for m in sorted({1, d // 2}):
                if m < 1 or m >= d or self.out_of_time():
                    continue
                h = g.copy()
                changed = False
                for i, (n, dt, s) in enumerate(h.inputs):
                    if len(s) >= ra and s[len(s) - ra] == d:
                        a = h.feeds[n]
                        h.feeds[n] = np.take(a, range(m), axis=len(s) - ra)
                        h.inputs[i] = (n, dt, tuple(h.feeds[n].shape))
                        changed = True
                for k, v in list(h.inits.items()):
                    if v.dtype.kind == "f" and v.ndim >= ra and \
                            v.shape[v.ndim - ra] == d:
                        h.inits[k] = np.take(v, range(m), axis=v.ndim - ra)
                        changed = True
                if changed and self.fails(h):
                    return h
        return None

    def try_attrs(self, g):
        for idx, n in enumerate(g.nodes):
            for a in sorted(n.attrs):
                if self.out_of_time():
                    return None
                if n.op == "Cast" and a == "to":
                    continue
                h = g.copy()
                del h.nodes[idx].attrs[a]
                if self.fails(h):
                    return h
        return None

    def try_values(self, g):
        """Simpler feed values: ones, or a ramp."""
        for n, dt, s in g.inputs:
            if dt != "float32" or self.out_of_time():
                continue
            a = g.feeds[n]
            for simple in (np.ones_like(a),
                           np.round(a * 4) / 4):
                if np.array_equal(simple, a):
                    continue
                h = g.copy()
                h.feeds[n] = simple.astype(np.float32)
                if self.fails(h):
                    return h
        return None

    def shrink(self, g):
        g = g.copy()
        steps = (self.try_prune, self.try_outputs, self.try_cut,
                 self.try_shapes,
                 self.try_attrs, self.try_values)
        progress = True
        while progress and not self.out_of_time():
            progress = False
            for step in steps:
                h = step(g)
                if h is not None:
                    _drop_unused(h)
                    g = h
                    progress = True
                    break
        return g


def _drop_unused(g):
    """Drop graph inputs and initializers that no node reads."""
    read = {i for n in g.nodes for i in dt_graph.reads(n)} | set(g.outputs)
    g.inputs = [i for i in g.inputs if i[0] in read]
    g.feeds = {k: v for k, v in g.feeds.items() if k in read}
    g.inits = {k: v for k, v in g.inits.items() if k in read}


def _replace_uses(g, old, new):
    h = g.copy()
    for n in h.nodes:
        n.inputs = [new if i == old else i for i in n.inputs]
    h.outputs = [new if o == old else o for o in h.outputs]
    if set(h.outputs) & {i for i, _, _ in h.inputs}:
        return None
    return h


def shrink(g, sig, work, ort=None, budget_s=60, max_trials=400):
    """A minimal graph that still fails with sig, and the trials used."""
    s = Shrinker(sig, os.path.join(work, "shrink"), ort, budget_s,
                 max_trials)
    m = s.shrink(g)
    return m, s.trials
