#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: ONNX's random ops (RandomUniform[Like], RandomNormal[Like],
# Bernoulli) compiled onto the RANDOM task, checked as distributions.
exec /usr/bin/python3 "$(dirname "$0")/random_ops.py"
