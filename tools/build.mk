# SPDX-License-Identifier: MIT
# What the tools share: --version and the options hints name, and their
# installation.
TESTS += tools/test_cli.sh

# Every tool (each directory's build.mk builds its own).
NPU_TOOLS := npuc npu-run npu-om npu-smi npu-plan npu-quant

.PHONY: install-tools
install: install-tools
install-tools: $(NPU_TOOLS:%=$(BUILD)/bin/%)
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $^ $(DESTDIR)$(BINDIR)/
