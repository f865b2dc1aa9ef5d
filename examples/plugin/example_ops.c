// SPDX-License-Identifier: MIT
/*
 * example_ops.c - an operator plugin for npuc and libnpurt
 * (Documentation/plugins.rst walks through it).
 *
 * Two ops of the domain "com.example":
 *
 *  - Swish(X; beta = 1.0) = X * Sigmoid(beta * X): a custom activation
 *    served by a decomposition into Mul, Sigmoid, Mul, which the compiler
 *    then fuses and runs on the device like any other ops;
 *  - RoIAlign(X, rois, batch_indices; output_height, output_width,
 *    sampling_ratio, spatial_scale) with the semantics of ONNX RoIAlign-16
 *    (mode "avg", coordinate_transformation_mode "half_pixel"): a
 *    detection op served by a host kernel, placed on the host engine.
 *
 * Built by `make` as $(BUILD)/examples/libexample_ops.so with only
 * npuc_plugin.h; nothing links against libnpuc or libnpurt.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npuc_plugin.h"

/* ---- Swish: shape inference and decomposition ---- */

static int swish_infer(struct npuc_infer_ctx *c)
{
	if (c->inputs[0].dtype != NPUC_DT_F32) {
		snprintf(c->err, c->errlen, "X must be float32");
		return -22;
	}
	c->outputs[0] = c->inputs[0];	/* symbolic dims copied as they are */
	return 0;
}

static int swish_decompose(struct npuc_builder *b)
{
	float beta = b->attrs->get_float(b->attrs->ctx, "beta", 1.0f);
	npuc_value x = 0, k, bx, s, y;
	int ret;

	k = b->constant(b->ctx, NPUC_DT_F32, 0, NULL, &beta);
	if (k < 0)
		return k;
	ret = b->node(b->ctx, "Mul", (npuc_value[]){ x, k }, 2, &bx, 1,
		      NULL, 0);
	if (!ret)
		ret = b->node(b->ctx, "Sigmoid", &bx, 1, &s, 1, NULL, 0);
	if (!ret)
		ret = b->node(b->ctx, "Mul", (npuc_value[]){ x, s }, 2, &y, 1,
			      NULL, 0);
	if (!ret)
		ret = b->set_output(b->ctx, 0, y);
	return ret;
}

static const struct npuc_attr_schema swish_attrs[] = {
	{ "beta", NPUC_ATTR_FLOAT, 0 },
};

/* ---- RoIAlign: shape inference and the host kernel ---- */

static int roi_infer(struct npuc_infer_ctx *c)
{
	const struct npuc_tensor_type *x = &c->inputs[0], *r = &c->inputs[1];
	const struct npuc_tensor_type *bi = &c->inputs[2];
	int64_t oh = c->attrs->get_int(c->attrs->ctx, "output_height", 1);
	int64_t ow = c->attrs->get_int(c->attrs->ctx, "output_width", 1);

	if (x->dtype != NPUC_DT_F32 || x->rank != 4 || r->dtype != NPUC_DT_F32 ||
	    r->rank != 2 || (!NPUC_DIM_IS_SYMBOL(r->dims[1]) && r->dims[1] != 4) ||
	    (bi->dtype != NPUC_DT_I64 && bi->dtype != NPUC_DT_I32) ||
	    bi->rank != 1) {
		snprintf(c->err, c->errlen, "want X f32 [N,C,H,W], rois f32 "
			 "[R,4], batch_indices i64 [R]");
		return -22;
	}
	if (oh < 1 || ow < 1 || oh > 4096 || ow > 4096) {
		snprintf(c->err, c->errlen, "output_height/width in 1..4096");
		return -22;
	}
	c->outputs[0].dtype = NPUC_DT_F32;
	c->outputs[0].rank = 4;
	c->outputs[0].dims[0] = r->dims[0];
	c->outputs[0].dims[1] = x->dims[1];
	c->outputs[0].dims[2] = oh;
	c->outputs[0].dims[3] = ow;
	return 0;
}

/* Bilinear sample of plane @p (h x w) at (y, x), ONNX RoIAlign's rule. */
static float bilinear(const float *p, int64_t h, int64_t w, float y, float x)
{
	int64_t y0, x0, y1, x1;
	float ly, lx;

	if (y < -1.0f || y > (float)h || x < -1.0f || x > (float)w)
		return 0.0f;
	if (y <= 0)
		y = 0;
	if (x <= 0)
		x = 0;
	y0 = (int64_t)y;
	x0 = (int64_t)x;
	if (y0 >= h - 1) {
		y1 = y0 = h - 1;
		y = (float)y0;
	} else {
		y1 = y0 + 1;
	}
	if (x0 >= w - 1) {
		x1 = x0 = w - 1;
		x = (float)x0;
	} else {
		x1 = x0 + 1;
	}
	ly = y - (float)y0;
	lx = x - (float)x0;
	return (1 - ly) * (1 - lx) * p[y0 * w + x0] +
	       (1 - ly) * lx * p[y0 * w + x1] +
	       ly * (1 - lx) * p[y1 * w + x0] + ly * lx * p[y1 * w + x1];
}

static int roi_kernel(struct npuc_host_call *c)
{
	const struct npuc_host_tensor *X = &c->inputs[0], *R = &c->inputs[1];
	const struct npuc_host_tensor *B = &c->inputs[2];
	struct npuc_host_tensor *Y = &c->outputs[0];
	const void *ctx = c->attrs->ctx;
	int64_t sr = c->attrs->get_int(ctx, "sampling_ratio", 0);
	float scale = c->attrs->get_float(ctx, "spatial_scale", 1.0f);
	int64_t n = X->dims[0], ch = X->dims[1], h = X->dims[2], w = X->dims[3];
	int64_t nr = R->dims[0], oh = Y->dims[2], ow = Y->dims[3];
	const float *x = X->data, *rois = R->data;
	float *y = Y->data;

	for (int64_t r = 0; r < nr; r++) {
		int64_t b = B->dtype == NPUC_DT_I64 ?
			    ((const int64_t *)B->data)[r] :
			    ((const int32_t *)B->data)[r];
		float x1 = rois[r * 4] * scale - 0.5f;
		float y1 = rois[r * 4 + 1] * scale - 0.5f;
		float x2 = rois[r * 4 + 2] * scale - 0.5f;
		float y2 = rois[r * 4 + 3] * scale - 0.5f;
		float rh = y2 - y1, rw = x2 - x1, bh, bw;
		int64_t gh, gw;

		if (b < 0 || b >= n) {
			snprintf(c->err, c->errlen, "roi %lld: batch index "
				 "%lld outside [0, %lld)", (long long)r,
				 (long long)b, (long long)n);
			return -22;
		}
		bh = rh / (float)oh;
		bw = rw / (float)ow;
		gh = sr > 0 ? sr : (int64_t)ceilf(rh / (float)oh);
		gw = sr > 0 ? sr : (int64_t)ceilf(rw / (float)ow);
		if (gh < 1)
			gh = 1;
		if (gw < 1)
			gw = 1;
		for (int64_t k = 0; k < ch; k++) {
			const float *p = x + (b * ch + k) * h * w;

			for (int64_t i = 0; i < oh; i++)
				for (int64_t j = 0; j < ow; j++) {
					float acc = 0;

					for (int64_t u = 0; u < gh; u++)
						for (int64_t v = 0; v < gw; v++)
							acc += bilinear(p, h, w,
								y1 + (float)i * bh +
								((float)u + 0.5f) * bh /
								(float)gh,
								x1 + (float)j * bw +
								((float)v + 0.5f) * bw /
								(float)gw);
					y[((r * ch + k) * oh + i) * ow + j] =
						acc / (float)(gh * gw);
				}
		}
	}
	return 0;
}

static const struct npuc_attr_schema roi_attrs[] = {
	{ "output_height", NPUC_ATTR_INT, 0 },
	{ "output_width", NPUC_ATTR_INT, 0 },
	{ "sampling_ratio", NPUC_ATTR_INT, 0 },
	{ "spatial_scale", NPUC_ATTR_FLOAT, 0 },
	{ "mode", NPUC_ATTR_STRING, 0 },
	{ "coordinate_transformation_mode", NPUC_ATTR_STRING, 0 },
};

static const struct npuc_plugin_op ops[] = {
	{
		.struct_size = sizeof(struct npuc_plugin_op),
		.domain = "com.example", .op_type = "Swish",
		.opset_min = 1, .opset_max = 1,
		.min_inputs = 1, .max_inputs = 1,
		.min_outputs = 1, .max_outputs = 1,
		.attrs = swish_attrs, .num_attrs = 1,
		.infer = swish_infer, .decompose = swish_decompose,
	},
	{
		.struct_size = sizeof(struct npuc_plugin_op),
		.domain = "com.example", .op_type = "RoIAlign",
		.opset_min = 1, .opset_max = 1,
		.min_inputs = 3, .max_inputs = 3,
		.min_outputs = 1, .max_outputs = 1,
		.attrs = roi_attrs, .num_attrs = 6,
		.infer = roi_infer, .host_kernel = roi_kernel,
	},
};

static const struct npuc_plugin plugin = {
	.struct_size = sizeof(struct npuc_plugin),
	.abi_version = NPUC_PLUGIN_ABI_VERSION,
	.name = "example-ops",
	.version = "1.0.0",
	.ops = ops,
	.num_ops = 2,
};

const struct npuc_plugin *npuc_plugin_entry(void)
{
	return &plugin;
}
