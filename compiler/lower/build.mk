# SPDX-License-Identifier: MIT
# Compiler back end: lowering, the compile driver and the compile
# cache, in $(BUILD)/lib/libnpuc_be.a (memplan and streams have their own).

be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

BE_SRCS := $(wildcard compiler/lower/*.c compiler/driver/*.c \
		      compiler/cache/*.c)
BE_LIB := $(BUILD)/lib/libnpuc_be.a
BE_CPPFLAGS := -Icompiler -Ilibnpurt -Ikernel/npu_drv $(UAPI_CFLAGS) \
	       $(XXHASH_CFLAGS)

$(call be_objs,$(BE_SRCS)): CPPFLAGS += $(BE_CPPFLAGS)
$(call be_objs,$(BE_SRCS)): | $(BUILD)/gen/onnx/onnx.pb-c.h

# NPUC_BUILD_ID: a digest of every source that decides what the compiler
# emits; part of the compile-cache key. The header is rewritten only when the
# digest changes, so only the driver recompiles, and only then.
BE_ID_SRCS := $(sort $(wildcard compiler/*/*.[ch] kernel/npu_drv/ops/*.[ch] \
			       libnpurt/om/*.[ch] uapi/drm/*.h))
$(BUILD)/gen/npuc_build_id.h: $(BE_ID_SRCS)
	@mkdir -p $(dir $@)
	@id=$$(cat $^ | sha256sum | cut -c1-16); \
	echo "#define NPUC_BUILD_ID \"$$id\"" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(call be_objs,compiler/driver/driver.c): $(BUILD)/gen/npuc_build_id.h
$(call be_objs,compiler/driver/driver.c): CPPFLAGS += -I$(BUILD)/gen

$(BE_LIB): $(call be_objs,$(BE_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Everything a program that compiles needs, in link order.
BE_LINK := $(BE_LIB) $(BUILD)/lib/libnpuc_fe.a \
	$(BUILD)/lib/libnpuc_memplan.a $(BUILD)/lib/libnpuc_streams.a \
	$(BUILD)/lib/libnpuom.a $(BUILD)/lib/libnpuops.a \
	$(PROTOBUF_C_LIBS) $(XXHASH_LIBS) -lm

BINS += $(BE_LIB)

# Unit tests of the cache (and, with the front end, of lowering).
CACHE_TEST := $(BUILD)/tests/cache/test_cache
$(call be_objs,compiler/cache/tests/test_cache.c): CPPFLAGS += $(BE_CPPFLAGS)
$(CACHE_TEST): $(call be_objs,compiler/cache/tests/test_cache.c \
		compiler/cache/cache.c) $(BUILD)/lib/libnpuom.a \
		$(BUILD)/lib/libnpuops.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(XXHASH_LIBS)
TESTS += $(CACHE_TEST)
SAN_TESTS += $(CACHE_TEST)

PART_TEST := $(BUILD)/tests/cache/test_partition
$(call be_objs,compiler/cache/tests/test_partition.c): CPPFLAGS += $(BE_CPPFLAGS)
$(call be_objs,compiler/cache/tests/test_partition.c): | $(BUILD)/gen/onnx/onnx.pb-c.h
$(PART_TEST): $(call be_objs,compiler/cache/tests/test_partition.c) \
		$(filter %.a,$(BE_LINK))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BE_LINK)
TESTS += $(PART_TEST)
SAN_TESTS += $(PART_TEST)

LOWER_TEST := $(BUILD)/tests/lower/test_lower
$(call be_objs,compiler/lower/tests/test_lower.c): CPPFLAGS += $(BE_CPPFLAGS)
$(call be_objs,compiler/lower/tests/test_lower.c): | $(BUILD)/gen/onnx/onnx.pb-c.h
$(LOWER_TEST): $(call be_objs,compiler/lower/tests/test_lower.c) \
		$(filter %.a,$(BE_LINK))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BE_LINK)
TESTS += $(LOWER_TEST)
SAN_TESTS += $(LOWER_TEST)
