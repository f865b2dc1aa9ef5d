# SPDX-License-Identifier: MIT
#
# Generic rules. Fragments (*/build.mk) append to:
#   BINS       programs, built into $(BUILD)/bin/
#   TESTS      TAP test programs or scripts, run by `make check` through prove
#   SAN_TESTS  the subset that `make check-san` runs in the ASan/UBSan build
#   CLEAN      extra files to remove
# and add their own rules for libraries and programs. Objects go to
# $(BUILD)/obj/<source path>.o with dependency files beside them.
#
# `make install`: a part that installs something adds its own rule as a
# prerequisite of `install` (install: install-<part>) and installs into
# $(DESTDIR) with the directories of mk/common.mk ($(BINDIR), $(LIBDIR),
# $(INCLUDEDIR), $(PKGCONFIGDIR), $(MANDIR), $(DOCDIR)): libnpurt,
# compiler/libnpuc, tools, Documentation do; the Python package is to do
# the same (and get its Debian package in debian/control).

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_$(subst /,_,$*)) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Objects built only through a pattern chain are kept like the others.
.SECONDARY:

.PHONY: all check check-san clean install
all: $(BINS) $(TESTS)

PROVE ?= prove
PROVE_FLAGS ?= -f --timer

# The C unit tests and selftests again, built with ASan and UBSan into
# build-san/ (a second tree, so both builds stay incremental).
SAN_RUN := $(SAN_TESTS:build/%=build-san/%)
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: san-build check-plain
san-build:
	$(MAKE) SAN=1 BUILD=build-san $(SAN_RUN)

# Everything, in one prove run so the totals are counted in one place.
check: all san-build
	$(SAN_ENV) $(PROVE) $(PROVE_FLAGS) -e '' $(TESTS) $(SAN_RUN)

# Only the normal build's tests, or only the sanitizer build's.
check-plain: all
	$(PROVE) $(PROVE_FLAGS) -e '' $(TESTS)

check-san: san-build
	$(SAN_ENV) $(PROVE) $(PROVE_FLAGS) -e '' $(SAN_RUN)

clean:
	rm -rf build build-san $(CLEAN)
