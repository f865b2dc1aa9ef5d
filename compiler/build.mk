# SPDX-License-Identifier: MIT
#
# Compiler part 1: IR, ONNX import, shape inference, passes, node->task
# emission and the reference interpreter: $(BUILD)/lib/libnpuc_fe.a.
# The ONNX protobuf C code is generated at build time by protoc-c from
# Debian's onnx.proto into $(BUILD)/gen/ (never committed).

FE_PROTO	:= /usr/include/onnx/onnx.proto
FE_GEN		:= $(BUILD)/gen
FE_PB_C		:= $(FE_GEN)/onnx/onnx.pb-c.c
FE_PB_H		:= $(FE_GEN)/onnx/onnx.pb-c.h
FE_PB_O		:= $(BUILD)/obj/gen/onnx/onnx.pb-c.o

# mk/rules.mk (where objs is defined) is read after the fragments, and rule
# prerequisites are expanded at once: map sources to objects here.
fe_objs		= $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

FE_SRCS		:= $(wildcard compiler/ir/*.c compiler/onnx/*.c \
			      compiler/shape/*.c compiler/passes/*.c \
			      compiler/emit/*.c compiler/interp/*.c \
			      compiler/plugin/*.c)
FE_OBJS		:= $(call fe_objs,$(FE_SRCS))
FE_LIB		:= $(BUILD)/lib/libnpuc_fe.a
FE_CPPFLAGS	:= -Icompiler -I$(FE_GEN) $(UAPI_CFLAGS) -Ikernel/npu_drv \
		   -Ilibnpurt/om $(XXHASH_CFLAGS) \
		   $(PROTOBUF_C_CFLAGS)

# The op kernels evaluate folded constants and run the interpreter.
FE_OPS_LIB	:= $(BUILD)/lib/libnpuops.a
FE_LIBS		:= $(FE_LIB) $(FE_OPS_LIB) $(PROTOBUF_C_LIBS) $(XXHASH_LIBS) -lm

$(FE_PB_C) $(FE_PB_H) &: $(FE_PROTO)
	@mkdir -p $(FE_GEN)
	protoc-c --c_out=$(FE_GEN) -I/usr/include $(FE_PROTO)

# Generated code: its own warnings are not ours to fix.
$(FE_PB_O): $(FE_PB_C) $(FE_PB_H)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(OPT) -fPIC $(SAN_FLAGS) $(PROTOBUF_C_CFLAGS) \
		-I$(FE_GEN) -c $< -o $@

$(FE_OBJS): CPPFLAGS += $(FE_CPPFLAGS)
$(FE_OBJS): | $(FE_PB_H)

$(FE_LIB): $(FE_OBJS) $(FE_PB_O)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Test programs: compiler/tests/test_*.c -> $(BUILD)/tests/compiler/test_*
FE_TEST_SRCS	:= $(wildcard compiler/tests/test_*.c)
FE_TEST_BINS	:= $(patsubst compiler/tests/%.c,$(BUILD)/tests/compiler/%,\
			      $(FE_TEST_SRCS))
FE_TEST_COMMON	:= $(call fe_objs,compiler/tests/fe_test.c)

$(FE_TEST_COMMON) $(call fe_objs,$(FE_TEST_SRCS) compiler/tests/npuc_fe.c): \
	CPPFLAGS += $(FE_CPPFLAGS)
$(call fe_objs,$(FE_TEST_SRCS) compiler/tests/npuc_fe.c): | $(FE_PB_H)

$(BUILD)/tests/compiler/%: $(BUILD)/obj/compiler/tests/%.o $(FE_TEST_COMMON) \
			   $(FE_LIB) $(FE_OPS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(FE_TEST_COMMON) $(FE_LIBS) -o $@

# The front-end driver: import, passes, report, dumps, interpretation.
$(BUILD)/bin/npuc-fe: $(call fe_objs,compiler/tests/npuc_fe.c) $(FE_LIB) \
		      $(FE_OPS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(FE_LIBS) -o $@

# libFuzzer target for the importer (clang): make fuzz-onnx
FE_FUZZ		:= $(BUILD)/fuzz/fuzz_onnx
FE_FUZZ_OPS	:= $(wildcard kernel/npu_drv/ops/*.c)
$(FE_FUZZ): compiler/tests/fuzz_onnx.c $(FE_SRCS) $(FE_PB_C) $(FE_PB_H) \
	    $(FE_FUZZ_OPS)
	@mkdir -p $(dir $@)
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -ffp-contract=off \
		-fno-math-errno $(FE_CPPFLAGS) compiler/tests/fuzz_onnx.c \
		$(FE_SRCS) $(FE_FUZZ_OPS) $(FE_PB_C) $(PROTOBUF_C_LIBS) \
		$(XXHASH_LIBS) -lm \
		-o $@

.PHONY: fuzz-onnx
fuzz-onnx: $(FE_FUZZ)
	@mkdir -p $(BUILD)/fuzz/corpus
	$(FE_FUZZ) -max_total_time=$${FUZZ_SECONDS:-60} \
		$(BUILD)/fuzz/corpus compiler/tests/corpus

BINS		+= $(FE_LIB) $(BUILD)/bin/npuc-fe
TESTS		+= $(FE_TEST_BINS) compiler/tests/models.sh
SAN_TESTS	+= $(FE_TEST_BINS)
