# SPDX-License-Identifier: MIT
# npu-plan: plan a minimalloc CSV problem with the compiler's planners.

NPU_PLAN_BIN := $(BUILD)/bin/npu-plan
BINS += $(NPU_PLAN_BIN)

$(NPU_PLAN_BIN): $(call be_objs,tools/npu-plan/npu-plan.c) $(MEMPLAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^
$(call be_objs,tools/npu-plan/npu-plan.c): CPPFLAGS += -Icompiler/memplan \
	$(VERSION_CPPFLAGS)
$(call be_objs,tools/npu-plan/npu-plan.c): mk/version.mk
