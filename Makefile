# SPDX-License-Identifier: MIT
#
# Top-level build of the NPU stack. `make` builds the userspace parts,
# `make check` runs every test through prove (TAP). The kernel module has its
# own kbuild Makefile in kernel/npu_drv/ (`make -C kernel/npu_drv`).

.DEFAULT_GOAL := all
include mk/common.mk

# Every part of the tree describes its libraries, programs and tests in a
# build.mk fragment next to its sources.
include $(sort $(wildcard */build.mk */*/build.mk */*/*/build.mk))

include mk/rules.mk
