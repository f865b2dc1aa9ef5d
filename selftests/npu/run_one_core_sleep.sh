#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: run_one_core.sh with waits that sleep (NPU_SIM_SERVE_WAITS=0):
# the one core thread runs every job, as the kernel module's do.
NPU_SIM_SERVE_WAITS=0 exec "$(dirname "$0")/run_one_core.sh"
