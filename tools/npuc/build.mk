# SPDX-License-Identifier: MIT
# npuc: the model compiler CLI.

be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

NPUC_BIN := $(BUILD)/bin/npuc
# --target-device opens a device: the transport and the in-process home.
$(call be_objs,tools/npuc/npuc.c): CPPFLAGS += $(BE_CPPFLAGS) \
	-Ilibnpurt/transport

$(NPUC_BIN): $(call be_objs,tools/npuc/npuc.c) $(filter %.a,$(BE_LINK)) \
		$(TRANSPORT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BE_LINK) $(TRANSPORT_LIBS) \
		$(TRANSPORT_LDLIBS)

BINS += $(NPUC_BIN)
TESTS += compiler/driver/tests/models.sh
