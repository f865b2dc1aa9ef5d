// SPDX-License-Identifier: MIT
/*
 * faulty_ops.c - a plugin whose host kernel misbehaves on request, for the
 * host engine's safety checks (examples/plugin/test_plugin.sh).
 *
 * test.faulty::Faulty(X; mode): Y = 2 * X (f32), mode
 *   0  correct
 *   1  returns an error with a message
 *   2  writes one element past Y
 *   3  "wrong shape": its inference gives Y half of X's elements, the
 *      kernel writes all of them
 *   4  writes one element before Y
 */
#include <stdio.h>
#include <string.h>

#include "npuc_plugin.h"

static int infer(struct npuc_infer_ctx *c)
{
	int64_t mode = c->attrs->get_int(c->attrs->ctx, "mode", 0);

	c->outputs[0] = c->inputs[0];
	if (mode == 3 && c->inputs[0].rank >= 1 &&
	    !NPUC_DIM_IS_SYMBOL(c->inputs[0].dims[0]))
		c->outputs[0].dims[0] = c->inputs[0].dims[0] / 2;
	return 0;
}

static int kernel(struct npuc_host_call *c)
{
	int64_t mode = c->attrs->get_int(c->attrs->ctx, "mode", 0);
	const float *x = c->inputs[0].data;
	float *y = c->outputs[0].data;
	size_t n = c->inputs[0].bytes / sizeof(float);

	if (mode == 1) {
		snprintf(c->err, c->errlen, "mode 1 asks for a failure");
		return -5;
	}
	if (mode != 3)
		n = c->outputs[0].bytes / sizeof(float);
	for (size_t i = 0; i < n; i++)
		y[i] = 2 * x[i];
	if (mode == 2)
		y[n] = 1.0f;
	if (mode == 4)
		y[-1] = 1.0f;
	return 0;
}

static const struct npuc_attr_schema attrs[] = {
	{ "mode", NPUC_ATTR_INT, 1 },
};

static const struct npuc_plugin_op ops[] = { {
	.struct_size = sizeof(struct npuc_plugin_op),
	.domain = "test.faulty", .op_type = "Faulty",
	.min_inputs = 1, .max_inputs = 1, .min_outputs = 1, .max_outputs = 1,
	.attrs = attrs, .num_attrs = 1, .infer = infer, .host_kernel = kernel,
} };

static const struct npuc_plugin plugin = {
	.struct_size = sizeof(struct npuc_plugin),
	.abi_version = NPUC_PLUGIN_ABI_VERSION,
	.name = "faulty-ops", .version = "0.1", .ops = ops, .num_ops = 1,
};

const struct npuc_plugin *npuc_plugin_entry(void)
{
	return &plugin;
}
