#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: the scheduler groups of the uapi suite on an in-process device
# with a single AI core, where a lost wake-up cannot be covered up by
# another core (issue 22: a two-stream model hung in 9 runs of 10), with
# waits that serve (the waiter runs as the one core; run_one_core_sleep.sh
# runs it with waits that sleep, as in the kernel module).
BUILD=${BUILD:-build}
NPU_SIM_SERVE_WAITS=${NPU_SIM_SERVE_WAITS:-1} NPU_SIM_CORES=1 \
NPU_SIM_VRAM_MB=${NPU_SIM_VRAM_MB:-64} \
	exec "$BUILD/bin/npu_uapi_test" --device sim --group wakeup --group sched
