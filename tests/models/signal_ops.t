#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: DFT, STFT and MelWeightMatrix compiled into MatMuls and constants,
# each a small ONNX model run on the in-process device vs numpy's FFT, and
# the forms npuc refuses.
exec /usr/bin/python3 "$(dirname "$0")/signal_ops.py"
