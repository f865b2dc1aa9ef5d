# SPDX-License-Identifier: MIT
#
# [rt] the runtime: the .om library ($(BUILD)/lib/libnpuom.a), libnpurt
# (shared $(BUILD)/lib/libnpurt.so.1 and static libnpurt.a), its tests,
# npu-run and npu-om (tools/*/build.mk), `make install`.

# mk/rules.mk defines objs after the fragments are read: our own copy.
rt_objs		= $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

RT_CPPFLAGS	:= -Ilibnpurt/include -Ilibnpurt/om -Ilibnpurt/transport \
		   -Ilibnpurt/alloc -Ikernel/npu_drv $(UAPI_CFLAGS)

# ---- the .om reader/writer, shared with the compiler ----
RT_OM_SRCS	:= libnpurt/om/om_crc32c.c libnpurt/om/om_util.c \
		   libnpurt/om/om_reader.c libnpurt/om/om_writer.c
RT_OM_LIB	:= $(BUILD)/lib/libnpuom.a

$(call rt_objs,$(RT_OM_SRCS)): CPPFLAGS += $(RT_CPPFLAGS)
$(RT_OM_LIB): $(call rt_objs,$(RT_OM_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

BINS		+= $(RT_OM_LIB)

# ---- tests of the .om library ----
RT_TEST_COMMON	:= $(call rt_objs,libnpurt/tests/rt_models.c)
$(RT_TEST_COMMON) $(call rt_objs,$(wildcard libnpurt/tests/test_*.c)): \
	CPPFLAGS += $(RT_CPPFLAGS) -Ilibnpurt/tests

$(BUILD)/tests/libnpurt/test_om: $(call rt_objs,libnpurt/tests/test_om.c) \
				 $(RT_TEST_COMMON) $(RT_OM_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -lpthread -o $@

TESTS		+= $(BUILD)/tests/libnpurt/test_om
SAN_TESTS	+= build/tests/libnpurt/test_om

# ---- libFuzzer target for the reader: make fuzz-om ----
RT_FUZZ		:= $(BUILD)/fuzz/fuzz_om
$(RT_FUZZ): libnpurt/om/fuzz_om.c $(RT_OM_SRCS) libnpurt/om/om.h \
	    libnpurt/om/om_format.h libnpurt/om/om_internal.h
	@mkdir -p $(dir $@)
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined \
		$(RT_CPPFLAGS) libnpurt/om/fuzz_om.c $(RT_OM_SRCS) \
		-lpthread -o $@

.PHONY: fuzz-om
fuzz-om: $(RT_FUZZ) $(BUILD)/tests/libnpurt/test_om
	@mkdir -p $(BUILD)/fuzz/om-corpus
	$(BUILD)/tests/libnpurt/test_om --write-corpus $(BUILD)/fuzz/om-corpus \
		>/dev/null
	$(RT_FUZZ) -max_total_time=$${FUZZ_SECONDS:-60} \
		$(BUILD)/fuzz/om-corpus
