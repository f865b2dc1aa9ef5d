# SPDX-License-Identifier: MIT
# npuc: the model compiler CLI, a thin tool over libnpuc.so.1
# (compiler/libnpuc), found through its run path next to it (build/lib,
# or PREFIX/lib once installed).

be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

NPUC_BIN := $(BUILD)/bin/npuc
NPUC_SRCS := tools/npuc/npuc.c tools/npuc/keep_list.c
$(call be_objs,$(NPUC_SRCS)): CPPFLAGS += -Icompiler/include \
	-Ilibnpurt/om -Itools/npuc $(VERSION_CPPFLAGS)
$(call be_objs,tools/npuc/npuc.c): mk/version.mk

$(NPUC_BIN): $(call be_objs,$(NPUC_SRCS)) $(BUILD)/lib/libnpuc.so.1.0.0
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(call be_objs,$(NPUC_SRCS)) -L$(BUILD)/lib -lnpuc \
		-Wl,-rpath,'$$ORIGIN/../lib'

BINS += $(NPUC_BIN)
TESTS += compiler/driver/tests/models.sh compiler/driver/tests/partitions.sh \
	 tools/npuc/test_npuc.sh

# Weights left in the model file's mapping through a compile give the
# bytes of a compile that copied them (it reads the models the tests
# above export, so it runs after them).
MAPPED_TEST := $(BUILD)/tests/driver/test_mapped
$(call be_objs,compiler/driver/tests/test_mapped.c): CPPFLAGS += $(BE_CPPFLAGS)
$(call be_objs,compiler/driver/tests/test_mapped.c): | $(BUILD)/gen/onnx/onnx.pb-c.h
$(MAPPED_TEST): $(call be_objs,compiler/driver/tests/test_mapped.c) \
		$(filter %.a,$(BE_LINK))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BE_LINK)
TESTS += $(MAPPED_TEST)
SAN_TESTS += $(MAPPED_TEST)
