#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: the scheduler groups of the uapi suite on an in-process device
# of two AI cores whose idle threads poll for the longest time allowed
# (NPU_SIM_PARK_SPIN_US=1000), so that kicks land while a core polls, a
# host's submission passes the lending grace and cores fall asleep after a
# poll (Documentation/hardware.rst, "Idle cores poll").
BUILD=${BUILD:-build}
NPU_SIM_PARK_SPIN_US=1000 NPU_SIM_CORES=2 NPU_SIM_VRAM_MB=64 \
	exec "$BUILD/bin/npu_uapi_test" --device sim --group wakeup \
	--group sched --group submit --group stress
