#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the ONNX backend node tests and convert them for npu-run.

Runs the generator of Debian's python3-onnx (the code behind
`backend-test-tools generate-data`) into OUT/onnx/, then writes for every
node test OUT/tests/<test>/:

  model.onnx                 the test's model (copied)
  inputs/input_K.npy         data set 0's inputs, converted from .pb
  expected/output_K.npy      data set 0's expected outputs

and OUT/index.json: one record per test with the op it tests, every op type
its graph uses, its input/output dtypes and why it cannot run at all (a
non-tensor input such as a sequence), if so.

python3-onnx 1.12 on Debian 12 meets numpy 1.24, which removed the np.float
family of aliases that a few test-case modules still use; they are restored
here (as the builtins they always were) before the modules are imported, so
`backend-test-tools generate-data` itself cannot be run unpatched.

The result is cached: regenerated only when this script or onnx changes.

Usage: gen_node_tests.py [--out DIR] [--force]
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import sys


def restore_numpy_aliases():
    import numpy as np
    for name, typ in (("float", float), ("int", int), ("bool", bool),
                      ("object", object), ("complex", complex),
                      ("str", str)):
        if name not in np.__dict__:
            setattr(np, name, typ)


def stamp():
    import onnx
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read())
    h.update(onnx.__version__.encode())
    return h.hexdigest()


def dtype_name(type_proto):
    import onnx
    which = type_proto.WhichOneof("value")
    if which != "tensor_type":
        return which or "none"
    return onnx.TensorProto.DataType.Name(type_proto.tensor_type.elem_type) \
        .lower()


def base_test_name(name):
    """test_softmax_axis_0_expanded -> test_softmax_axis_0."""
    return re.sub(r"_expanded(_ver\d+)?$", "", name)


def convert(src, dst):
    """Convert one generated node test; return its index record."""
    import onnx
    from onnx import numpy_helper
    import numpy as np
    model = onnx.load(os.path.join(src, "model.onnx"))
    g = model.graph
    rec = {
        "name": os.path.basename(src),
        "ops": sorted({n.op_type for n in g.node}),
        "node_count": len(g.node),
        "inputs": [dtype_name(i.type) for i in g.input],
        "outputs": [dtype_name(o.type) for o in g.output],
        "opset": max((o.version for o in model.opset_import
                      if o.domain in ("", "ai.onnx")), default=0),
        "domains": sorted({n.domain for n in g.node if n.domain
                           not in ("", "ai.onnx")}),
        "not_runnable": None,
    }
    os.makedirs(os.path.join(dst, "inputs"))
    os.makedirs(os.path.join(dst, "expected"))
    shutil.copy(os.path.join(src, "model.onnx"),
                os.path.join(dst, "model.onnx"))
    ds = os.path.join(src, "test_data_set_0")
    kinds = rec["inputs"] + rec["outputs"]
    bad = [k for k in kinds if k in ("sequence_type", "optional_type",
                                     "map_type", "sparse_tensor_type",
                                     "none", "string", "undefined")]
    if bad:
        rec["not_runnable"] = "input/output of type %s" % bad[0]
        return rec
    for sub, prefix in (("inputs", "input"), ("expected", "output")):
        k = 0
        while os.path.exists(os.path.join(ds, "%s_%d.pb" % (prefix, k))):
            t = onnx.TensorProto()
            with open(os.path.join(ds, "%s_%d.pb" % (prefix, k)), "rb") as f:
                t.ParseFromString(f.read())
            arr = numpy_helper.to_array(t)
            np.save(os.path.join(dst, sub, "%s_%d.npy" % (prefix, k)), arr)
            k += 1
    bf16_erratum(rec, dst)
    if set(rec["ops"]) & RANDOM_OPS:
        rec["random"] = RANDOM_CHECK
    return rec


# Generators: ONNX says of its own data for them "the generator operator
# is non-deterministic and may not produce the same values in different
# implementations even if a seed is specified" (bernoulli.py): the values
# are one draw of numpy's generator, for information.
RANDOM_OPS = {"Bernoulli", "RandomUniform", "RandomUniformLike",
              "RandomNormal", "RandomNormalLike"}
RANDOM_CHECK = ("a random generator: ONNX's data is one draw of numpy's "
                "generator, for information; checked are every output's "
                "shape and dtype, and that a Bernoulli's values are 0 or 1 "
                "(1 where p >= 1, 0 where p <= 0)")


def bf16_rne(x):
    """float32 -> bfloat16 bits, rounded to nearest even (NaN stays a
    NaN: its top half with the quiet bit; overflow rounds to infinity)."""
    import numpy as np
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    r[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return r


BF16_ERRATUM = ("ONNX 1.12's data truncates float to bfloat16; the rounding "
                "of this opset's Cast is unspecified and ONNX now specifies "
                "round to nearest even (onnx/onnx#3876, #8293), as npuc, "
                "ONNX Runtime and torch do: compared with the input rounded "
                "to nearest even, after checking that the data is the input "
                "truncated")


def bf16_erratum(rec, dst):
    """A float -> bfloat16 Cast/CastLike test whose expected output is
    exactly its input truncated gets expected_erratum/ with the input
    rounded to nearest even, and rec["erratum"] saying so. Nothing else
    qualifies: a test whose data is not the truncation keeps its data."""
    import numpy as np
    if not set(rec["ops"]) <= {"Cast", "CastLike"} or \
            rec["outputs"] != ["bfloat16"] or rec["inputs"][:1] != ["float"]:
        return
    x = np.load(os.path.join(dst, "inputs", "input_0.npy"))
    y = np.load(os.path.join(dst, "expected", "output_0.npy"))
    if y.dtype != np.uint16 or x.shape != y.shape:
        return
    trunc = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    rne = bf16_rne(x)
    if not np.array_equal(y, trunc) or np.array_equal(y, rne):
        return
    os.makedirs(os.path.join(dst, "expected_erratum"))
    np.save(os.path.join(dst, "expected_erratum", "output_0.npy"), rne)
    rec["erratum"] = BF16_ERRATUM


def generate(out, force=False):
    """Generate (or reuse) the converted node tests under out/; several
    processes may ask at once, one generates while the others wait."""
    import fcntl
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _generate(out, force)


def _generate(out, force):
    index = os.path.join(out, "index.json")
    st = stamp()
    if not force and os.path.exists(index):
        with open(index) as f:
            if json.load(f).get("stamp") == st:
                return index
    restore_numpy_aliases()
    import warnings
    warnings.filterwarnings("ignore")
    from onnx.backend.test import cmd_tools
    for d in ("onnx", "tests"):
        shutil.rmtree(os.path.join(out, d), ignore_errors=True)
    cmd_tools.generate_data(argparse.Namespace(
        output=os.path.join(out, "onnx"), op_type=None))
    node_dir = os.path.join(out, "onnx", "node")
    recs = {}
    for name in sorted(os.listdir(node_dir)):
        recs[name] = convert(os.path.join(node_dir, name),
                             os.path.join(out, "tests", name))
    # An expanded test (a function op written out as its body) counts for
    # the op it expands; a plain node test has exactly one node.
    for name, rec in recs.items():
        base = recs.get(base_test_name(name))
        if name != base_test_name(name) and base and \
                base["node_count"] == 1:
            rec["op"] = base["ops"][0]
            rec["expanded"] = True
        elif rec["node_count"] == 1:
            rec["op"] = rec["ops"][0]
            rec["expanded"] = False
        else:
            rec["op"] = "+".join(rec["ops"])
            rec["expanded"] = name != base_test_name(name)
    import onnx
    with open(index + ".tmp", "w") as f:
        json.dump({"stamp": st, "onnx": onnx.__version__,
                   "tests": list(recs.values())}, f, indent=0)
    os.replace(index + ".tmp", index)
    return index


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="build/conformance",
                   help="output directory (default: %(default)s)")
    p.add_argument("--force", action="store_true")
    a = p.parse_args()
    print(generate(a.out, a.force))
    return 0


if __name__ == "__main__":
    sys.exit(main())
