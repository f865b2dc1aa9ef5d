# SPDX-License-Identifier: MIT
#
# libnpuc: the compiler as a shared library (libnpuc.so.1, symbols of
# compiler/include/npuc.h versioned by libnpuc.map), its pkg-config file and
# `make install`. npuc (tools/npuc) is a thin tool over it; libnpurt loads
# it on demand (dlopen) for single-op mode and online compilation.

NPUC_LIB_VERSION := 1.0.0
NPUC_LIB_SONAME	:= libnpuc.so.1
NPUC_LIB_SO	:= $(BUILD)/lib/libnpuc.so.$(NPUC_LIB_VERSION)
NPUC_LIB_SRCS	:= compiler/libnpuc/libnpuc.c
NPUC_LIB_OBJS	:= $(patsubst %.c,$(BUILD)/obj/%.o,$(NPUC_LIB_SRCS))
NPUC_LIB_CPPFLAGS := -Icompiler -Icompiler/include -Ilibnpurt \
		   -Ilibnpurt/transport -Ikernel/npu_drv $(UAPI_CFLAGS)

$(NPUC_LIB_OBJS): CPPFLAGS += $(NPUC_LIB_CPPFLAGS)
$(NPUC_LIB_OBJS): CFLAGS += -fvisibility=hidden
$(NPUC_LIB_OBJS): | $(BUILD)/gen/onnx/onnx.pb-c.h

# Spelled out (BE_LINK and TRANSPORT_LIBS come from fragments read later).
NPUC_LIB_ARCHIVES := $(BUILD)/lib/libnpuc_be.a $(BUILD)/lib/libnpuc_fe.a \
	$(BUILD)/lib/libnpuc_memplan.a $(BUILD)/lib/libnpuc_streams.a \
	$(BUILD)/lib/libnpuom.a $(BUILD)/lib/libnputransport.a \
	$(BUILD)/lib/libnpucore.a $(BUILD)/lib/libnpupool.a \
	$(BUILD)/lib/libnpuops.a

$(NPUC_LIB_SO): $(NPUC_LIB_OBJS) $(NPUC_LIB_ARCHIVES) \
		compiler/libnpuc/libnpuc.map
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(NPUC_LIB_SONAME) \
		-Wl,--version-script=compiler/libnpuc/libnpuc.map \
		-Wl,--no-undefined $(NPUC_LIB_OBJS) \
		-Wl,--start-group $(NPUC_LIB_ARCHIVES) -Wl,--end-group \
		$(PROTOBUF_C_LIBS) $(XXHASH_LIBS) $(DRM_LIBS) -lpthread -lm -o $@
	ln -sf libnpuc.so.$(NPUC_LIB_VERSION) $(BUILD)/lib/$(NPUC_LIB_SONAME)
	ln -sf $(NPUC_LIB_SONAME) $(BUILD)/lib/libnpuc.so

$(BUILD)/lib/libnpuc.pc: compiler/libnpuc/libnpuc.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(NPUC_LIB_VERSION)|' $< > $@

BINS		+= $(NPUC_LIB_SO) $(BUILD)/lib/libnpuc.pc

# The library's own test: every exported symbol is in npuc.h's API and
# versioned; compile from a file, from memory and one operator.
NPUC_LIB_TEST	:= $(BUILD)/tests/libnpuc/test_libnpuc
$(call objs,compiler/libnpuc/tests/test_libnpuc.c): CPPFLAGS += \
	-Icompiler/include -Icompiler
$(NPUC_LIB_TEST): $(call objs,compiler/libnpuc/tests/test_libnpuc.c) \
		  $(NPUC_LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< -L$(BUILD)/lib -lnpuc \
		-Wl,-rpath,'$$ORIGIN/../../lib' -o $@
TESTS		+= $(NPUC_LIB_TEST)
SAN_TESTS	+= $(NPUC_LIB_TEST)

.PHONY: install-npuc
install: install-npuc
install-npuc: $(NPUC_LIB_SO)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 compiler/include/npuc.h \
		compiler/include/npuc_plugin.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(NPUC_LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libnpuc.so.$(NPUC_LIB_VERSION) \
		$(DESTDIR)$(LIBDIR)/$(NPUC_LIB_SONAME)
	ln -sf $(NPUC_LIB_SONAME) $(DESTDIR)$(LIBDIR)/libnpuc.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(NPUC_LIB_VERSION)|' \
		compiler/libnpuc/libnpuc.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/libnpuc.pc
