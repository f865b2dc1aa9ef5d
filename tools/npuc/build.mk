# SPDX-License-Identifier: MIT
# npuc: the model compiler CLI.

be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

NPUC_BIN := $(BUILD)/bin/npuc
$(call be_objs,tools/npuc/npuc.c): CPPFLAGS += $(BE_CPPFLAGS)

$(NPUC_BIN): $(call be_objs,tools/npuc/npuc.c) $(filter %.a,$(BE_LINK))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BE_LINK)

BINS += $(NPUC_BIN)
TESTS += compiler/driver/tests/models.sh
