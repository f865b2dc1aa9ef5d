#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: QDQ models (torch fake-quant, ONNX Runtime QDQ, npu-quant PTQ) compile to int8
# tasks and match ONNX's int8 semantics (tests/quant/qdq_test.py).
exec /usr/bin/python3 "$(dirname "$0")/qdq_test.py"
