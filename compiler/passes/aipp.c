// SPDX-License-Identifier: MIT
/*
 * aipp.c - the AIPP config and the npu.Aipp node (aipp.h).
 *
 * The config is ATC's insert_op_conf text: an optional `aipp_op { ... }`
 * block of `key : value` lines, `#` comments. The model input it names
 * becomes a u8 image of src_image_size ([N, H, W, C] for packed formats,
 * [N, H * 3 / 2, W] for YUV420SP: the Y rows then the UV rows, [N, H, W]
 * for YUV400) and keeps its name; the f32 NCHW tensor the model read is
 * now the output of one npu.Aipp node (crop, padding, CSC, channel swap,
 * normalisation: the device's AIPP task).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aipp.h"
#include "passes.h"

#define DYN_SIZE	76	/* DRM_NPU_AIPP_DYN_SIZE */

static const struct {
	const char *name;
	int fmt;
} formats[] = {
	{ "YUV420SP_U8", AIPP_NV12 }, { "NV12", AIPP_NV12 },
	{ "YVU420SP_U8", AIPP_NV21 }, { "NV21", AIPP_NV21 },
	{ "RGB888_U8", AIPP_RGB888 }, { "BGR888_U8", AIPP_BGR888 },
	{ "XRGB8888_U8", AIPP_XRGB8888 }, { "YUV400_U8", AIPP_YUV400 },
};

static bool is_yuv420(int f)
{
	return f == AIPP_NV12 || f == AIPP_NV21;
}

static int channels_in(int f)
{
	return f == AIPP_XRGB8888 ? 4 : f == AIPP_RGB888 ||
	       f == AIPP_BGR888 ? 3 : 1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long x = strtoll(v, &end, 10);

	if (end == v || *trim(end) || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int parse_float(const char *v, float *out)
{
	char *end;
	float x = strtof(v, &end);

	if (end == v || *trim(end) || !isfinite(x))
		return -1;
	*out = x;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

/* Keys with an index suffix: "mean_chn_2" -> base "mean_chn_", 2. */
static bool indexed(const char *key, const char *base, int n, int *i)
{
	size_t l = strlen(base);

	if (strncmp(key, base, l) || !key[l] || key[l + 1] ||
	    key[l] < '0' || key[l] >= '0' + n)
		return false;
	*i = key[l] - '0';
	return true;
}

static int set_key(struct aipp_conf *c, const char *k, const char *v)
{
	const int64_t big = 65536;
	int i, r, col;

	if (!strcmp(k, "aipp_mode")) {
		if (strcmp(v, "static") && strcmp(v, "dynamic"))
			return -2;
		c->dynamic = !strcmp(v, "dynamic");
		return 0;
	}
	if (!strcmp(k, "related_input_rank")) {
		int64_t x;

		if (parse_int(v, 0, 1 << 20, &x))
			return -1;
		c->related_input_rank = (int)x;
		return 0;
	}
	if (!strcmp(k, "input_format")) {
		for (i = 0; i < (int)(sizeof(formats) / sizeof(formats[0])); i++)
			if (!strcmp(v, formats[i].name)) {
				c->format = formats[i].fmt;
				return 0;
			}
		return -1;
	}
	if (!strcmp(k, "src_image_size_w"))
		return parse_int(v, 0, big, &c->src_w);
	if (!strcmp(k, "src_image_size_h"))
		return parse_int(v, 0, big, &c->src_h);
	if (!strcmp(k, "crop"))
		return parse_bool(v, &c->crop);
	if (!strcmp(k, "load_start_pos_w"))
		return parse_int(v, 0, big, &c->crop_x);
	if (!strcmp(k, "load_start_pos_h"))
		return parse_int(v, 0, big, &c->crop_y);
	if (!strcmp(k, "crop_size_w"))
		return parse_int(v, 0, big, &c->crop_w);
	if (!strcmp(k, "crop_size_h"))
		return parse_int(v, 0, big, &c->crop_h);
	if (!strcmp(k, "padding"))
		return parse_bool(v, &c->padding);
	if (!strcmp(k, "left_padding_size"))
		return parse_int(v, 0, big, &c->pad_left);
	if (!strcmp(k, "right_padding_size"))
		return parse_int(v, 0, big, &c->pad_right);
	if (!strcmp(k, "top_padding_size"))
		return parse_int(v, 0, big, &c->pad_top);
	if (!strcmp(k, "bottom_padding_size"))
		return parse_int(v, 0, big, &c->pad_bottom);
	if (!strcmp(k, "padding_value"))
		return parse_float(v, &c->pad_value);
	if (!strcmp(k, "csc_switch"))
		return parse_bool(v, &c->csc);
	if (!strcmp(k, "rbuv_swap_switch"))
		return parse_bool(v, &c->rbuv_swap);
	if (sscanf(k, "matrix_r%dc%d", &r, &col) == 2 && r >= 0 && r < 3 &&
	    col >= 0 && col < 3 && strlen(k) == 11) {
		c->matrix_set = true;
		return parse_int(v, -32768, 32767, &c->matrix[r * 3 + col]);
	}
	if (indexed(k, "input_bias_", 3, &i))
		return parse_int(v, 0, 255, &c->input_bias[i]);
	if (indexed(k, "output_bias_", 3, &i))
		return parse_int(v, 0, 255, &c->output_bias[i]);
	if (indexed(k, "mean_chn_", 4, &i))
		return parse_int(v, 0, 255, &c->mean[i]);
	if (indexed(k, "min_chn_", 4, &i))
		return parse_float(v, &c->min[i]);
	if (indexed(k, "var_reci_chn_", 4, &i))
		return parse_float(v, &c->var_reci[i]);
	return -3;
}

int aipp_conf_parse(const char *text, const char *name, struct aipp_conf *c,
		    char *err, size_t errlen)
{
	char *buf = strdup(text ? text : ""), *line, *save = NULL;
	int ln = 0, depth = 0, blocks = 0, ret = 0;
	bool have_format = false;

	memset(c, 0, sizeof(*c));
	c->format = -1;
	for (int i = 0; i < 4; i++)
		c->var_reci[i] = 1.0f;
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *s, *colon, *hash = strchr(line, '#');
		int r;

		ln++;
		if (hash)
			*hash = 0;
		s = trim(line);
		if (!*s)
			continue;
		if (!strcmp(s, "aipp_op {") || !strcmp(s, "aipp_op{")) {
			if (depth || ++blocks > 1) {
				snprintf(err, errlen, "%s:%d: one aipp_op block "
					 "(one image input) is supported", name, ln);
				ret = -EINVAL;
			}
			depth = 1;
			continue;
		}
		if (!strcmp(s, "}")) {
			if (!depth) {
				snprintf(err, errlen, "%s:%d: '}' without "
					 "aipp_op {", name, ln);
				ret = -EINVAL;
			}
			depth = 0;
			continue;
		}
		colon = strchr(s, ':');
		if (!colon) {
			snprintf(err, errlen, "%s:%d: expected 'key : value', "
				 "got '%s'", name, ln, s);
			ret = -EINVAL;
			break;
		}
		*colon = 0;
		s = trim(s);
		colon = trim(colon + 1);
		if (*colon == '"') {	/* "static", quoted enums */
			size_t l = strlen(colon);

			if (l >= 2 && colon[l - 1] == '"') {
				colon[l - 1] = 0;
				colon++;
			}
		}
		r = set_key(c, s, colon);
		if (!strcmp(s, "input_format") && !r)
			have_format = true;
		if (!r && (!strncmp(s, "matrix_", 7) || !strncmp(s, "mean_", 5) ||
			   !strncmp(s, "min_", 4) || !strncmp(s, "var_reci", 8) ||
			   !strncmp(s, "input_bias", 10) ||
			   !strncmp(s, "output_bias", 11) ||
			   !strcmp(s, "csc_switch") ||
			   !strcmp(s, "rbuv_swap_switch") ||
			   !strcmp(s, "padding_value")))
			c->params_set = true;
		if (r == -3)
			snprintf(err, errlen, "%s:%d: unknown key '%s' "
				 "(Documentation/media.rst lists the keys)",
				 name, ln, s);
		else if (r == -2)
			snprintf(err, errlen, "%s:%d: aipp_mode '%s': use "
				 "static or dynamic", name, ln, colon);
		else if (r)
			snprintf(err, errlen, "%s:%d: bad value '%s' for '%s'",
				 name, ln, colon, s);
		if (r)
			ret = -EINVAL;
	}
	free(buf);
	if (!ret && depth) {
		snprintf(err, errlen, "%s: aipp_op { is not closed", name);
		ret = -EINVAL;
	}
	if (!ret && !have_format) {
		snprintf(err, errlen, "%s: input_format is required "
			 "(YUV420SP_U8, YVU420SP_U8, RGB888_U8, BGR888_U8, "
			 "XRGB8888_U8 or YUV400_U8)", name);
		ret = -EINVAL;
	}
	if (!ret && !c->padding && (c->pad_top || c->pad_left ||
				    c->pad_bottom || c->pad_right)) {
		snprintf(err, errlen, "%s: padding sizes set but padding is "
			 "false", name);
		ret = -EINVAL;
	}
	if (!ret && c->dynamic && c->params_set) {
		snprintf(err, errlen, "%s: aipp_mode dynamic takes csc, swap, "
			 "matrix, biases, mean, min, var_reci and padding_value "
			 "per execution (the model's extra input); leave them "
			 "out of the config", name);
		ret = -EINVAL;
	}
	if (!ret && c->dynamic && c->format == AIPP_YUV400) {
		snprintf(err, errlen, "%s: dynamic AIPP needs a colour "
			 "input_format", name);
		ret = -EINVAL;
	}
	if (!ret && c->csc && !c->matrix_set && is_yuv420(c->format)) {
		/* JFIF BT.601 full range, as a JPEG decoder converts */
		static const int64_t m[9] = { 256, 0, 359, 256, -88, -183,
					      256, 454, 0 };

		memcpy(c->matrix, m, sizeof(m));
		c->input_bias[1] = c->input_bias[2] = 128;
		c->matrix_set = true;
	}
	if (!ret && c->csc && !c->matrix_set) {
		snprintf(err, errlen, "%s: csc_switch needs matrix_r0c0.."
			 "matrix_r2c2", name);
		ret = -EINVAL;
	}
	return ret;
}

int aipp_insert(struct ir_graph *g, const struct aipp_conf *c, char *err,
		size_t errlen)
{
	struct ir_tensor *x, *img;
	struct ir_shape s;
	struct ir_node *n;
	int64_t h, w, ch, oh, ow, cw, chh, cx = 0, cy = 0, pads[4];
	int64_t attr[9], mean[4];
	int ch_out = c->csc || c->format != AIPP_YUV400 ? 3 : 1;
	char name[300];
	int i, idx = c->related_input_rank;

	if (idx >= g->num_inputs) {
		snprintf(err, errlen, "AIPP: related_input_rank %d; the model "
			 "has %d inputs", idx, g->num_inputs);
		return -EINVAL;
	}
	x = g->inputs[idx];
	s = x->shape;
	if (x->dtype != IR_F32 || s.rank != 4 || IR_DIM_IS_SYM(s.dim[1]) ||
	    IR_DIM_IS_SYM(s.dim[2]) || IR_DIM_IS_SYM(s.dim[3]) ||
	    s.dim[1] != ch_out) {
		snprintf(err, errlen, "AIPP: input '%s' must be f32 NCHW with "
			 "%d channels (what this AIPP writes) and a static H "
			 "and W; it is %s %s", x->name, ch_out,
			 ir_dtype_name(x->dtype),
			 ir_shape_str(g, &s, name, sizeof(name)));
		return -EINVAL;
	}
	pads[0] = c->pad_top;
	pads[1] = c->pad_left;
	pads[2] = c->pad_bottom;
	pads[3] = c->pad_right;
	oh = s.dim[2];
	ow = s.dim[3];
	/* the image before padding: the crop, or the whole source */
	chh = oh - pads[0] - pads[2];
	cw = ow - pads[1] - pads[3];
	h = c->src_h ? c->src_h : (c->crop && c->crop_h ? 0 : chh);
	w = c->src_w ? c->src_w : (c->crop && c->crop_w ? 0 : cw);
	if (c->crop) {
		cx = c->crop_x;
		cy = c->crop_y;
		if (c->crop_w && c->crop_w != cw)
			cw = -1;
		if (c->crop_h && c->crop_h != chh)
			chh = -1;
	}
	if (chh <= 0 || cw <= 0) {
		snprintf(err, errlen, "AIPP: input '%s' is %lldx%lld; crop "
			 "%lldx%lld plus padding (%lld,%lld,%lld,%lld) must "
			 "make exactly that", x->name, (long long)oh,
			 (long long)ow, (long long)c->crop_h,
			 (long long)c->crop_w, (long long)pads[0],
			 (long long)pads[1], (long long)pads[2],
			 (long long)pads[3]);
		return -EINVAL;
	}
	if (!h || !w || cx + cw > w || cy + chh > h) {
		snprintf(err, errlen, "AIPP: crop %lldx%lld at (%lld,%lld) "
			 "does not fit the source image %lldx%lld (set "
			 "src_image_size_w/h)", (long long)cw, (long long)chh,
			 (long long)cx, (long long)cy, (long long)w,
			 (long long)h);
		return -EINVAL;
	}
	if (is_yuv420(c->format) && ((h | w | cx | cy) & 1)) {
		snprintf(err, errlen, "AIPP: YUV420SP needs an even source "
			 "size and crop start (%lldx%lld at %lld,%lld)",
			 (long long)w, (long long)h, (long long)cx,
			 (long long)cy);
		return -EINVAL;
	}
	if (c->rbuv_swap && c->format == AIPP_YUV400) {
		snprintf(err, errlen, "AIPP: rbuv_swap_switch needs a colour "
			 "input_format");
		return -EINVAL;
	}
	/* the image input takes the model input's name and position */
	snprintf(name, sizeof(name), "%.250s", x->name);
	if (ir_tensor_rename(g, x, NULL))
		return -ENOMEM;
	ch = channels_in(c->format);
	{
		int64_t d[4] = { s.dim[0], is_yuv420(c->format) ? h * 3 / 2 : h,
				 w, ch };
		struct ir_shape is = ir_shape_make(ch > 1 ? 4 : 3, d);

		img = ir_tensor_new(g, name, IR_U8, &is);
	}
	if (!img)
		return -ENOMEM;
	img->layout = ch > 1 ? IR_LAYOUT_NHWC : IR_LAYOUT_ND;
	img->shape_known = true;
	if (x->origin)
		ir_tensor_set_origin(img, x->origin);
	g->inputs[idx] = img;
	img->is_input = true;
	x->is_input = false;
	if (c->dynamic) {
		/* the parameters of each execution: an input of its own */
		int64_t d1 = DYN_SIZE;
		struct ir_shape ds = ir_shape_make(1, &d1);
		struct ir_tensor *ins[2];

		snprintf(name, sizeof(name), "%.240s_aipp", img->name);
		ins[0] = img;
		ins[1] = ir_tensor_new(g, name, IR_U8, &ds);
		if (!ins[1] || ir_graph_add_input(g, ins[1]))
			return -ENOMEM;
		ins[1]->shape_known = true;
		snprintf(name, sizeof(name), "%.250s/aipp", img->name);
		n = ir_node_new(g, IR_OP_AIPP, name, 2, ins, 1, &x);
	} else {
		snprintf(name, sizeof(name), "%.250s/aipp", img->name);
		n = ir_node_new(g, IR_OP_AIPP, name, 1, &img, 1, &x);
	}
	if (!n)
		return -ENOMEM;
	for (i = 0; i < 9; i++)
		attr[i] = c->matrix[i];
	for (i = 0; i < 4; i++)
		mean[i] = i < ch_out ? c->mean[i] : 0;
	{
		int64_t crop[4] = { cx, cy, cw, chh };
		int64_t src[2] = { w, h };
		float mn[4] = { 0 }, vr[4] = { 0 };
		int ret;

		for (i = 0; i < ch_out && !c->dynamic; i++) {
			mn[i] = c->min[i];
			vr[i] = c->var_reci[i];
		}
		ret = ir_attr_set_int(n, "format", c->format) ||
		      ir_attr_set_int(n, "flags", (c->csc ? 1 : 0) |
				      (c->rbuv_swap ? 2 : 0) |
				      (c->dynamic ? 4 : 0)) ||
		      ir_attr_set_ints(n, "src", src, 2) ||
		      ir_attr_set_ints(n, "crop", crop, 4) ||
		      ir_attr_set_ints(n, "pads", pads, 4) ||
		      ir_attr_set_ints(n, "mean", mean, 4) ||
		      ir_attr_set_floats(n, "min", mn, 4) ||
		      ir_attr_set_floats(n, "var_reci", vr, 4) ||
		      ir_attr_set_float(n, "pad_value", c->pad_value);
		if (!ret && c->csc)
			ret = ir_attr_set_ints(n, "matrix", attr, 9) ||
			      ir_attr_set_ints(n, "input_bias", c->input_bias,
					       3) ||
			      ir_attr_set_ints(n, "output_bias",
					       c->output_bias, 3);
		if (ret)
			return -ENOMEM;
	}
	return ir_graph_toposort(g);
}

int aipp_fold_transdata(struct ir_graph *g)
{
	int i, folded = 0;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *td = g->nodes[i], *a;
		struct ir_tensor *mid;

		if (td->dead || td->op != IR_OP_TRANSDATA ||
		    td->outputs[0]->layout != IR_LAYOUT_NC1HWC0)
			continue;
		mid = td->inputs[0];
		a = pu_producer(mid, IR_OP_AIPP);
		if (!a || !pu_single_use(mid) || mid->shape.dim[1] > 16)
			continue;
		/* the AIPP task writes the 5HD tensor directly */
		pu_absorb(g, a, td);
		folded++;
		i = -1;		/* the node array changed */
	}
	return folded;
}
