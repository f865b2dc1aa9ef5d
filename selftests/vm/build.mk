# SPDX-License-Identifier: GPL-2.0
#
# VM harness of the npu_drv kernel module: `make vmtest` builds the
# module and the in-VM test programs, boots a QEMU VM and reports TAP; the
# same script runs under `make check` (and skips when QEMU or the kernel
# image is missing).

VMTEST_SRCS := $(wildcard selftests/vm/*.c)
# objs (mk/rules.mk) is defined after the fragments are read.
VMTEST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(VMTEST_SRCS))

ifneq ($(VMTEST_SRCS),)
BINS += $(BUILD)/bin/npu_vmtest
endif
TESTS += selftests/vm/vmtest.sh

$(VMTEST_OBJS): CPPFLAGS += $(UAPI_CFLAGS)

# Static, so that the initramfs needs no shared libraries for it.
$(BUILD)/bin/npu_vmtest: $(VMTEST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -static -pthread -o $@ $^

# Only what the VM runs, so that a broken unrelated part does not stop it.
.PHONY: vmtest
vmtest: $(BUILD)/bin/npu_vmtest $(BUILD)/bin/npu-smi $(BUILD)/bin/npu_uapi_test \
	$(BUILD)/bin/npu_pool_devtest $(BUILD)/bin/npu_fuzz_replay
	BUILD=$(BUILD) selftests/vm/vmtest.sh

# The same run under a debug kernel (KASAN, lockdep, kmemleak,
# DEBUG_ATOMIC_SLEEP) built from Debian's linux-source into
# $(BUILD)/debug-kernel/ (once; selftests/vm/debug-kernel.sh). Too slow for
# `make check`: run it before a change to the core or the glue lands.
# See Documentation/build.rst, "The debug kernel".
DEBUG_KERNEL := $(BUILD)/debug-kernel
VMTEST_DEBUG_TIMEOUT ?= 1800

.PHONY: debug-kernel vmtest-debug
debug-kernel:
	selftests/vm/debug-kernel.sh $(DEBUG_KERNEL)

vmtest-debug: debug-kernel $(BUILD)/bin/npu_vmtest $(BUILD)/bin/npu-smi \
	$(BUILD)/bin/npu_uapi_test $(BUILD)/bin/npu_pool_devtest
	BUILD=$(BUILD) KDIR=$(DEBUG_KERNEL)/obj \
	KIMG=$(DEBUG_KERNEL)/obj/arch/x86/boot/bzImage \
	MODDIR=$(DEBUG_KERNEL)/no-modules MODBUILD=$(DEBUG_KERNEL)/npu_drv \
	VMTEST_WORK=$(BUILD)/vmtest-debug \
	VMTEST_CMDLINE='console=ttyS0 panic=-1 kasan_multi_shot' \
	VMTEST_TIMEOUT=$(VMTEST_DEBUG_TIMEOUT) selftests/vm/vmtest.sh

# What kbuild leaves in the source tree (make -C kernel/npu_drv clean does
# the same with the kernel's own rules).
CLEAN += kernel/npu_drv/*.o kernel/npu_drv/*/*.o kernel/npu_drv/.*.cmd \
	 kernel/npu_drv/*/.*.cmd kernel/npu_drv/.*.d kernel/npu_drv/*/.*.d \
	 kernel/npu_drv/*.ko kernel/npu_drv/*.mod \
	 kernel/npu_drv/*.mod.c kernel/npu_drv/Module.symvers \
	 kernel/npu_drv/modules.order
