#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the op patterns torch's exporter writes (issue 8's ops), each as a
# tiny model compiled by npuc and run on the in-process device vs torch.
exec /usr/bin/python3 "$(dirname "$0")/torch_ops.py"
