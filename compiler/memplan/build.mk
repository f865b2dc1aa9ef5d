# SPDX-License-Identifier: MIT
# Memory planning: a standalone library.

# mk/rules.mk defines objs after the fragments are read, so rules here
# use their own copy of it.
be_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

MEMPLAN_SRCS := compiler/memplan/problem.c compiler/memplan/greedy.c \
	compiler/memplan/hillclimb.c compiler/memplan/exact.c \
	compiler/memplan/portfolio.c compiler/memplan/verify.c \
	compiler/memplan/csv.c
MEMPLAN_LIB := $(BUILD)/lib/libnpuc_memplan.a

$(MEMPLAN_LIB): $(call be_objs,$(MEMPLAN_SRCS))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

MEMPLAN_TESTS := $(BUILD)/tests/memplan/test_memplan
# -Icompiler: tests/npuc_tap.h, the compiler tests' shared TAP producer
$(call be_objs,compiler/memplan/tests/test_memplan.c): CPPFLAGS += -Icompiler/memplan -Icompiler
$(BUILD)/tests/memplan/test_memplan: \
		$(call be_objs,compiler/memplan/tests/test_memplan.c) $(MEMPLAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

TESTS += $(MEMPLAN_TESTS) compiler/memplan/tests/minimalloc.sh
SAN_TESTS += $(MEMPLAN_TESTS)
