#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: a GPT-style decoder generating with its KV cache on the device.
exec /usr/bin/python3 "$(dirname "$0")/decoder_kv.py"
