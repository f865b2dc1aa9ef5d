# SPDX-License-Identifier: MIT
# Examples: built against the *installed* library by their test.
TESTS		+= examples/test_example.sh
TESTS		+= examples/test_image_pipeline.sh
