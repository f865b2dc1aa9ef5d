#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the compiler's wrong answers and refusals of issue 22, each as a
# small ONNX model compiled by npuc and run on the in-process device vs a
# float64 numpy reference.
exec /usr/bin/python3 "$(dirname "$0")/compiler_regress.py"
