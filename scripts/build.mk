# SPDX-License-Identifier: MIT
#
# checkpatch.pl --strict over the kernel module's sources (TAP, part of
# `make check`; skips without Debian's linux-source tarball).

TESTS += scripts/checkpatch.sh

.PHONY: checkpatch
checkpatch:
	BUILD=$(BUILD) scripts/checkpatch.sh
