#!/bin/sh
# SPDX-License-Identifier: MIT
# TAP: the per-section pages of libnpurt (npurt_*(3)) are what
# gen_npurt_pages.py makes of npurt.h today, and together they document
# every function of the header.
cd "$(dirname "$0")/../.." || exit 1
echo "1..2"
if /usr/bin/python3 Documentation/man/gen_npurt_pages.py --check \
	libnpurt/include/npurt.h Documentation/man; then
	echo "ok 1 - Documentation/man/npurt_*.rst match npurt.h"
else
	echo "not ok 1 - Documentation/man/npurt_*.rst match npurt.h (make man-pages)"
fi
missing=$(grep -oE '\bnpurt_[a-z0-9_]+\(' libnpurt/include/npurt.h |
	tr -d '(' | sort -u | while read -r f; do
		grep -q "\*\*$f\*\*" Documentation/man/npurt_*.rst || echo "$f"
	done | tr '\n' ' ')
if [ -z "$missing" ]; then
	echo "ok 2 - every function of npurt.h has its entry in a section page"
else
	echo "not ok 2 - functions without a section page entry: $missing"
fi
