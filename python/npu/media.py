# SPDX-License-Identifier: MIT
"""Dynamic AIPP from Python: the bytes of one execution's parameters.

A model compiled with "aipp_mode : dynamic" (compile_onnx(...,
insert_op_conf=...)) has an extra uint8 input "<image input>_aipp";
aipp_params() makes it (libnpurt's npurt_aipp_params_pack).
Documentation/media.rst.
"""

import ctypes

import numpy as np

from . import _lib

AIPP_PARAMS_SIZE = 76


def aipp_params(mean=(0, 0, 0), min=(0.0, 0.0, 0.0),  # noqa: A002
                var_reci=(1.0, 1.0, 1.0), csc=False, matrix=None,
                input_bias=(0, 0, 0), output_bias=(0, 0, 0),
                rbuv_swap=False, padding_value=0.0):
    """uint8 array [76]: y = (x - mean - min) * var_reci per channel, after
    an optional Q8 colour conversion (matrix: 9 ints, row-major)."""
    p = _lib.AippParams()
    p.csc = 1 if csc else 0
    p.rbuv_swap = 1 if rbuv_swap else 0
    for i, v in enumerate(matrix or ()):
        p.matrix[i] = int(v)
    for i in range(3):
        p.input_bias[i] = int(input_bias[i])
        p.output_bias[i] = int(output_bias[i])
    for i, v in enumerate(mean):
        p.mean[i] = int(v)
    for i, v in enumerate(min):
        p.min[i] = float(v)
    for i, v in enumerate(var_reci):
        p.var_reci[i] = float(v)
    p.padding_value = float(padding_value)
    out = np.zeros(AIPP_PARAMS_SIZE, np.uint8)
    _lib.check(_lib.rt.npurt_aipp_params_pack(
        ctypes.byref(p), out.ctypes.data, out.nbytes),
        "npurt_aipp_params_pack")
    return out
