# SPDX-License-Identifier: MIT
#
# int8 end to end (Documentation/quantization.rst): QDQ models made at test
# time with Debian's python3 (torch, onnx), compiled by npuc, run by
# npu-run, compared with a numpy implementation of ONNX's int8 operators.

TESTS		+= tests/quant/quant.t
