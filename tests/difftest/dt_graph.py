# SPDX-License-Identifier: MIT
"""The fuzzer's plain graph form, its JSON file form and its ONNX export.

A Graph holds graph inputs (name, dtype, shape) with their feed values,
initializers, nodes (op, input names, output names, python attributes) and
output names. A node's attribute may itself be a Graph (the body of If,
Loop, Scan): its inputs are the body's formal inputs (no feeds), out_dtypes
names its outputs' dtypes, and the names it reads without defining them
come from the scopes around it (reads() lists them with the node's
inputs). The JSON form is what a minimized regression case is stored
as (tests/difftest/regress/*.json): readable, and rebuilt into the same
ONNX model bit for bit.
"""

import base64
import json

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17

ONNX_DT = {
    "float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16,
    "float64": TensorProto.DOUBLE, "int64": TensorProto.INT64,
    "int32": TensorProto.INT32, "int8": TensorProto.INT8,
    "uint8": TensorProto.UINT8, "bool": TensorProto.BOOL,
    "int16": TensorProto.INT16, "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64,
}


class Node:
    __slots__ = ("op", "inputs", "outputs", "attrs")

    def __init__(self, op, inputs, outputs, attrs=None):
        self.op = op
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.attrs = dict(attrs or {})

    def copy(self):
        return Node(self.op, self.inputs, self.outputs, dict(self.attrs))


class Graph:
    def __init__(self):
        self.inputs = []        # (name, dtype, shape)
        self.feeds = {}         # name -> np.ndarray
        self.inits = {}         # name -> np.ndarray
        self.nodes = []
        self.outputs = []
        self.out_dtypes = {}    # a subgraph's: output name -> dtype

    def copy(self):
        g = Graph()
        g.inputs = [(n, d, tuple(s)) for n, d, s in self.inputs]
        g.feeds = dict(self.feeds)
        g.inits = dict(self.inits)
        g.nodes = [n.copy() for n in self.nodes]
        g.outputs = list(self.outputs)
        g.out_dtypes = dict(self.out_dtypes)
        return g

    def free_names(self):
        """The names this (sub)graph reads from the scopes around it."""
        known = {i for i, _, _ in self.inputs} | set(self.inits)
        free = []
        for n in self.nodes:
            for i in reads(n):
                if i and i not in known and i not in free:
                    free.append(i)
            known.update(o for o in n.outputs if o)
        free += [o for o in self.outputs if o not in known and o not in free]
        return free

    def producer(self, name):
        for n in self.nodes:
            if name in n.outputs:
                return n
        return None

    def consumers(self, name):
        return [n for n in self.nodes if name in reads(n)]

    def prune(self):
        """Drop nodes, inputs and initializers no output depends on."""
        need = set(self.outputs)
        keep = []
        for n in reversed(self.nodes):
            if any(o in need for o in n.outputs):
                keep.append(n)
                need.update(i for i in reads(n) if i)
        self.nodes = list(reversed(keep))
        for n in self.nodes:
            # unread optional outputs stay named (ONNX allows them)
            pass
        self.inputs = [i for i in self.inputs if i[0] in need]
        self.feeds = {k: v for k, v in self.feeds.items() if k in need}
        self.inits = {k: v for k, v in self.inits.items() if k in need}

    def ops(self):
        return [n.op for n in self.nodes]


def reads(n):
    """The names node n reads: its inputs, then what its subgraphs read
    from outside them."""
    out = list(n.inputs)
    for v in n.attrs.values():
        if isinstance(v, Graph):
            out += [i for i in v.free_names() if i not in out]
    return out


# ---------------------------------------------------------------- ONNX

def _attr_value(v, name="body"):
    if isinstance(v, np.ndarray):
        return numpy_helper.from_array(v)
    if isinstance(v, Graph):
        return _graph_proto(v, name)
    return v


def _node_protos(g, prefix=""):
    nodes = []
    for k, n in enumerate(g.nodes):
        attrs = {a: _attr_value(v, "%s%s_%d" % (prefix, a, k))
                 for a, v in sorted(n.attrs.items())}
        if n.op == "Cast":
            attrs["to"] = ONNX_DT[attrs["to"]]
        nodes.append(helper.make_node(n.op, n.inputs, n.outputs,
                                      name="%sn%d_%s" % (prefix, k, n.op),
                                      **attrs))
    return nodes


def _graph_proto(g, name):
    """A subgraph: formal inputs typed, outputs typed by out_dtypes."""
    ins = [helper.make_tensor_value_info(nm, ONNX_DT[dt], list(sh))
           for nm, dt, sh in g.inputs]
    outs = [helper.make_tensor_value_info(nm, ONNX_DT[g.out_dtypes[nm]],
                                          None) for nm in g.outputs]
    inits = [numpy_helper.from_array(v, k) for k, v in g.inits.items()]
    return helper.make_graph(_node_protos(g, name + "/"), name, ins, outs,
                             inits)


def to_onnx(g, out_dtypes, name="difftest"):
    """The ONNX model of g; out_dtypes: output name -> dtype name."""
    nodes = _node_protos(g)
    ins = [helper.make_tensor_value_info(nm, ONNX_DT[dt], list(sh))
           for nm, dt, sh in g.inputs]
    outs = [helper.make_tensor_value_info(nm, ONNX_DT[out_dtypes[nm]], None)
            for nm in g.outputs]
    inits = [numpy_helper.from_array(v, k) for k, v in g.inits.items()]
    graph = helper.make_graph(nodes, name, ins, outs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("",
                                                                    OPSET)],
                          producer_name="npu-difftest")
    m.ir_version = 8
    return m


def save_onnx(g, out_dtypes, path):
    onnx.save(to_onnx(g, out_dtypes), path)


# ---------------------------------------------------------------- JSON

def _arr_to_json(a):
    """Small arrays as a list of numbers (float32 -> float64 -> float32
    is exact), larger ones as base64 of the little-endian bytes."""
    a = np.array(a, order="C", copy=True)
    d = {"dtype": str(a.dtype), "shape": list(a.shape)}
    if a.size <= 256 and a.dtype != np.float16:
        d["values"] = a.reshape(-1).tolist()
    else:
        d["b64"] = base64.b64encode(a.tobytes()).decode("ascii")
    return d


def _arr_from_json(d):
    if "values" in d:
        a = np.array(d["values"], dtype=d["dtype"])
    else:
        a = np.frombuffer(base64.b64decode(d["b64"]), dtype=d["dtype"])
    return a.reshape(d["shape"]).copy()


def _attr_to_json(v):
    if isinstance(v, np.ndarray):
        return {"tensor": _arr_to_json(v)}
    if isinstance(v, Graph):
        d = to_json(v)
        d["out_dtypes"] = dict(v.out_dtypes)
        return {"graph": d}
    return v


def _attr_from_json(v):
    if isinstance(v, dict) and "tensor" in v:
        return _arr_from_json(v["tensor"])
    if isinstance(v, dict) and "graph" in v:
        g = from_json(v["graph"])
        g.out_dtypes = dict(v["graph"].get("out_dtypes", {}))
        return g
    return v


def to_json(g, meta=None):
    d = {
        "opset": OPSET,
        "inputs": [dict({"name": n, "dtype": dt, "shape": list(s)},
                        **({"value": _arr_to_json(g.feeds[n])}
                           if n in g.feeds else {}))
                   for n, dt, s in g.inputs],
        "initializers": {k: _arr_to_json(v) for k, v in g.inits.items()},
        "nodes": [{"op": n.op, "inputs": n.inputs, "outputs": n.outputs,
                   "attrs": {k: _attr_to_json(v)
                             for k, v in sorted(n.attrs.items())}}
                  for n in g.nodes],
        "outputs": g.outputs,
    }
    if meta:
        d["meta"] = meta
    return d


def from_json(d):
    g = Graph()
    for i in d["inputs"]:
        g.inputs.append((i["name"], i["dtype"], tuple(i["shape"])))
        if "value" in i:
            g.feeds[i["name"]] = _arr_from_json(i["value"])
    g.inits = {k: _arr_from_json(v) for k, v in d["initializers"].items()}
    g.nodes = [Node(n["op"], n["inputs"], n["outputs"],
                    {k: _attr_from_json(v) for k, v in n["attrs"].items()})
               for n in d["nodes"]]
    g.outputs = list(d["outputs"])
    return g


def save_json(g, path, meta=None):
    with open(path, "w") as f:
        json.dump(to_json(g, meta), f, indent=1, sort_keys=True)
        f.write("\n")


def load_json(path):
    with open(path) as f:
        d = json.load(f)
    return from_json(d), d.get("meta", {})
