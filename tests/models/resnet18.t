#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: resnet18 compiled by npuc and run on the in-process device vs torch.
exec /usr/bin/python3 "$(dirname "$0")/model_test.py" resnet18
