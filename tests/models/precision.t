#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: FP16 models (--precision modes) and weight-only quantized linears
# (w8a16, w4a16) through npuc and the in-process device vs numpy/torch.
exec /usr/bin/python3 "$(dirname "$0")/precision.py"
