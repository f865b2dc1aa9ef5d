# SPDX-License-Identifier: MIT
#
# The structure-aware fuzzer of PROGRAM_CREATE + SUBMIT
# (Documentation/fuzzing.rst):
#   $(BUILD)/bin/npu_fuzz_replay  replays corpus files through the ioctls,
#                                 plain C (make check, the VM)
#   $(BUILD)/fuzz/npu_fuzz        the libFuzzer target (clang, ASan, UBSan),
#                                 built when clang's libFuzzer is installed
#   fuzz_check.sh                 make check: corpus replay + a bounded run
#   make fuzz-campaign            a long run [FUZZ_SECONDS=1800] with the
#                                 executions, coverage and findings
#   make fuzz-seeds               rewrite the seed corpus

NPU_FUZZ_SRC	:= selftests/npu/fuzz
NPU_FUZZ_CORPUS	:= $(NPU_FUZZ_SRC)/corpus
NPU_FUZZ_COMMON	:= $(NPU_FUZZ_SRC)/npu_fuzz_decode.c \
		   $(NPU_FUZZ_SRC)/npu_fuzz_exec.c selftests/npu/npu_test_util.c
NPU_FUZZ_REPLAY	:= $(BUILD)/bin/npu_fuzz_replay
NPU_FUZZ_REPLAY_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(NPU_FUZZ_COMMON) \
			  $(NPU_FUZZ_SRC)/npu_fuzz_replay.c)

$(NPU_FUZZ_REPLAY_OBJS): CPPFLAGS += $(UAPI_CFLAGS)

$(NPU_FUZZ_REPLAY): $(NPU_FUZZ_REPLAY_OBJS) $(TRANSPORT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(NPU_FUZZ_REPLAY_OBJS) $(TRANSPORT_LIBS) \
		$(TRANSPORT_LDLIBS) -lm

BINS += $(NPU_FUZZ_REPLAY)
TESTS += $(NPU_FUZZ_SRC)/fuzz_check.sh

# ---- clang builds: the libFuzzer target and a coverage replayer ----
NPU_FUZZ_DIR	:= $(BUILD)/fuzz
NPU_FUZZ	:= $(NPU_FUZZ_DIR)/npu_fuzz
NPU_FUZZ_COV	:= $(NPU_FUZZ_DIR)/npu_fuzz_cov
HAVE_LIBFUZZER	:= $(if $(wildcard $(shell clang --print-runtime-dir \
			2>/dev/null)/libclang_rt.fuzzer-x86_64.a),1)
# Everything the in-process device is made of, plus the fuzzer's own.
NPU_FUZZ_DEV_SRCS = $(CORE_SRCS) $(POOL_SRCS) $(OPS_SRCS) $(TRANSPORT_SRCS) \
		    $(NPU_FUZZ_COMMON)
NPU_FUZZ_CFLAGS	:= $(CSTD) $(filter-out -Werror,$(WARN)) -g -O1 \
		   -fno-omit-frame-pointer -ffp-contract=off -fno-math-errno \
		   -fno-strict-aliasing $(UAPI_CFLAGS) -Ikernel/npu_drv
NPU_FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined
NPU_FUZZ_OBJS	= $(patsubst %.c,$(NPU_FUZZ_DIR)/obj/%.o,$(NPU_FUZZ_DEV_SRCS) \
		  $(NPU_FUZZ_SRC)/npu_fuzz_target.c)
NPU_FUZZ_COV_OBJS = $(patsubst %.c,$(NPU_FUZZ_DIR)/cov-obj/%.o, \
		    $(NPU_FUZZ_DEV_SRCS) $(NPU_FUZZ_SRC)/npu_fuzz_replay.c)

$(NPU_FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(NPU_FUZZ_CFLAGS) $(NPU_FUZZ_SAN) -fsanitize=fuzzer-no-link \
		-MMD -MP -c $< -o $@

$(NPU_FUZZ_DIR)/cov-obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(NPU_FUZZ_CFLAGS) -fprofile-instr-generate -fcoverage-mapping \
		-MMD -MP -c $< -o $@

$(NPU_FUZZ): $(NPU_FUZZ_OBJS)
	clang -fsanitize=fuzzer $(NPU_FUZZ_SAN) -o $@ $^ $(TRANSPORT_LDLIBS) -lm

$(NPU_FUZZ_COV): $(NPU_FUZZ_COV_OBJS)
	clang -fprofile-instr-generate -o $@ $^ $(TRANSPORT_LDLIBS) -lm

-include $(shell find $(NPU_FUZZ_DIR)/obj $(NPU_FUZZ_DIR)/cov-obj \
	   -name '*.d' 2>/dev/null)

ifeq ($(HAVE_LIBFUZZER),1)
BINS += $(NPU_FUZZ)
endif

.PHONY: fuzz-campaign fuzz-seeds
fuzz-campaign: $(NPU_FUZZ) $(NPU_FUZZ_COV)
	BUILD=$(BUILD) $(NPU_FUZZ_SRC)/fuzz_campaign.sh

fuzz-seeds: $(NPU_FUZZ_REPLAY)
	rm -f $(NPU_FUZZ_CORPUS)/seed-*
	@mkdir -p $(NPU_FUZZ_CORPUS)
	NPU_SIM_GUARD=1 $(NPU_FUZZ_REPLAY) --device sim \
		--write-seeds $(NPU_FUZZ_CORPUS)

# ---- the image decoder (libnpurt/src/image_decode.c) ----
NPU_FUZZ_IMAGE_SRCS := libnpurt/src/image_decode.c $(NPU_FUZZ_SRC)/npu_fuzz_image.c
NPU_FUZZ_IMAGE_REPLAY := $(BUILD)/bin/npu_fuzz_image_replay
NPU_FUZZ_IMAGE	:= $(NPU_FUZZ_DIR)/npu_fuzz_image

$(NPU_FUZZ_IMAGE_REPLAY): $(NPU_FUZZ_IMAGE_SRCS) libnpurt/src/image_decode.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DNPU_FUZZ_IMAGE_MAIN -Ilibnpurt/src $(IMG_CFLAGS) \
		$(NPU_FUZZ_IMAGE_SRCS) $(IMG_LIBS) -o $@

$(NPU_FUZZ_IMAGE): $(NPU_FUZZ_IMAGE_SRCS) libnpurt/src/image_decode.h
	@mkdir -p $(dir $@)
	clang $(NPU_FUZZ_CFLAGS) $(NPU_FUZZ_SAN) -fsanitize=fuzzer \
		-Ilibnpurt/src $(IMG_CFLAGS) $(NPU_FUZZ_IMAGE_SRCS) \
		$(IMG_LIBS) -o $@

BINS += $(NPU_FUZZ_IMAGE_REPLAY)
ifeq ($(HAVE_LIBFUZZER),1)
BINS += $(NPU_FUZZ_IMAGE)
endif
TESTS += $(NPU_FUZZ_SRC)/image_fuzz_check.sh
