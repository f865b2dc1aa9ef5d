// SPDX-License-Identifier: MIT
/*
 * media.c - images in device memory: decode (image_decode.c) into a device
 * block, and the media unit's tasks (IMG_RESIZE, IMG_CSC) on a stream.
 * Documentation/media.rst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_internal.h"
#include "image_decode.h"

_Static_assert(sizeof(struct drm_npu_aipp_dyn) == DRM_NPU_AIPP_DYN_SIZE,
	       "dynamic AIPP parameters: 76 bytes");
_Static_assert(sizeof(struct drm_npu_aipp_params) <= DRM_NPU_TASK_PARAMS_SIZE,
	       "AIPP params fit the task");

/* Files larger than this are refused before reading (1 GiB). */
#define RT_IMAGE_MAX_FILE	(1ull << 30)

static uint32_t bpp(uint32_t fmt)
{
	switch (fmt) {
	case NPURT_PIXEL_RGB888:
	case NPURT_PIXEL_BGR888:
		return 3;
	case NPURT_PIXEL_XRGB8888:
		return 4;
	default:
		return 1;	/* YUV400, and the Y plane of NV12/NV21 */
	}
}

static bool is_yuv420(uint32_t fmt)
{
	return fmt == NPURT_PIXEL_NV12 || fmt == NPURT_PIXEL_NV21;
}

static npurt_status image_ok(uint32_t w, uint32_t h, uint32_t fmt,
			    const char *func)
{
	if (fmt > NPURT_PIXEL_YUV400 || !w || !h || w > 65536 || h > 65536)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a format 0..5 and 1..65536 pixels a side",
			       "image %ux%u, format %u", w, h, fmt);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_image_alloc(npurt_context *ctx, uint32_t width,
					 uint32_t height,
					 npurt_pixel_format format,
					 npurt_image *image)
{
	uint64_t rows;
	npurt_status st;

	if (!ctx || !image)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context and an image",
			       "ctx or image is NULL");
	memset(image, 0, sizeof(*image));
	st = image_ok(width, height, format, __func__);
	if (st)
		return st;
	/* YUV420SP: an odd width rounds the interleaved UV row up */
	image->stride = width * bpp(format) + (is_yuv420(format) && (width & 1));
	rows = height + (is_yuv420(format) ? (height + 1) / 2 : 0);
	st = npurt_mem_alloc(ctx, (size_t)(rows * image->stride), &image->mem);
	if (st)
		return st;
	image->width = width;
	image->height = height;
	image->format = format;
	if (is_yuv420(format))
		image->uv_offset = (size_t)image->stride * height;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_image_free(npurt_image *image)
{
	npurt_status st = NPURT_OK;

	if (image && image->mem)
		st = npurt_mem_free(image->mem);
	if (image)
		memset(image, 0, sizeof(*image));
	return st;
}

static npurt_status decode(npurt_context *ctx, const void *data, size_t size,
			   const char *name, const npurt_decode_options *opt,
			   npurt_image *image, const char *func)
{
	struct rt_pixels px;
	enum rt_decode_result r;
	char why[256];
	npurt_status st;

	if (!ctx || !image || (!data && size))
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a context, data and an image",
			       "ctx, data or image is NULL");
	memset(image, 0, sizeof(*image));
	if (opt && (opt->flags || opt->reserved))
		return rt_fail(NPURT_ERR_INVALID, func, "pass flags 0",
			       "decode flags 0x%x", opt->flags);
	if (!name)
		name = "<memory>";
	r = rt_image_decode(data, size, opt ? opt->max_pixels : 0, &px, why,
			    sizeof(why));
	switch (r) {
	case RT_DECODE_OK:
		break;
	case RT_DECODE_TOO_LARGE:
		return rt_fail(NPURT_ERR_UNSUPPORTED, func,
			       "raise npurt_decode_options.max_pixels if the "
			       "file is trusted", "%s: %s", name, why);
	case RT_DECODE_NOMEM:
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "%s: %s", name, why);
	case RT_DECODE_UNKNOWN:
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a JPEG or PNG file", "%s: %s", name, why);
	default:
		return rt_fail(NPURT_ERR_INVALID, func,
			       "check the file: it is corrupt or truncated",
			       "%s: corrupt %s: %s", name,
			       size > 0 && ((const uint8_t *)data)[0] == 0xff ?
			       "JPEG" : "PNG", why);
	}
	st = npurt_image_alloc(ctx, px.width, px.height, NPURT_PIXEL_RGB888,
			       image);
	/*
	 * A fresh block: stream-ordered on the context's synchronous stream,
	 * it needs no wait for other work on its segment (a synchronous copy
	 * would wait for the whole segment: a model running on a neighbour
	 * block would serialise decoding with inference).
	 */
	if (!st)
		st = npurt_memcpy_h2d_async(image->mem, 0, px.data,
					    (size_t)px.width * px.height * 3,
					    ctx->sync_stream);
	if (!st)
		st = rt_stream_sync(ctx->sync_stream, func);
	free(px.data);
	if (st)
		npurt_image_free(image);
	return st;
}

NPURT_API npurt_status npurt_image_decode(npurt_context *ctx,
					  const void *data, size_t size,
					  const char *name,
					  const npurt_decode_options *options,
					  npurt_image *image)
{
	return decode(ctx, data, size, name, options, image, __func__);
}

NPURT_API npurt_status npurt_image_decode_file(npurt_context *ctx,
					       const char *path,
					       const npurt_decode_options *options,
					       npurt_image *image)
{
	struct stat sb;
	npurt_status st;
	uint8_t *buf;
	size_t got;
	FILE *f;

	if (!path || !image)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a path and an image",
			       "path or image is NULL");
	memset(image, 0, sizeof(*image));
	f = fopen(path, "rb");
	if (!f)
		return RT_FAIL(NPURT_ERR_IO, "check the path and permissions",
			       "%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > RT_IMAGE_MAX_FILE) {
		fclose(f);
		return RT_FAIL(NPURT_ERR_IO, "pass a regular file below 1 GiB",
			       "%s: not a regular file of at most 1 GiB", path);
	}
	buf = malloc(sb.st_size ? (size_t)sb.st_size : 1);
	if (!buf) {
		fclose(f);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "%s: %lld bytes", path, (long long)sb.st_size);
	}
	got = fread(buf, 1, (size_t)sb.st_size, f);
	fclose(f);
	if (got != (size_t)sb.st_size) {
		free(buf);
		return RT_FAIL(NPURT_ERR_IO, "check the file",
			       "%s: read %zu of %lld bytes", path, got,
			       (long long)sb.st_size);
	}
	st = decode(ctx, buf, got, path, options, image, __func__);
	free(buf);
	return st;
}

/* ---- media-unit tasks ---- */

/* An operand over plane @uv (0 or 1) of @img: [1, H, W, C] or [1, H, W]. */
static void img_operand(const npurt_image *img, bool uv, uint32_t x0,
			uint32_t y0, uint32_t w, uint32_t h, uint16_t slot,
			struct drm_npu_operand *o)
{
	uint32_t c = uv ? 2 : bpp(img->format);
	uint64_t base = img->mem->block->offset +
			(uv ? img->uv_offset : img->offset);

	memset(o, 0, sizeof(*o));
	o->slot = slot;
	o->dtype = DRM_NPU_DTYPE_U8;
	o->layout = DRM_NPU_LAYOUT_NHWC;
	o->offset = base + (uint64_t)y0 * img->stride + (uint64_t)x0 * c;
	o->shape[0] = 1;
	o->shape[1] = h;
	o->shape[2] = w;
	o->strides[0] = 0;		/* N = 1 */
	o->strides[1] = img->stride;
	o->strides[2] = c;
	if (is_yuv420(img->format) && !uv) {
		o->rank = 3;
	} else if (img->format == NPURT_PIXEL_YUV400) {
		o->rank = 3;
	} else {
		o->rank = 4;
		o->shape[3] = c;
		o->strides[3] = 1;
	}
}

/* Register @t (one task over @n images' blocks), submit it, drop it. */
static npurt_status submit_task(npurt_stream *s, struct drm_npu_task *t,
				npurt_mem *const *mems, uint32_t n,
				const char *func)
{
	struct drm_npu_program_create pc;
	struct drm_npu_program_destroy pd;
	uint32_t bos[DRM_NPU_MAX_OPERANDS], slot_of[DRM_NPU_MAX_OPERANDS];
	uint32_t nb = 0, i, k;
	struct rt_submit j;
	npurt_status st;
	int ret;

	/* one slot per distinct segment: operands of one segment share it */
	for (i = 0; i < n; i++) {
		for (k = 0; k < nb; k++)
			if (bos[k] == (uint32_t)mems[i]->block->seg)
				break;
		if (k == nb)
			bos[nb++] = (uint32_t)mems[i]->block->seg;
		slot_of[i] = k;
	}
	for (i = 0; i < t->num_operands; i++)
		t->operands[i].slot = (uint16_t)slot_of[t->operands[i].slot];
	memset(&pc, 0, sizeof(pc));
	pc.tasks_ptr = (uintptr_t)t;
	pc.num_tasks = 1;
	pc.task_size = sizeof(*t);
	ret = npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc);
	if (ret)
		return rt_fail_errno(func, ret,
				     "registering a media task (see "
				     "Documentation/media.rst for its limits)");
	memset(&j, 0, sizeof(j));
	j.program = pc.handle;
	j.bos = bos;
	j.num_bos = pc.num_slots;
	j.timeline = true;
	j.take_event_waits = true;
	pthread_mutex_lock(&s->ctx->lock);
	for (i = 0; i < n; i++)
		npurt_alloc_record_stream(s->ctx->alloc, mems[i]->block, s->id);
	pthread_mutex_unlock(&s->ctx->lock);
	pthread_mutex_lock(&s->lock);
	st = rt_stream_submit_locked(s, &j, NULL);
	pthread_mutex_unlock(&s->lock);
	memset(&pd, 0, sizeof(pd));
	pd.handle = pc.handle;
	npu_dev_ioctl(s->ctx->nd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &pd);
	return st;
}

static npurt_status finish(npurt_status st, npurt_stream *user,
			   npurt_stream *s, const char *func)
{
	if (!st && (!user || rt_launch_blocking()))
		st = rt_stream_sync(s, func);
	return st;
}

static npurt_status check_image(const npurt_image *img, const char *what,
				const char *func)
{
	uint64_t need;

	if (!img || !img->mem)
		return rt_fail(NPURT_ERR_INVALID, func, "pass images with memory",
			       "%s image is NULL or has no memory", what);
	if (image_ok(img->width, img->height, img->format, func))
		return NPURT_ERR_INVALID;
	need = img->offset + (uint64_t)img->stride * (img->height - 1) +
	       (uint64_t)img->width * bpp(img->format);
	if (is_yuv420(img->format) &&
	    img->uv_offset + (uint64_t)img->stride * ((img->height + 1) / 2 - 1) +
	    2ull * ((img->width + 1) / 2) > need)
		need = img->uv_offset +
		       (uint64_t)img->stride * ((img->height + 1) / 2 - 1) +
		       2ull * ((img->width + 1) / 2);
	if (img->stride < (uint64_t)img->width * bpp(img->format) ||
	    need > npurt_mem_size(img->mem))
		return rt_fail(NPURT_ERR_INVALID, func,
			       "fix the image's stride, offsets or size",
			       "%s image %ux%u stride %u needs %llu bytes, its "
			       "block has %zu", what, img->width, img->height,
			       img->stride, (unsigned long long)need,
			       npurt_mem_size(img->mem));
	return NPURT_OK;
}

NPURT_API npurt_status npurt_image_resize(const npurt_image *src,
					  npurt_image *dst,
					  const npurt_resize_options *opt,
					  npurt_stream *stream)
{
	npurt_resize_options def = { .mode = NPURT_RESIZE_BILINEAR };
	struct drm_npu_img_resize_params *p;
	struct drm_npu_task t;
	npurt_mem *mems[2];
	uint32_t cw, ch;
	npurt_stream *s;
	npurt_status st;

	st = check_image(src, "source", __func__);
	if (!st)
		st = check_image(dst, "destination", __func__);
	if (st)
		return st;
	if (!opt)
		opt = &def;
	if (src->format != dst->format || is_yuv420(src->format))
		return RT_FAIL(NPURT_ERR_INVALID,
			       "resize packed or YUV400 images of one format "
			       "(convert NV12/NV21 first)",
			       "formats %u -> %u", src->format, dst->format);
	cw = opt->crop_w ? opt->crop_w : src->width;
	ch = opt->crop_h ? opt->crop_h : src->height;
	if ((uint64_t)opt->crop_x + cw > src->width ||
	    (uint64_t)opt->crop_y + ch > src->height || opt->mode > 1)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "keep the crop inside the source, mode 0 or 1",
			       "crop %u,%u %ux%u of %ux%u, mode %u", opt->crop_x,
			       opt->crop_y, cw, ch, src->width, src->height,
			       opt->mode);
	s = stream ? stream : src->mem->ctx->sync_stream;
	if (stream && stream->ctx != src->mem->ctx)
		return RT_FAIL(NPURT_ERR_INVALID, "use one context",
			       "stream of another context");
	st = rt_stream_check_fault(s, __func__);
	if (st)
		return st;
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_IMG_RESIZE;
	t.num_operands = 2;
	p = &t.params.img_resize;
	p->mode = opt->mode;
	p->pad_top = opt->pad_top;
	p->pad_left = opt->pad_left;
	p->pad_bottom = opt->pad_bottom;
	p->pad_right = opt->pad_right;
	memcpy(p->border, opt->border, sizeof(p->border));
	img_operand(src, false, opt->crop_x, opt->crop_y, cw, ch, 0,
		    &t.operands[0]);
	img_operand(dst, false, 0, 0, dst->width, dst->height, 1,
		    &t.operands[1]);
	/* YUV400 is [N, H, W]: the media unit resizes [N, H, W, 1] */
	for (int i = 0; i < 2; i++) {
		struct drm_npu_operand *o = &t.operands[i];

		if (o->rank == 3) {
			o->rank = 4;
			o->shape[3] = 1;
			o->strides[3] = 1;
		}
	}
	mems[0] = src->mem;
	mems[1] = dst->mem;
	st = submit_task(s, &t, mems, 2, __func__);
	return finish(st, stream, s, __func__);
}

NPURT_API npurt_status npurt_image_convert(const npurt_image *src,
					   npurt_image *dst, uint32_t matrix,
					   npurt_stream *stream)
{
	struct drm_npu_task t;
	npurt_mem *mems[3];
	npurt_stream *s;
	npurt_status st;
	uint32_t n = 0;

	st = check_image(src, "source", __func__);
	if (!st)
		st = check_image(dst, "destination", __func__);
	if (st)
		return st;
	if ((dst->format != NPURT_PIXEL_RGB888 &&
	     dst->format != NPURT_PIXEL_BGR888) ||
	    dst->width != src->width || dst->height != src->height ||
	    matrix > 2 || (matrix && !is_yuv420(src->format) &&
			   src->format != NPURT_PIXEL_YUV400))
		return RT_FAIL(NPURT_ERR_INVALID,
			       "convert to RGB888/BGR888 of the same size; "
			       "matrix 0..2, for YUV sources only",
			       "%ux%u format %u -> %ux%u format %u, matrix %u",
			       src->width, src->height, src->format, dst->width,
			       dst->height, dst->format, matrix);
	s = stream ? stream : src->mem->ctx->sync_stream;
	st = rt_stream_check_fault(s, __func__);
	if (st)
		return st;
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_IMG_CSC;
	t.params.img_csc.in_format = src->format;
	t.params.img_csc.out_format = dst->format;
	t.params.img_csc.matrix = matrix;
	img_operand(src, false, 0, 0, src->width, src->height, 0,
		    &t.operands[n]);
	mems[n++] = src->mem;
	if (is_yuv420(src->format)) {
		img_operand(src, true, 0, 0, (src->width + 1) / 2,
			    (src->height + 1) / 2, (uint16_t)n, &t.operands[n]);
		t.operands[n].shape[3] = 2;
		mems[n++] = src->mem;
	}
	img_operand(dst, false, 0, 0, dst->width, dst->height, (uint16_t)n,
		    &t.operands[n]);
	mems[n++] = dst->mem;
	t.num_operands = (uint8_t)n;
	st = submit_task(s, &t, mems, n, __func__);
	return finish(st, stream, s, __func__);
}

/* ---- dynamic AIPP ---- */

static bool finite_f(float v)
{
	return v == v && v - v == 0.0f;
}

NPURT_API npurt_status npurt_aipp_params_pack(const npurt_aipp_params *p,
					      void *buf, size_t size)
{
	struct drm_npu_aipp_dyn d;
	int i;

	if (!p || !buf || size < DRM_NPU_AIPP_DYN_SIZE)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass parameters and 76 bytes of buffer",
			       "params %p, buf %p, size %zu", (const void *)p,
			       buf, size);
	memset(&d, 0, sizeof(d));
	d.flags = (p->csc ? DRM_NPU_AIPP_CSC : 0) |
		  (p->rbuv_swap ? DRM_NPU_AIPP_RBUV_SWAP : 0);
	for (i = 0; i < 9; i++)
		d.matrix[i] = p->matrix[i];
	for (i = 0; i < 3; i++) {
		d.input_bias[i] = p->input_bias[i];
		d.output_bias[i] = p->output_bias[i];
	}
	for (i = 0; i < 4; i++) {
		if (!finite_f(p->min[i]) || !finite_f(p->var_reci[i]))
			return RT_FAIL(NPURT_ERR_INVALID,
				       "pass finite min and var_reci",
				       "channel %d: min %g, var_reci %g", i,
				       (double)p->min[i],
				       (double)p->var_reci[i]);
		d.mean[i] = p->mean[i];
		memcpy(&d.min[i], &p->min[i], 4);
		memcpy(&d.var_reci[i], &p->var_reci[i], 4);
	}
	if (!finite_f(p->padding_value))
		return RT_FAIL(NPURT_ERR_INVALID, "pass a finite padding value",
			       "padding_value %g", (double)p->padding_value);
	memcpy(&d.pad_value, &p->padding_value, 4);
	/* the device reads little-endian u32/u16 fields: a LE host's bytes */
	memcpy(buf, &d, DRM_NPU_AIPP_DYN_SIZE);
	return NPURT_OK;
}
