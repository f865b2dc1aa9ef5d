#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: every Documentation/*.rst page and man page source parses without a
# docutils warning (rst_lint.py says which markup is checked and why).
cd "$(dirname "$0")/.." || exit 1
exec /usr/bin/python3 Documentation/rst_lint.py Documentation/*.rst \
	Documentation/man/*.rst
