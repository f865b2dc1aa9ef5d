/* SPDX-License-Identifier: MIT */
/* images.h - npu-run --images: classify a directory of JPEG/PNG files. */
#ifndef NPU_RUN_IMAGES_H
#define NPU_RUN_IMAGES_H

#include <stdio.h>

#include "npurt.h"

struct images_opts {
	const char *dir;		/* --images */
	const char *labels;		/* --labels, or NULL */
	int top_k;			/* --top-k (default 5) */
	int nearest;			/* --resize nearest */
	unsigned long long max_pixels;	/* --max-pixels (0: default) */
};

/*
 * Decode each file of @io->dir (sorted by name) into device memory,
 * resize it on the media unit to input 0 of @m (u8 [1, H, W, 3]: a model
 * compiled with an RGB888 AIPP config), run @m and print the top-k of
 * output 0 to @out. A file that does not decode is reported on stderr
 * and skipped. Returns 0 when every file ran, 2 when some were refused
 * (or none was found), 3 on a runtime error.
 */
int run_images(npurt_context *ctx, npurt_model *m,
	       const struct images_opts *io, FILE *out, FILE *json);

#endif
