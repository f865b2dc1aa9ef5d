#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: models in double, bfloat16, int16, uint16, uint32 and uint64,
# narrowed to the device's compute types, each a small ONNX model run on
# the in-process device vs a float64 numpy reference, outputs in the
# declared types.
exec /usr/bin/python3 "$(dirname "$0")/storage_dtypes.py"
