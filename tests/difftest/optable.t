#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: every entry of the op table in Documentation/ops.rst, one model each:
# claimed entries compile, run and match; refused ones are refused cleanly.
exec /usr/bin/python3 "$(dirname "$0")/optable.py"
