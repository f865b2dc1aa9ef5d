# SPDX-License-Identifier: MIT
# What the tools share: --version and the options hints name.
TESTS += tools/test_cli.sh
