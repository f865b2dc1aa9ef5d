#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: npu-quant on models torch exports at test time (test_npu_quant.py).
exec /usr/bin/python3 "$(dirname "$0")/test_npu_quant.py" "$@"
