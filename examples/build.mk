# SPDX-License-Identifier: MIT
# Examples: built against the *installed* library by their test.
TESTS		+= examples/test_example.sh
TESTS		+= examples/test_image_pipeline.sh

# The example operator plugin (Documentation/plugins.rst): only the
# installed-style header, no library of the stack linked.
EXAMPLE_PLUGIN	:= $(BUILD)/examples/libexample_ops.so
$(EXAMPLE_PLUGIN): examples/plugin/example_ops.c compiler/include/npuc_plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -fPIC -shared -Icompiler/include $< -lm -o $@
BINS		+= $(EXAMPLE_PLUGIN)
TESTS		+= examples/plugin/test_plugin.sh
FAULTY_PLUGIN	:= $(BUILD)/examples/tests/libfaulty_ops.so
$(FAULTY_PLUGIN): examples/plugin/tests/faulty_ops.c compiler/include/npuc_plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -fPIC -shared -Icompiler/include $< -o $@
BINS		+= $(FAULTY_PLUGIN)
