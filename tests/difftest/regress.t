#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the differential fuzzer's minimized failures (tests/difftest/regress/),
# each run through every check of the fuzzer.
exec /usr/bin/python3 "$(dirname "$0")/difftest.py" --regress --tap
