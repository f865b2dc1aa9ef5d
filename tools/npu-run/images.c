// SPDX-License-Identifier: MIT
/*
 * images.c - npu-run --images DIR: decode (libnpurt: libjpeg-turbo,
 * libpng) -> resize on the media unit -> the AIPP model -> top-k.
 * Documentation/npu-run.rst, "Images".
 */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "images.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lines of @path (the class names, one per line), or NULL. */
static char **read_labels(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[512], **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (*n == cap) {
			char **p = realloc(v, (cap = cap ? cap * 2 : 256) *
					   sizeof(*v));

			if (!p)
				break;
			v = p;
		}
		v[(*n)++] = strdup(line);
	}
	fclose(f);
	return v;
}

static char **list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **p = realloc(v, (cap = cap ? cap * 2 : 64) *
					   sizeof(*v));

			if (!p)
				break;
			v = p;
		}
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static const char *err_reason(void)
{
	return npurt_last_error()->reason;
}

int run_images(npurt_context *ctx, npurt_model *m,
	       const struct images_opts *io, FILE *out, FILE *json)
{
	npurt_tensor_desc in, od;
	npurt_decode_options dopt = { .max_pixels = io->max_pixels };
	npurt_resize_options ro = { .mode = io->nearest ?
				    NPURT_RESIZE_NEAREST : NPURT_RESIZE_BILINEAR };
	npurt_image dst;
	npurt_mem *omem = NULL;
	size_t nfiles = 0, nlabels = 0, ok = 0, bad = 0, i;
	char **files = NULL, **labels = NULL;
	float *logits = NULL;
	uint64_t t0, busy = 0;
	int ret = 0, k = io->top_k > 0 ? io->top_k : 5;

	memset(&dst, 0, sizeof(dst));
	if (npurt_model_get_input(m, 0, 0, &in) ||
	    npurt_model_get_output(m, 0, 0, &od))
		return 3;
	if (in.dtype != NPURT_DTYPE_U8 || in.rank != 4 || in.dims[0] != 1 ||
	    in.dims[3] != 3 || od.dtype != NPURT_DTYPE_F32) {
		fprintf(stderr, "npu-run: --images needs a model whose input 0 "
			"is a u8 RGB image [1, H, W, 3] (compile it with npuc "
			"--insert-op-conf and input_format RGB888_U8) and whose "
			"output 0 is f32; input '%s' is %u-D %s\n", in.name,
			in.rank, in.layout);
		return 2;
	}
	files = list_dir(io->dir, &nfiles);
	if (!files) {
		fprintf(stderr, "npu-run: --images %s: no files (or not a "
			"directory)\n", io->dir);
		return 2;
	}
	if (io->labels) {
		labels = read_labels(io->labels, &nlabels);
		if (!labels)
			fprintf(stderr, "npu-run: --labels %s: cannot read it; "
				"printing class numbers\n", io->labels);
	}
	logits = malloc(od.size);
	if (!logits || npurt_image_alloc(ctx, (uint32_t)in.dims[2],
					 (uint32_t)in.dims[1],
					 NPURT_PIXEL_RGB888, &dst) ||
	    npurt_mem_alloc(ctx, od.size, &omem)) {
		fprintf(stderr, "npu-run: %s\n", err_reason());
		ret = 3;
		goto done;
	}
	if (json)
		fprintf(json, "{\"images\": [");
	t0 = now_ns();
	for (i = 0; i < nfiles; i++) {
		char path[4096];
		npurt_image img;
		npurt_io bi, bo;
		size_t nc = od.size / 4, j;
		int best[64], kk = k < 64 ? k : 64, n = 0;
		uint64_t t1 = now_ns();

		snprintf(path, sizeof(path), "%s/%s", io->dir, files[i]);
		if (npurt_image_decode_file(ctx, path, &dopt, &img)) {
			fprintf(stderr, "npu-run: %s\n", err_reason());
			bad++;
			continue;
		}
		bi = (npurt_io){ dst.mem, NULL, 0, npurt_mem_size(dst.mem) };
		bo = (npurt_io){ omem, NULL, 0, od.size };
		if (npurt_image_resize(&img, &dst, &ro, NULL) ||
		    npurt_model_execute(m, &bi, 1, &bo, 1) ||
		    npurt_memcpy_d2h(logits, omem, 0, od.size)) {
			fprintf(stderr, "npu-run: %s: %s\n", path, err_reason());
			npurt_image_free(&img);
			ret = 3;
			break;
		}
		busy += now_ns() - t1;
		/* top-k by selection (k is small) */
		for (n = 0; n < kk && (size_t)n < nc; n++) {
			int b = -1;

			for (j = 0; j < nc; j++) {
				int taken = 0;

				for (int q = 0; q < n; q++)
					taken |= best[q] == (int)j;
				if (!taken && (b < 0 || logits[j] > logits[b]))
					b = (int)j;
			}
			best[n] = b;
		}
		fprintf(out, "%s (%ux%u %s):", files[i], img.width, img.height,
			"decoded");
		if (json)
			fprintf(json, "%s\n  {\"file\": \"%s\", \"width\": %u, "
				"\"height\": %u, \"top\": [", ok ? "," : "",
				files[i], img.width, img.height);
		for (int q = 0; q < n; q++) {
			const char *l = labels && (size_t)best[q] < nlabels ?
					labels[best[q]] : NULL;

			fprintf(out, "%s %d%s%s%s %.4f", q ? "," : "", best[q],
				l ? " \"" : "", l ? l : "", l ? "\"" : "",
				logits[best[q]]);
			if (json)
				fprintf(json, "%s{\"class\": %d, \"score\": %.6g}",
					q ? ", " : "", best[q],
					(double)logits[best[q]]);
		}
		fprintf(out, "\n");
		if (json)
			fprintf(json, "]}");
		npurt_image_free(&img);
		ok++;
	}
	{
		double s = (double)(now_ns() - t0) / 1e9;

		fprintf(out, "# %zu classified, %zu refused, %.1f images/s "
			"(decode + resize + model)\n", ok, bad,
			s > 0 ? (double)ok / s : 0.0);
		if (json)
			fprintf(json, "\n], \"classified\": %zu, \"refused\": "
				"%zu, \"images_per_s\": %.3f, \"busy_s\": "
				"%.6f}\n", ok, bad, s > 0 ? (double)ok / s : 0.0,
				(double)busy / 1e9);
	}
	if (!ret && (bad || !ok))
		ret = 2;
done:
	npurt_image_free(&dst);
	npurt_mem_free(omem);
	free(logits);
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	for (i = 0; i < nlabels; i++)
		free(labels[i]);
	free(labels);
	return ret;
}
