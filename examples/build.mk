# SPDX-License-Identifier: MIT
# [rt] examples: built against the *installed* library by their test.
TESTS		+= examples/test_example.sh
