# SPDX-License-Identifier: MIT
# npuc: the model compiler CLI, a thin tool over libnpuc.so.1
# (compiler/libnpuc), found through its run path next to it (build/lib,
# or PREFIX/lib once installed).

be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

NPUC_BIN := $(BUILD)/bin/npuc
$(call be_objs,tools/npuc/npuc.c): CPPFLAGS += -Icompiler/include

$(NPUC_BIN): $(call be_objs,tools/npuc/npuc.c) $(BUILD)/lib/libnpuc.so.1.0.0
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< -L$(BUILD)/lib -lnpuc \
		-Wl,-rpath,'$$ORIGIN/../lib'

BINS += $(NPUC_BIN)
TESTS += compiler/driver/tests/models.sh
