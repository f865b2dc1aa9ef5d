# SPDX-License-Identifier: MIT
# Stream assignment and cross-stream semaphores.

be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

STREAMS_LIB := $(BUILD)/lib/libnpuc_streams.a
$(STREAMS_LIB): $(call be_objs,compiler/streams/streams.c)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# -Icompiler: tests/npuc_tap.h, the compiler tests' shared TAP producer
$(call be_objs,compiler/streams/tests/test_streams.c): CPPFLAGS += -Icompiler/streams -Icompiler
$(BUILD)/tests/streams/test_streams: \
		$(call be_objs,compiler/streams/tests/test_streams.c) $(STREAMS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

TESTS += $(BUILD)/tests/streams/test_streams
SAN_TESTS += $(BUILD)/tests/streams/test_streams
