# SPDX-License-Identifier: MIT
#
# Manual pages, generated from Documentation/man/*.rst with docutils'
# rst2man (Debian's python3-docutils): one page per tool (section 1) and
# the runtime API: npurt(3), the overview, and one page per API section
# (npurt_model(3), npurt_memory(3), ...), whose rst
# Documentation/man/gen_npurt_pages.py writes from npurt.h (make check
# fails when they differ from the header). `make man` builds them into
# $(BUILD)/man/; `make install` installs them with the documentation pages.

MAN1_PAGES	:= npuc npu-run npu-om npu-smi npu-plan npu-quant
NPURT_SECTIONS	:= error device stream memory model online profile
MAN3_PAGES	:= npurt $(NPURT_SECTIONS:%=npurt_%)
MAN_PAGES	:= $(MAN1_PAGES:%=$(BUILD)/man/%.1) $(MAN3_PAGES:%=$(BUILD)/man/%.3)

# --halt=warning: a page with a markup problem is an error, not a
# silently mangled page.
define MAN_RULE
$(BUILD)/man/%.$(1): Documentation/man/%.rst
	@mkdir -p $$(dir $$@)
	$$(RST2MAN) --halt=warning $$< $$@.tmp
	mv $$@.tmp $$@
endef
$(eval $(call MAN_RULE,1))
$(eval $(call MAN_RULE,3))

.PHONY: man install-man install-doc man-pages
man: $(MAN_PAGES)

# After a change of npurt.h: regenerate the per-section pages.
man-pages:
	$(PYTHON) Documentation/man/gen_npurt_pages.py \
		libnpurt/include/npurt.h Documentation/man

TESTS		+= Documentation/man/test_man_pages.sh Documentation/test_rst.sh

install: install-man install-doc
install-man: $(MAN_PAGES)
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 644 $(filter %.1,$^) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter %.3,$^) $(DESTDIR)$(MANDIR)/man3/

# The reStructuredText documentation (the operator table that npuc's
# messages point to among it).
install-doc:
	install -d $(DESTDIR)$(DOCDIR)
	install -m 644 $(wildcard Documentation/*.rst) $(DESTDIR)$(DOCDIR)/
