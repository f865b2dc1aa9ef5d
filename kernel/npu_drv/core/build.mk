# SPDX-License-Identifier: MIT
#
# The portable device core: hardware model, scheduler, validator and
# the uapi handlers, as a static library for the in-process home. The kernel
# module compiles the same files through its own Kbuild.

CORE_SRCS := $(addprefix kernel/npu_drv/core/, \
	bo.c device.c file.c handles.c program.c queue.c sched.c sem.c \
	submit.c)
# objs (mk/rules.mk) is defined after the fragments are read: map here.
CORE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CORE_SRCS))

$(CORE_OBJS): CPPFLAGS += $(UAPI_CFLAGS)

$(BUILD)/lib/libnpucore.a: $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^
