#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the ONNX backend node tests of every op npuc supports, one line per
# test, run on the in-process device (see Documentation/conformance.rst).
exec /usr/bin/python3 "$(dirname "$0")/run_conformance.py" --tap
