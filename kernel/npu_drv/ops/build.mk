# SPDX-License-Identifier: MIT
#
# The op kernels of the emulated NPU (portable core): libnpuops.a,
# their unit tests and the GFLOP/s bench program.
#
# Integer-only files (callable outside a kernel FPU section):
#   npu_ops_check.c npu_ops_geom.c op_gather.c op_transdata.c
# Everything else is float code. -fno-math-errno: any builtin that might
# reach libm must compile to an instruction (the module links no libm);
# tests/ops_nolibm.sh verifies the archive references no libm symbol.

OPS_DIR		:= kernel/npu_drv/ops
OPS_SRCS	:= $(wildcard $(OPS_DIR)/*.c)
# objs (mk/rules.mk) is defined after the fragments are read and rule
# prerequisites expand at once: map sources to objects here.
ops_objs	= $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
OPS_OBJS	:= $(call ops_objs,$(OPS_SRCS))
OPS_LIB		:= $(BUILD)/lib/libnpuops.a
OPS_CPPFLAGS	:= $(UAPI_CFLAGS) -Ikernel/npu_drv
OPS_CFLAGS	:= -fno-math-errno

$(OPS_OBJS): CPPFLAGS += $(OPS_CPPFLAGS)
$(OPS_OBJS): CFLAGS += $(OPS_CFLAGS)

# The product kernels of each ISA level get that level's flags in their own
# object only (Documentation/ops.rst, "Product kernels"); npu_kern_get()
# calls them only on a CPU that runs them.
ifeq ($(shell uname -m),x86_64)
$(BUILD)/obj/$(OPS_DIR)/npu_kern_avx2.o: CFLAGS += -mavx2 -mfma -mf16c
$(BUILD)/obj/$(OPS_DIR)/npu_kern_avx512.o: CFLAGS += -mavx512f -mavx2 -mfma -mf16c
endif

$(OPS_LIB): $(OPS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Unit tests: C programs printing TAP. Each links libnpuops.a, and libm
# for the reference values only.
OPS_TEST_NAMES	:= ops_conv_test ops_math_test ops_check_test ops_basic_test \
		   ops_more_test ops_chunk_test ops_hostile_test ops_trig_test \
		   ops_qlinear_test ops_media_test ops_wq_test ops_count_test \
		   ops_random_test
OPS_TEST_BINS	:= $(addprefix $(BUILD)/bin/,$(OPS_TEST_NAMES))
OPS_TEST_OBJS	:= $(call ops_objs,$(wildcard $(OPS_DIR)/tests/*.c))

$(OPS_TEST_OBJS): CPPFLAGS += $(OPS_CPPFLAGS) -I$(OPS_DIR) -I$(OPS_DIR)/tests

$(BUILD)/bin/ops_%: $(BUILD)/obj/$(OPS_DIR)/tests/ops_%.o \
		    $(BUILD)/obj/$(OPS_DIR)/tests/ops_testlib.o $(OPS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

BINS		+= $(OPS_LIB) $(BUILD)/bin/ops_bench

# `make bench-ops`: the GFLOP/s figures of Documentation/ops.rst.
.PHONY: bench-ops
bench-ops: $(BUILD)/bin/ops_bench
	$(BUILD)/bin/ops_bench 3
TESTS		+= $(OPS_TEST_BINS) $(OPS_DIR)/tests/ops_nolibm.sh \
		   $(OPS_DIR)/tests/ops_isa_test.sh
SAN_TESTS	+= $(patsubst $(BUILD)/%,build/%,$(OPS_TEST_BINS))
