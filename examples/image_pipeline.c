// SPDX-License-Identifier: MIT
/*
 * image_pipeline.c - an image classification service in two pipelines,
 * measured in the same run:
 *
 *  device:  libnpurt decodes image i+1 (JPEG/PNG, host CPU) while the NPU
 *           runs image i: the media unit resizes it on one stream, the
 *           model (compiled with an AIPP config: u8 RGB in, normalisation
 *           on the device) runs on a second stream that waits for the
 *           resize's event; two image/output slots alternate.
 *  host:    decode with libjpeg, convert and normalise the image in float
 *           on the CPU (ToTensor + Normalize), resize the float tensor,
 *           copy it in, run the float model; one image after the other
 *           (what a service does without a media unit).
 *
 *   image_pipeline AIPP.om FLOAT.om DIR [--rounds N] [--json FILE]
 *                  [--trace FILE]
 *
 * AIPP.om takes u8 [1, H, W, 3] (RGB888, no crop, ImageNet mean/std);
 * FLOAT.om is the same network with its f32 [1, 3, H, W] input. Prints
 * (and writes with --json) images/s of both, their ratio, the overlap of
 * host decoding with device inference and of the media unit's resize of
 * image i+1 with the inference of image i, and how often the two agree on
 * the top class. --trace writes a Chrome trace (Perfetto): host decode spans and
 * the device's media and inference spans on their own tracks.
 * Documentation/media.rst, "The pipelined example".
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>
#include <npurt.h>

#define MAX_FILES	256
#define MAX_CLASSES	4096

static const float MEAN[3] = { 0.485f, 0.456f, 0.406f };
static const float STD[3] = { 0.229f, 0.224f, 0.225f };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what)
{
	const npurt_error *e = npurt_last_error();

	fprintf(stderr, "image_pipeline: %s: %s: %s\n", what,
		npurt_status_str(e->code), e->reason);
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int argmax(const float *v, size_t n)
{
	size_t i, b = 0;

	for (i = 1; i < n; i++)
		if (v[i] > v[b])
			b = i;
	return (int)b;
}

/* ---- the host pipeline: libjpeg, float resize and normalisation ---- */

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jmp;
};

static void jerr_exit(j_common_ptr c)
{
	longjmp(((struct jerr *)c->err)->jmp, 1);
}

/* RGB888 rows of a JPEG file, or NULL. */
static unsigned char *host_decode(const char *path, unsigned *w, unsigned *h)
{
	struct jpeg_decompress_struct c;
	struct jerr e;
	unsigned char *volatile px = NULL;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	c.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = jerr_exit;
	if (setjmp(e.jmp)) {
		jpeg_destroy_decompress(&c);
		fclose(f);
		free(px);
		return NULL;
	}
	jpeg_create_decompress(&c);
	jpeg_stdio_src(&c, f);
	jpeg_read_header(&c, TRUE);
	c.out_color_space = JCS_RGB;
	jpeg_start_decompress(&c);
	px = malloc((size_t)c.output_width * c.output_height * 3);
	while (px && c.output_scanline < c.output_height) {
		JSAMPROW row = px + (size_t)c.output_scanline *
				    c.output_width * 3;

		jpeg_read_scanlines(&c, &row, 1);
	}
	jpeg_finish_decompress(&c);
	*w = c.output_width;
	*h = c.output_height;
	jpeg_destroy_decompress(&c);
	fclose(f);
	return px;
}

/*
 * The host's float preprocessing, as a service without a media unit does
 * it (torchvision's ToTensor + Normalize on the decoded image, then a
 * resize of the float tensor): the whole image to f32 CHW normalised,
 * (x / 255 - mean) / std, then bilinear (half-pixel centres) to oh x ow.
 */
static int host_preprocess(const unsigned char *px, unsigned w, unsigned h,
			   float *out, unsigned ow, unsigned oh)
{
	float *full = malloc((size_t)3 * w * h * sizeof(float));

	if (!full)
		return -1;
	for (size_t i = 0; i < (size_t)w * h; i++)
		for (unsigned c = 0; c < 3; c++)
			full[(size_t)c * w * h + i] =
				(px[i * 3 + c] / 255.0f - MEAN[c]) / STD[c];
	for (unsigned y = 0; y < oh; y++) {
		float sy = ((float)y + 0.5f) * (float)h / (float)oh - 0.5f;
		unsigned y0, y1;
		float fy;

		sy = sy < 0 ? 0 : sy;
		y0 = (unsigned)sy;
		y0 = y0 > h - 1 ? h - 1 : y0;
		y1 = y0 + 1 < h ? y0 + 1 : y0;
		fy = sy - (float)y0;
		for (unsigned x = 0; x < ow; x++) {
			float sx = ((float)x + 0.5f) * (float)w / (float)ow -
				   0.5f;
			unsigned x0, x1;
			float fx;

			sx = sx < 0 ? 0 : sx;
			x0 = (unsigned)sx;
			x0 = x0 > w - 1 ? w - 1 : x0;
			x1 = x0 + 1 < w ? x0 + 1 : x0;
			fx = sx - (float)x0;
			for (unsigned c = 0; c < 3; c++) {
				const float *p = full + (size_t)c * w * h;
				float a = p[(size_t)y0 * w + x0];
				float b = p[(size_t)y0 * w + x1];
				float d = p[(size_t)y1 * w + x0];
				float e = p[(size_t)y1 * w + x1];

				out[((size_t)c * oh + y) * ow + x] =
					(1 - fy) * ((1 - fx) * a + fx * b) +
					fy * ((1 - fx) * d + fx * e);
			}
		}
	}
	free(full);
	return 0;
}

/* ---- the trace ---- */

struct span {
	int track;		/* 0 host decode, 1 media, 2 inference */
	double start, end;	/* seconds, host clock */
	int image;
};

static void write_trace(const char *path, const struct span *s, size_t n,
			double t0)
{
	static const char *const tracks[] = { "host: decode",
					      "device: media (resize)",
					      "device: inference" };
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fprintf(f, "{\"traceEvents\": [\n");
	for (int t = 0; t < 3; t++)
		fprintf(f, "{\"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"name\": "
			"\"thread_name\", \"args\": {\"name\": \"%s\"}},\n", t,
			tracks[t]);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "{\"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"name\": "
			"\"image %d\", \"ts\": %.3f, \"dur\": %.3f}%s\n",
			s[i].track, s[i].image, (s[i].start - t0) * 1e6,
			(s[i].end - s[i].start) * 1e6, i + 1 < n ? "," : "");
	fprintf(f, "]}\n");
	fclose(f);
}

/* Time during which a span of track @a and one of track @b both ran. */
static double overlap_s(const struct span *s, size_t n, int a, int b)
{
	double tot = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i].track != a)
			continue;
		for (size_t j = 0; j < n; j++) {
			double lo, hi;

			if (s[j].track != b)
				continue;
			lo = s[i].start > s[j].start ? s[i].start : s[j].start;
			hi = s[i].end < s[j].end ? s[i].end : s[j].end;
			if (hi > lo)
				tot += hi - lo;
		}
	}
	return tot;
}

int main(int argc, char **argv)
{
	const char *json = NULL, *trace = NULL, *dir;
	char *files[MAX_FILES];
	size_t nfiles = 0, nclass, nspans = 0;
	int rounds = 3, agree = 0, ndev = 0, ret = 1;
	int top_dev[MAX_FILES], top_host[MAX_FILES];
	npurt_device *dev = NULL;
	npurt_context *ctx = NULL;
	npurt_model *am = NULL, *fm = NULL;
	npurt_stream *sm = NULL, *si = NULL;
	npurt_tensor_desc ai, ao;
	npurt_image slot[2];
	npurt_mem *out[2] = { NULL, NULL };
	npurt_event *ev_media[2][2], *ev_inf[2][2], *e0 = NULL;
	int pending[2] = { -1, -1 };
	struct span *spans = NULL;
	double t_dev, t_host, t0_host = 0, dec_s = 0, dev_busy = 0;
	float *logits = NULL, *hin = NULL, *slot_logits[2];
	unsigned ih, iw;
	DIR *d;
	struct dirent *de;

	if (argc < 4) {
		fprintf(stderr, "usage: image_pipeline AIPP.om FLOAT.om DIR "
			"[--rounds N] [--json FILE] [--trace FILE]\n");
		return 2;
	}
	dir = argv[3];
	for (int i = 4; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--json"))
			json = argv[i + 1];
		else if (!strcmp(argv[i], "--trace"))
			trace = argv[i + 1];
	}
	d = opendir(dir);
	while (d && (de = readdir(d)) && nfiles < MAX_FILES)
		if (de->d_name[0] != '.' && strstr(de->d_name, ".jpg")) {
			files[nfiles] = malloc(strlen(dir) + strlen(de->d_name) + 2);
			sprintf(files[nfiles++], "%s/%s", dir, de->d_name);
		}
	if (d)
		closedir(d);
	if (!nfiles) {
		fprintf(stderr, "image_pipeline: no .jpg files in %s\n", dir);
		return 2;
	}
	qsort(files, nfiles, sizeof(files[0]), cmp_str);
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx) ||
	    npurt_model_load_file(ctx, argv[1], &am) ||
	    npurt_model_load_file(ctx, argv[2], &fm) ||
	    npurt_model_get_input(am, 0, 0, &ai) ||
	    npurt_model_get_output(am, 0, 0, &ao))
		return fail("loading");
	nclass = ao.size / 4;
	if (ai.dtype != NPURT_DTYPE_U8 || ai.rank != 4 || ai.dims[3] != 3 ||
	    nclass > MAX_CLASSES) {
		fprintf(stderr, "image_pipeline: %s: input 0 must be u8 "
			"[1, H, W, 3]\n", argv[1]);
		return 2;
	}
	ih = (unsigned)ai.dims[1];
	iw = (unsigned)ai.dims[2];
	logits = malloc(ao.size);
	slot_logits[0] = malloc(ao.size);
	slot_logits[1] = malloc(ao.size);
	hin = malloc((size_t)3 * ih * iw * sizeof(float));
	spans = calloc((size_t)rounds * nfiles * 3 + 8, sizeof(*spans));
	if (!logits || !hin || !spans || !slot_logits[0] || !slot_logits[1] ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &sm) ||
	    npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &si) ||
	    npurt_event_create(ctx, 0, &e0))
		return fail("setting up");
	for (int k = 0; k < 2; k++) {
		if (npurt_image_alloc(ctx, iw, ih, NPURT_PIXEL_RGB888,
				      &slot[k]) ||
		    npurt_mem_alloc(ctx, ao.size, &out[k]))
			return fail("allocating the slots");
		for (int j = 0; j < 2; j++)
			if (npurt_event_create(ctx, 0, &ev_media[k][j]) ||
			    npurt_event_create(ctx, 0, &ev_inf[k][j]))
				return fail("creating events");
	}

	/* ---- device pipeline ---- */
	npurt_event_record(e0, si);
	npurt_event_synchronize(e0);
	t0_host = now_s();
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < nfiles; i++) {
			int n = r * (int)nfiles + (int)i, k = n % 2;
			npurt_resize_options ro = {
				.mode = NPURT_RESIZE_BILINEAR };
			npurt_io bi, bo;
			npurt_image img;
			double a;

			if (pending[k] >= 0) {	/* slot k's last image */
				int p = pending[k];
				double ms0, ms1, ms2, ms3;

				if (npurt_event_synchronize(ev_inf[k][1]))
					return fail("device pipeline");
				if (p < (int)nfiles)
					top_dev[p] = argmax(slot_logits[k],
							    nclass);
				npurt_event_elapsed_time(e0, ev_media[k][0], &ms0);
				npurt_event_elapsed_time(e0, ev_media[k][1], &ms1);
				npurt_event_elapsed_time(e0, ev_inf[k][0], &ms2);
				npurt_event_elapsed_time(e0, ev_inf[k][1], &ms3);
				spans[nspans++] = (struct span){ 1,
					t0_host + ms0 / 1e3, t0_host + ms1 / 1e3, p };
				spans[nspans++] = (struct span){ 2,
					t0_host + ms2 / 1e3, t0_host + ms3 / 1e3, p };
				dev_busy += (ms3 - ms2 + ms1 - ms0) / 1e3;
				ndev++;
			}
			a = now_s();
			if (npurt_image_decode_file(ctx, files[i], NULL, &img))
				return fail("decoding");
			spans[nspans++] = (struct span){ 0, a, now_s(), n };
			dec_s += now_s() - a;
			bi = (npurt_io){ slot[k].mem, NULL, 0,
					 npurt_mem_size(slot[k].mem) };
			bo = (npurt_io){ out[k], NULL, 0, ao.size };
			if (npurt_event_record(ev_media[k][0], sm) ||
			    npurt_image_resize(&img, &slot[k], &ro, sm) ||
			    npurt_event_record(ev_media[k][1], sm) ||
			    npurt_stream_wait_event(si, ev_media[k][1]) ||
			    npurt_event_record(ev_inf[k][0], si) ||
			    npurt_model_execute_async(am, &bi, 1, &bo, 1, si) ||
			    npurt_memcpy_d2h_async(slot_logits[k], out[k], 0,
						   ao.size, si) ||
			    npurt_event_record(ev_inf[k][1], si))
				return fail("submitting");
			/* freed after the resize that reads it */
			npurt_image_free(&img);
			pending[k] = n;
		}
	}
	for (int k = 0; k < 2; k++) {
		double ms0, ms1, ms2, ms3;
		int p = pending[k];

		if (p < 0)
			continue;
		if (npurt_event_synchronize(ev_inf[k][1]))
			return fail("device pipeline");
		if (p < (int)nfiles)
			top_dev[p] = argmax(slot_logits[k], nclass);
		npurt_event_elapsed_time(e0, ev_media[k][0], &ms0);
		npurt_event_elapsed_time(e0, ev_media[k][1], &ms1);
		npurt_event_elapsed_time(e0, ev_inf[k][0], &ms2);
		npurt_event_elapsed_time(e0, ev_inf[k][1], &ms3);
		spans[nspans++] = (struct span){ 1, t0_host + ms0 / 1e3,
						 t0_host + ms1 / 1e3, p };
		spans[nspans++] = (struct span){ 2, t0_host + ms2 / 1e3,
						 t0_host + ms3 / 1e3, p };
		dev_busy += (ms3 - ms2 + ms1 - ms0) / 1e3;
		ndev++;
	}
	t_dev = now_s() - t0_host;

	/* ---- host float pipeline ---- */
	{
		double a = now_s();

		for (int r = 0; r < rounds; r++)
			for (size_t i = 0; i < nfiles; i++) {
				unsigned w, h;
				unsigned char *px = host_decode(files[i], &w, &h);
				npurt_io bi = { NULL, hin, 0,
						(size_t)3 * ih * iw * 4 };
				npurt_io bo = { NULL, logits, 0, ao.size };

				if (!px) {
					fprintf(stderr, "image_pipeline: %s: "
						"host decode failed\n", files[i]);
					return 1;
				}
				if (host_preprocess(px, w, h, hin, iw, ih)) {
					free(px);
					fprintf(stderr, "image_pipeline: out of "
						"memory\n");
					return 1;
				}
				free(px);
				if (npurt_model_execute(fm, &bi, 1, &bo, 1))
					return fail("host pipeline");
				if (!r)
					top_host[i] = argmax(logits, nclass);
			}
		t_host = now_s() - a;
	}
	for (size_t i = 0; i < nfiles; i++)
		agree += top_dev[i] == top_host[i];
	{
		double n = (double)rounds * (double)nfiles;
		double ov = overlap_s(spans, nspans, 0, 2);
		double mov = overlap_s(spans, nspans, 1, 2);
		FILE *f = json ? fopen(json, "w") : NULL;
		char buf[1024];

		snprintf(buf, sizeof(buf),
			 "{\"images\": %zu, \"rounds\": %d, \"size\": [%u, %u],\n"
			 " \"device_pipeline\": {\"images_per_s\": %.3f, "
			 "\"wall_s\": %.4f, \"decode_s\": %.4f, "
			 "\"device_busy_s\": %.4f, \"decode_overlapping_inference_s\": %.4f, "
			 "\"media_overlapping_inference_s\": %.4f},\n"
			 " \"host_float_pipeline\": {\"images_per_s\": %.3f, "
			 "\"wall_s\": %.4f},\n"
			 " \"speedup\": %.3f, \"top1_agree\": %d}\n",
			 nfiles, rounds, iw, ih, n / t_dev, t_dev, dec_s,
			 dev_busy, ov, mov, n / t_host, t_host, t_host / t_dev,
			 agree);
		fputs(buf, stdout);
		if (f) {
			fputs(buf, f);
			fclose(f);
		}
		if (trace)
			write_trace(trace, spans, nspans, t0_host);
	}
	ret = ndev == rounds * (int)nfiles ? 0 : 1;
	for (int k = 0; k < 2; k++) {
		npurt_image_free(&slot[k]);
		npurt_mem_free(out[k]);
		for (int j = 0; j < 2; j++) {
			npurt_event_destroy(ev_media[k][j]);
			npurt_event_destroy(ev_inf[k][j]);
		}
	}
	npurt_event_destroy(e0);
	npurt_stream_destroy(sm);
	npurt_stream_destroy(si);
	npurt_model_unload(am);
	npurt_model_unload(fm);
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(spans);
	free(logits);
	free(slot_logits[0]);
	free(slot_logits[1]);
	free(hin);
	return ret;
}
