#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: issue 18's model families (segmentation, UNet, LSTM, GRU) vs torch.
exec /usr/bin/python3 "$(dirname "$0")/families.py"
