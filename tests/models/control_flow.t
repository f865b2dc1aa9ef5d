#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: ONNX If, Loop and Scan compiled into the graph (predicated or
# unrolled), each a small ONNX model run on the in-process device vs a
# float64 numpy reference, and the forms npuc refuses.
exec /usr/bin/python3 "$(dirname "$0")/control_flow.py"
