# SPDX-License-Identifier: MIT
#
# libnpucl, the collectives (Documentation/collectives.rst): the shared
# library $(BUILD)/lib/libnpucl.so.1 over libnpurt, its test (in one
# process on four in-process devices, and under mpirun -np 4), the
# bandwidth benchmark (make bench-coll). With Open MPI's development files
# (libopenmpi-dev) the MPI transport is built in; without them
# npucl_comm_init_mpi() reports NPURT_ERR_UNSUPPORTED.

CL_MPI_CFLAGS	:= $(shell mpicc --showme:compile 2>/dev/null)
CL_MPI_LIBS	:= $(shell mpicc --showme:link 2>/dev/null)
ifneq ($(CL_MPI_LIBS),)
CL_MPI_CPPFLAGS	:= -DNPUCL_HAVE_MPI $(CL_MPI_CFLAGS)
endif

# libnpurt's build.mk is read after this one: its names, spelled out.
CL_RT_VERSION	:= $(shell sed -n 's/^\#define NPURT_VERSION_[A-Z]*[[:space:]]*\([0-9]*\)$$/\1/p' \
		     libnpurt/include/npurt.h | paste -sd.)
CL_RT_SO	:= $(BUILD)/lib/libnpurt.so.$(CL_RT_VERSION)
CL_RT_A		:= $(BUILD)/lib/libnpurt.a

CL_SRCS		:= libnpucl/src/npucl.c
CL_OBJS		:= $(patsubst %.c,$(BUILD)/obj/%.o,$(CL_SRCS))
CL_SO		:= $(BUILD)/lib/libnpucl.so.1.0
CL_A		:= $(BUILD)/lib/libnpucl.a
# graph mode's operator plugin (below)
CL_OPS_SO	:= $(BUILD)/lib/libnpucl_ops.so
CL_CPPFLAGS	:= -Ilibnpucl/include -Ilibnpurt/include $(UAPI_CFLAGS) \
		   $(CL_MPI_CPPFLAGS)

$(CL_OBJS): CPPFLAGS += $(CL_CPPFLAGS)
$(CL_OBJS): CFLAGS += -fvisibility=hidden

$(CL_SO): $(CL_OBJS) $(CL_RT_SO) libnpucl/libnpucl.map
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libnpucl.so.1 \
		-Wl,--version-script=libnpucl/libnpucl.map -Wl,--no-undefined \
		$(CL_OBJS) -L$(BUILD)/lib -lnpurt $(CL_MPI_LIBS) -lpthread \
		-Wl,-rpath,'$$ORIGIN' -o $@
	ln -sf libnpucl.so.1.0 $(BUILD)/lib/libnpucl.so.1
	ln -sf libnpucl.so.1 $(BUILD)/lib/libnpucl.so

$(CL_A): $(CL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

BINS		+= $(CL_SO) $(CL_A)

# ---- the test: static, with the runtime's archive ----
CL_TEST		:= $(BUILD)/tests/libnpucl/npucl_test
$(BUILD)/obj/libnpucl/tests/npucl_test.o: CPPFLAGS += $(CL_CPPFLAGS)
$(CL_TEST): $(BUILD)/obj/libnpucl/tests/npucl_test.o $(CL_A) $(CL_RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(CL_A) $(CL_RT_A) $(CL_MPI_LIBS) $(RT_LDLIBS) -o $@

# the tensor-parallel MLP (make check runs it from run_npucl_test.sh)
CL_TP_TEST	:= $(BUILD)/tests/libnpucl/tp_mlp_test
$(BUILD)/obj/libnpucl/tests/tp_mlp_test.o: CPPFLAGS += $(CL_CPPFLAGS)
$(CL_TP_TEST): $(BUILD)/obj/libnpucl/tests/tp_mlp_test.o $(CL_A) $(CL_RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(CL_A) $(CL_RT_A) $(CL_MPI_LIBS) $(RT_LDLIBS) -lm -o $@

BINS		+= $(CL_TEST) $(CL_TP_TEST)
TESTS		+= libnpucl/tests/run_npucl_test.sh
# under ASan/UBSan too, in one process (each sets NPU_SIM_DEVICES=4)
SAN_TESTS	+= build/tests/libnpucl/npucl_test build/tests/libnpucl/tp_mlp_test

# ---- the bandwidth benchmark: make bench-coll (not in make check) ----
CL_BENCH	:= $(BUILD)/bin/bench_coll
$(BUILD)/obj/libnpucl/tests/bench_coll.o: CPPFLAGS += $(CL_CPPFLAGS)
$(CL_BENCH): $(BUILD)/obj/libnpucl/tests/bench_coll.o $(CL_A) $(CL_RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(CL_A) $(CL_RT_A) $(CL_MPI_LIBS) $(RT_LDLIBS) -o $@

BINS		+= $(CL_BENCH)
BENCH_COLL_RANKS ?= 4
.PHONY: bench-coll
bench-coll: $(CL_BENCH)
	$(CL_BENCH) --ranks $(BENCH_COLL_RANKS) \
		--json $(BUILD)/bench-coll-allreduce-$(BENCH_COLL_RANKS).json

# ---- make install: the library and its header ----
.PHONY: install-npucl
install: install-npucl
install-npucl: $(CL_SO) $(CL_OPS_SO)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)
	install -m 644 libnpucl/include/npucl.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(CL_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libnpucl.so.1.0 $(DESTDIR)$(LIBDIR)/libnpucl.so.1
	ln -sf libnpucl.so.1 $(DESTDIR)$(LIBDIR)/libnpucl.so
	install -d $(DESTDIR)$(LIBDIR)/npu/plugins
	install -m 644 $(CL_OPS_SO) $(DESTDIR)$(LIBDIR)/npu/plugins/

# ---- graph mode: the operator plugin of com.npu::AllReduce ----
# (npucl_ops.c: a host kernel npuc places on the host engine) and the
# tensor-parallel model test that compiles ONNX graphs with it.
$(BUILD)/obj/libnpucl/src/npucl_ops.o: CPPFLAGS += -Icompiler/include
$(CL_OPS_SO): $(BUILD)/obj/libnpucl/src/npucl_ops.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared $< -lpthread -o $@
CL_TPG_TEST	:= $(BUILD)/tests/libnpucl/tp_graph_test
$(BUILD)/obj/libnpucl/tests/tp_graph_test.o: CPPFLAGS += $(CL_CPPFLAGS)
$(CL_TPG_TEST): $(BUILD)/obj/libnpucl/tests/tp_graph_test.o $(CL_RT_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(CL_RT_A) $(RT_LDLIBS) -lm -o $@
BINS		+= $(CL_OPS_SO) $(CL_TPG_TEST)
TESTS		+= libnpucl/tests/tp_graph.t
# ... and again with everything built with ASan+UBSan
SAN_TESTS	+= libnpucl/tests/tp_graph-san.t
san-build: npucl-graph-san
.PHONY: npucl-graph-san
# after the other sanitizer sub-makes (they build npuc and the runtime):
# two recursive makes writing the same files at once race (-j2)
npucl-graph-san: e2e-san-tools npu-quant-san-tool
	$(MAKE) SAN=1 BUILD=build-san build-san/lib/libnpucl_ops.so \
		build-san/tests/libnpucl/tp_graph_test
