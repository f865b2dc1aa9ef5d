#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: one model compiled with --dynamic-batch, run at several batch sizes.
exec /usr/bin/python3 "$(dirname "$0")/dynamic_batch.py"
