#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: stream and semaphore budgets: every --max-streams, small devices.
exec /usr/bin/python3 "$(dirname "$0")/streams_budget.py"
