#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the bounded run of the differential fuzzer (Documentation/difftest.rst):
# 400 fixed seeds, each a random ONNX graph compiled by npuc and run on the
# in-process device, checked against the interpreter, float64 and itself.
exec /usr/bin/python3 "$(dirname "$0")/difftest.py" --tap \
	--seeds "${DIFFTEST_SEEDS:-0:400}"
