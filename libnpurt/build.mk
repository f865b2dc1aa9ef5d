# SPDX-License-Identifier: MIT
#
# The runtime: the .om library ($(BUILD)/lib/libnpuom.a), libnpurt
# (shared $(BUILD)/lib/libnpurt.so.1 and static libnpurt.a), its tests,
# npu-run and npu-om (tools/*/build.mk), `make install`.

# mk/rules.mk defines objs after the fragments are read: our own copy.
rt_objs		= $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

RT_CPPFLAGS	:= -Ilibnpurt/include -Ilibnpurt/om -Ilibnpurt/transport \
		   -Ilibnpurt/alloc -Ikernel/npu_drv -Icompiler/include \
		   $(UAPI_CFLAGS)

# ---- the .om reader/writer, shared with the compiler ----
# The reader validates tasks with the device's own checks: whatever links
# libnpuom.a links libnpuops.a after it.
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
				 $(RT_TEST_COMMON) $(RT_OM_LIB) \
				 $(BUILD)/lib/libnpuops.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -lpthread -o $@

TESTS		+= $(BUILD)/tests/libnpurt/test_om
SAN_TESTS	+= build/tests/libnpurt/test_om

# ---- libFuzzer target for the reader: make fuzz-om ----
RT_FUZZ		:= $(BUILD)/fuzz/fuzz_om
$(RT_FUZZ): libnpurt/om/fuzz_om.c $(RT_OM_SRCS) libnpurt/om/om.h \
	    libnpurt/om/om_format.h libnpurt/om/om_internal.h $(OPS_SRCS)
	@mkdir -p $(dir $@)
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined \
		-ffp-contract=off -fno-math-errno \
		$(RT_CPPFLAGS) libnpurt/om/fuzz_om.c $(RT_OM_SRCS) \
		$(OPS_SRCS) -lpthread -o $@

.PHONY: fuzz-om
fuzz-om: $(RT_FUZZ) $(BUILD)/tests/libnpurt/test_om
	@mkdir -p $(BUILD)/fuzz/om-corpus
	$(BUILD)/tests/libnpurt/test_om --write-corpus $(BUILD)/fuzz/om-corpus \
		>/dev/null
	$(RT_FUZZ) -max_total_time=$${FUZZ_SECONDS:-60} \
		$(BUILD)/fuzz/om-corpus

# ---- the runtime library ----
# The header's NPURT_VERSION_{MAJOR,MINOR,PATCH}: file name and pkg-config
# version; the soname follows the major.
RT_VERSION	:= $(shell sed -n 's/^\#define NPURT_VERSION_[A-Z]*[[:space:]]*\([0-9]*\)$$/\1/p' \
		     libnpurt/include/npurt.h | paste -sd.)
RT_SRCS		:= $(wildcard libnpurt/src/*.c)
# The plugin loader is the compiler's (compiler/plugin/plugin_load.c).
RT_OBJS		:= $(call rt_objs,$(RT_SRCS) compiler/plugin/plugin_load.c)
# Everything the runtime links (the in-process device comes with it).
# Spelled out: those fragments are read after this one.
RT_DEP_LIBS	:= $(RT_OM_LIB) $(BUILD)/lib/libnpurtalloc.a \
		   $(BUILD)/lib/libnputransport.a $(BUILD)/lib/libnpucore.a \
		   $(BUILD)/lib/libnpupool.a $(BUILD)/lib/libnpuops.a
RT_LDLIBS	:= $(DRM_LIBS) $(NUMA_LIBS) $(IMG_LIBS) -ldl -lpthread
RT_SO		:= $(BUILD)/lib/libnpurt.so.$(RT_VERSION)
RT_SONAME	:= libnpurt.so.1
RT_A		:= $(BUILD)/lib/libnpurt.a
RT_TOOLS	:= $(BUILD)/bin/npu-run $(BUILD)/bin/npu-om

$(RT_OBJS): CPPFLAGS += $(RT_CPPFLAGS)
$(RT_OBJS): CFLAGS += -fvisibility=hidden
$(call rt_objs,libnpurt/src/image_decode.c): CPPFLAGS += $(IMG_CFLAGS)

$(RT_SO): $(RT_OBJS) $(RT_DEP_LIBS) libnpurt/libnpurt.map
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(RT_SONAME) \
		-Wl,--version-script=libnpurt/libnpurt.map -Wl,--no-undefined \
		$(RT_OBJS) $(RT_DEP_LIBS) $(RT_LDLIBS) -o $@
	ln -sf libnpurt.so.$(RT_VERSION) $(BUILD)/lib/$(RT_SONAME)
	ln -sf $(RT_SONAME) $(BUILD)/lib/libnpurt.so

# The static library carries its dependencies (one archive to link).
$(RT_A): $(RT_OBJS) $(RT_DEP_LIBS)
	@mkdir -p $(dir $@)
	rm -f $@
	{ echo "CREATE $@"; for o in $(RT_OBJS); do echo "ADDMOD $$o"; done; \
	  for l in $(RT_DEP_LIBS); do echo "ADDLIB $$l"; done; \
	  echo SAVE; echo END; } | $(AR) -M

# The installed directories are baked in: make install rewrites it.
RT_PC_SED	= sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		      -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		      -e 's|@VERSION@|$(RT_VERSION)|'
$(BUILD)/lib/libnpurt.pc: libnpurt/libnpurt.pc.in
	@mkdir -p $(dir $@)
	$(RT_PC_SED) $< > $@

BINS		+= $(RT_SO) $(RT_A) $(BUILD)/lib/libnpurt.pc

# ---- runtime tests (linked statically: no LD_LIBRARY_PATH needed) ----
RT_RT_TESTS	:= test_runtime test_two_stream test_blocking test_concurrent \
		   test_generate
$(foreach t,$(RT_RT_TESTS),$(eval \
$(BUILD)/tests/libnpurt/$(t): $(call rt_objs,libnpurt/tests/$(t).c) \
	$(RT_TEST_COMMON) $(RT_A) ; \
	@mkdir -p $$(dir $$@) ; \
	$$(CC) $$(LDFLAGS) $$< $(RT_TEST_COMMON) $(RT_A) $(RT_LDLIBS) -o $$@))

TESTS		+= $(patsubst %,$(BUILD)/tests/libnpurt/%,$(RT_RT_TESTS))

# The image API: makes its PNG/JPEG files with the encoders (and zlib).
$(call rt_objs,libnpurt/tests/test_media.c): CPPFLAGS += $(IMG_CFLAGS)
$(BUILD)/tests/libnpurt/test_media: $(call rt_objs,libnpurt/tests/test_media.c) \
	$(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(RT_LDLIBS) -lz -lm -o $@
TESTS		+= $(BUILD)/tests/libnpurt/test_media
SAN_TESTS	+= build/tests/libnpurt/test_media
SAN_TESTS	+= $(patsubst %,build/tests/libnpurt/%,$(RT_RT_TESTS))

# ---- online compilation: single-op mode, shape cache ----
# Linked statically with libnpurt.a; libnpuc.so.1 is dlopen'ed from
# $(BUILD)/lib through the RUNPATH, as an installed runtime finds it.
RT_ONLINE_TESTS	:= test_op_exec test_shape_cache test_shape_share
RT_ONNX_O	:= $(BUILD)/obj/gen/onnx/onnx.pb-c.o
$(call rt_objs,libnpurt/tests/op_chain.c) \
$(call rt_objs,libnpurt/tests/test_op_exec.c) \
$(call rt_objs,libnpurt/tests/test_shape_cache.c) \
$(call rt_objs,libnpurt/tests/test_shape_share.c) \
$(call rt_objs,bench/single_op/bench_single_op.c): \
	CPPFLAGS += $(RT_CPPFLAGS) -Ilibnpurt/tests -I$(BUILD)/gen \
		    $(PROTOBUF_C_CFLAGS)
$(call rt_objs,libnpurt/tests/op_chain.c): | $(BUILD)/gen/onnx/onnx.pb-c.h
$(foreach t,$(RT_ONLINE_TESTS),$(eval \
$(BUILD)/tests/libnpurt/$(t): $(call rt_objs,libnpurt/tests/$(t).c) \
	$(call rt_objs,libnpurt/tests/op_chain.c) $(RT_ONNX_O) $(RT_A) \
	$(NPUC_LIB_SO) ; \
	@mkdir -p $$(dir $$@) ; \
	$$(CC) $$(LDFLAGS) $$< $(call rt_objs,libnpurt/tests/op_chain.c) \
		$(RT_ONNX_O) $(RT_A) $(PROTOBUF_C_LIBS) $(RT_LDLIBS) -lm \
		-Wl,-rpath,'$$$$ORIGIN/../../lib' -o $$@))

TESTS		+= $(patsubst %,$(BUILD)/tests/libnpurt/%,$(RT_ONLINE_TESTS))
SAN_TESTS	+= $(patsubst %,build/tests/libnpurt/%,$(RT_ONLINE_TESTS))

# make bench-single-op: a model op by op (npurt_op_execute) vs as a graph.
$(BUILD)/bench/bench_single_op: \
	$(call rt_objs,bench/single_op/bench_single_op.c) \
	$(call rt_objs,libnpurt/tests/op_chain.c) $(RT_ONNX_O) $(RT_A) \
	$(NPUC_LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(call rt_objs,libnpurt/tests/op_chain.c) \
		$(RT_ONNX_O) $(RT_A) $(PROTOBUF_C_LIBS) $(RT_LDLIBS) -lm \
		-Wl,-rpath,'$$ORIGIN/../lib' -o $@

.PHONY: bench-single-op
bench-single-op: $(BUILD)/bench/bench_single_op
	$(BUILD)/bench/bench_single_op $(BENCH_SINGLE_OP_ARGS)

# ---- make install: the library, its header and pkg-config file ----
# (the tools: tools/build.mk; the pages: Documentation/build.mk)
.PHONY: install-npurt
install: install-npurt
install-npurt: $(RT_SO) $(RT_A)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 libnpurt/include/npurt.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(RT_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libnpurt.so.$(RT_VERSION) $(DESTDIR)$(LIBDIR)/$(RT_SONAME)
	ln -sf $(RT_SONAME) $(DESTDIR)$(LIBDIR)/libnpurt.so
	install -m 644 $(RT_A) $(DESTDIR)$(LIBDIR)/
	$(RT_PC_SED) libnpurt/libnpurt.pc.in > \
		$(DESTDIR)$(PKGCONFIGDIR)/libnpurt.pc

# Test models, inputs and references as files (npu-run and example tests).
$(call rt_objs,libnpurt/tests/mkmodels.c): CPPFLAGS += $(RT_CPPFLAGS) \
	-Ilibnpurt/tests -Itools/npu-run
$(BUILD)/tests/libnpurt/mkmodels: $(call rt_objs,libnpurt/tests/mkmodels.c) \
	$(RT_TEST_COMMON) $(BUILD)/obj/tools/npu-run/npy.o $(RT_OM_LIB) \
	$(BUILD)/lib/libnpuops.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -lpthread -o $@

BINS		+= $(BUILD)/tests/libnpurt/mkmodels

# ---- host tasks (plugin host kernels): run by examples/plugin/test_plugin.sh,
# which compiles its models first ----
RT_HOST_TEST	:= $(BUILD)/tests/libnpurt/test_host_tasks
$(RT_HOST_TEST): $(call rt_objs,libnpurt/tests/test_host_tasks.c) $(RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(RT_A) $(RT_LDLIBS) -lm -o $@
BINS		+= $(RT_HOST_TEST)

# `make check-rt-tsan`: the concurrency test (one model, many threads,
# execution contexts) built with ThreadSanitizer - the runtime, the .om
# library, the allocator and the in-process device in one compiler call.
# Not part of `make check`: it takes a minute to build.
RT_TSAN_DIR	:= $(BUILD)/tsan
.PHONY: check-rt-tsan
check-rt-tsan:
	@mkdir -p $(RT_TSAN_DIR)/bin
	$(CC) $(CSTD) -O1 -g -fsanitize=thread -ffp-contract=off \
		-fno-math-errno -fno-strict-aliasing $(RT_CPPFLAGS) \
		-Ilibnpurt/tests $(RT_SRCS) $(RT_OM_SRCS) $(ALLOC_SRCS) \
		$(TRANSPORT_SRCS) $(CORE_SRCS) $(POOL_SRCS) $(OPS_SRCS) \
		libnpurt/tests/rt_models.c libnpurt/tests/test_concurrent.c \
		-o $(RT_TSAN_DIR)/bin/test_concurrent $(RT_LDLIBS) -lm
	TSAN_OPTIONS=halt_on_error=1 $(PROVE) -v -e '' \
		$(RT_TSAN_DIR)/bin/test_concurrent
