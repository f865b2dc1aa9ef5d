/* SPDX-License-Identifier: MIT */
/*
 * aipp.h - `npuc --insert-op-conf`: the AIPP config (ATC's keys where they
 * make sense) and its insertion as the model's first node (npu.Aipp).
 * Documentation/media.rst, "AIPP config reference".
 */
#ifndef NPUC_AIPP_H
#define NPUC_AIPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

/* enum drm_npu_img_format values */
enum aipp_format {
	AIPP_NV12 = 0, AIPP_NV21 = 1, AIPP_RGB888 = 2, AIPP_BGR888 = 3,
	AIPP_XRGB8888 = 4, AIPP_YUV400 = 5,
};

struct aipp_conf {
	bool dynamic;			/* aipp_mode : dynamic */
	bool params_set;		/* a key dynamic mode takes at run time */
	int related_input_rank;
	int format;			/* enum aipp_format */
	int64_t src_w, src_h;		/* 0: from the model input */
	bool crop;
	int64_t crop_x, crop_y, crop_w, crop_h;
	bool padding;
	int64_t pad_top, pad_left, pad_bottom, pad_right;
	float pad_value;
	bool csc;
	bool matrix_set;
	int64_t matrix[9];
	int64_t input_bias[3], output_bias[3];
	bool rbuv_swap;
	int64_t mean[4];
	float min[4];
	float var_reci[4];
};

/*
 * Parse the config text (@name names it in errors). 0, or -EINVAL with
 * the line and the problem in @err.
 */
int aipp_conf_parse(const char *text, const char *name, struct aipp_conf *c,
		    char *err, size_t errlen);

/*
 * Make input @c->related_input_rank of @g a u8 image and insert the
 * npu.Aipp node that turns it into the f32 NCHW tensor the model read.
 * Before shape inference. 0, or -EINVAL with the reason in @err.
 */
int aipp_insert(struct ir_graph *g, const struct aipp_conf *c, char *err,
		size_t errlen);

/*
 * After the layout pass: an npu.Aipp whose only reader is a TransData to
 * NC1HWC0 writes NC1HWC0 itself. Returns the number of TransData removed.
 */
int aipp_fold_transdata(struct ir_graph *g);

#endif /* NPUC_AIPP_H */
