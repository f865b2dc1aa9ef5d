# SPDX-License-Identifier: MIT
#
# The Python package `npu` (python/npu: ctypes over libnpurt.so.1 and
# libnpuc.so.1): its TAP test in `make check`, and `make install-python`
# (which `make install` runs) into Debian's python path.

PYTHON_DIST	?= $(PREFIX)/lib/python3/dist-packages

TESTS		+= python/tests/test_npu.t

.PHONY: install-python
install: install-python
install-python:
	install -d $(DESTDIR)$(PYTHON_DIST)/npu
	install -m 644 python/npu/*.py $(DESTDIR)$(PYTHON_DIST)/npu/
