#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: the uapi suite against the in-process device, 2 AI cores so it
# stays light on a small machine (the parallel test needs 2).
BUILD=${BUILD:-build}
NPU_SIM_CORES=${NPU_SIM_CORES:-2} NPU_SIM_VRAM_MB=${NPU_SIM_VRAM_MB:-64} \
	NPU_SIM_DEVICES=${NPU_SIM_DEVICES:-2} \
	exec "$BUILD/bin/npu_uapi_test" --device sim
