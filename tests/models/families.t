#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: issue 18's model families (detection, segmentation, UNet, STN, RoI head,
# LSTM, GRU) vs torch.
exec /usr/bin/python3 "$(dirname "$0")/families.py"
