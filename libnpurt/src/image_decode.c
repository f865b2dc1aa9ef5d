// SPDX-License-Identifier: MIT
/*
 * image_decode.c - JPEG and PNG to RGB888 (Documentation/media.rst,
 * "Decoding").
 *
 * Both libraries report fatal errors through a callback that must not
 * return: ours copies the message and longjmp()s back to the decode call,
 * which frees what it allocated. libjpeg's warnings (a truncated file,
 * corrupt entropy data: it would go on and paint grey) are errors here
 * too, as is any libpng warning about data. The pixel limit is checked on
 * the header, before a row buffer exists.
 */
#include "image_decode.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

static void set_why(char *why, size_t len, const char *fmt, const char *a)
{
	if (why && len)
		snprintf(why, len, fmt, a);
}

static enum rt_decode_result check_size(uint64_t w, uint64_t h,
					uint64_t max_pixels, char *why,
					size_t why_len)
{
	char msg[128];

	if (!w || !h) {
		set_why(why, why_len, "%s", "the header declares an empty image");
		return RT_DECODE_CORRUPT;
	}
	if (w * h > max_pixels) {
		snprintf(msg, sizeof(msg),
			 "%llux%llu pixels declared, above the limit of %llu",
			 (unsigned long long)w, (unsigned long long)h,
			 (unsigned long long)max_pixels);
		set_why(why, why_len, "%s", msg);
		return RT_DECODE_TOO_LARGE;
	}
	return RT_DECODE_OK;
}

/* ---- JPEG ---- */

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jmp;
	char msg[JMSG_LENGTH_MAX];
	int warnings;
	enum rt_decode_result result;
};

static void jpeg_fail(j_common_ptr cinfo)
{
	struct jerr *e = (struct jerr *)cinfo->err;

	(*cinfo->err->format_message)(cinfo, e->msg);
	longjmp(e->jmp, 1);
}

/* Warnings (level -1) make the file corrupt; trace messages are dropped. */
static void jpeg_message(j_common_ptr cinfo, int level)
{
	struct jerr *e = (struct jerr *)cinfo->err;

	if (level < 0 && !e->warnings++)
		(*cinfo->err->format_message)(cinfo, e->msg);
}

static void jpeg_progress(j_common_ptr cinfo)
{
	struct jerr *e = (struct jerr *)cinfo->err;
	j_decompress_ptr d = (j_decompress_ptr)cinfo;

	if (d->input_scan_number > RT_DECODE_MAX_SCANS) {
		snprintf(e->msg, sizeof(e->msg),
			 "more than %d progressive scans", RT_DECODE_MAX_SCANS);
		longjmp(e->jmp, 1);
	}
}

static enum rt_decode_result decode_jpeg(const uint8_t *data, size_t size,
					 uint64_t max_pixels,
					 struct rt_pixels *out, char *why,
					 size_t why_len)
{
	struct jpeg_decompress_struct ci;
	struct jpeg_progress_mgr prog;
	struct jerr e;
	uint8_t *volatile pix = NULL;
	enum rt_decode_result r;

	memset(&ci, 0, sizeof(ci));
	memset(&e, 0, sizeof(e));
	ci.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = jpeg_fail;
	e.pub.emit_message = jpeg_message;
	if (setjmp(e.jmp)) {
		free(pix);
		jpeg_destroy_decompress(&ci);
		set_why(why, why_len, "%s", e.msg);
		return e.result ? e.result : RT_DECODE_CORRUPT;
	}
	jpeg_create_decompress(&ci);
	prog.progress_monitor = jpeg_progress;
	ci.progress = &prog;
	/* libjpeg's own working memory: a bound for hostile headers */
	ci.mem->max_memory_to_use = 512l << 20;
	jpeg_mem_src(&ci, data, (unsigned long)size);
	jpeg_read_header(&ci, TRUE);
	r = check_size(ci.image_width, ci.image_height, max_pixels, why,
		       why_len);
	if (r) {
		jpeg_destroy_decompress(&ci);
		return r;
	}
	ci.out_color_space = JCS_RGB;	/* grey and YCbCr to RGB */
	jpeg_start_decompress(&ci);
	if (ci.output_components != 3) {
		snprintf(e.msg, sizeof(e.msg), "%d output components",
			 ci.output_components);
		longjmp(e.jmp, 1);
	}
	pix = malloc((size_t)ci.output_width * ci.output_height * 3);
	if (!pix) {
		e.result = RT_DECODE_NOMEM;
		snprintf(e.msg, sizeof(e.msg), "out of memory");
		longjmp(e.jmp, 1);
	}
	while (ci.output_scanline < ci.output_height) {
		JSAMPROW row = pix + (size_t)ci.output_scanline *
				     ci.output_width * 3;

		jpeg_read_scanlines(&ci, &row, 1);
		if (e.warnings)
			break;
	}
	if (!e.warnings)
		jpeg_finish_decompress(&ci);
	if (e.warnings) {
		free(pix);
		jpeg_destroy_decompress(&ci);
		set_why(why, why_len, "%s", e.msg);
		return RT_DECODE_CORRUPT;
	}
	out->data = pix;
	out->width = ci.output_width;
	out->height = ci.output_height;
	out->kind = "JPEG";
	jpeg_destroy_decompress(&ci);
	return RT_DECODE_OK;
}

/* ---- PNG ---- */

struct pngsrc {
	const uint8_t *p;
	size_t left;
	char msg[256];
};

static void png_fail(png_structp png, png_const_charp msg)
{
	struct pngsrc *s = png_get_error_ptr(png);

	snprintf(s->msg, sizeof(s->msg), "%s", msg);
	png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;	/* benign ones (unknown chunks, sRGB profiles) */
}

static void png_read(png_structp png, png_bytep dst, size_t n)
{
	struct pngsrc *s = png_get_io_ptr(png);

	if (n > s->left)
		png_error(png, "truncated file (read past the end)");
	memcpy(dst, s->p, n);
	s->p += n;
	s->left -= n;
}

static enum rt_decode_result decode_png(const uint8_t *data, size_t size,
					uint64_t max_pixels,
					struct rt_pixels *out, char *why,
					size_t why_len)
{
	struct pngsrc src = { data, size, "" };
	png_structp png;
	png_infop info = NULL;
	uint8_t *volatile pix = NULL;
	png_bytep *volatile rows = NULL;
	enum rt_decode_result r;
	png_uint_32 w, h, y;
	int depth, color;

	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_fail,
				     png_warn);
	if (!png || !(info = png_create_info_struct(png))) {
		png_destroy_read_struct(&png, NULL, NULL);
		set_why(why, why_len, "%s", "out of memory");
		return RT_DECODE_NOMEM;
	}
	if (setjmp(png_jmpbuf(png))) {
		free(pix);
		free(rows);
		png_destroy_read_struct(&png, &info, NULL);
		set_why(why, why_len, "%s", src.msg);
		return RT_DECODE_CORRUPT;
	}
	png_set_read_fn(png, &src, png_read);
	/* no chunk (zTXt, iCCP...) may inflate past 8 MiB */
	png_set_chunk_malloc_max(png, 8u << 20);
	png_set_user_limits(png, 1u << 20, 1u << 20);
	png_read_info(png, info);
	png_get_IHDR(png, info, &w, &h, &depth, &color, NULL, NULL, NULL);
	r = check_size(w, h, max_pixels, why, why_len);
	if (r) {
		png_destroy_read_struct(&png, &info, NULL);
		return r;
	}
	png_set_expand(png);		/* palette, grey < 8 bits, tRNS */
	png_set_strip_16(png);
	png_set_strip_alpha(png);
	png_set_gray_to_rgb(png);
	png_set_interlace_handling(png);
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)w * 3)
		png_error(png, "unexpected row size after the RGB transforms");
	pix = malloc((size_t)w * h * 3);
	rows = malloc(sizeof(*rows) * h);
	if (!pix || !rows)
		png_error(png, "out of memory");
	for (y = 0; y < h; y++)
		rows[y] = pix + (size_t)y * w * 3;
	png_read_image(png, rows);
	png_read_end(png, NULL);
	free(rows);
	png_destroy_read_struct(&png, &info, NULL);
	out->data = pix;
	out->width = w;
	out->height = h;
	out->kind = "PNG";
	return RT_DECODE_OK;
}

enum rt_decode_result rt_image_decode(const void *data, size_t size,
				      uint64_t max_pixels,
				      struct rt_pixels *out,
				      char *why, size_t why_len)
{
	static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
					    0x1a, '\n' };
	const uint8_t *p = data;

	memset(out, 0, sizeof(*out));
	if (why && why_len)
		why[0] = 0;
	if (!max_pixels)
		max_pixels = RT_DECODE_MAX_PIXELS_DEFAULT;
	if (size >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
		return decode_jpeg(p, size, max_pixels, out, why, why_len);
	if (size >= 8 && !memcmp(p, png_sig, 8))
		return decode_png(p, size, max_pixels, out, why, why_len);
	if (why && why_len)
		snprintf(why, why_len,
			 "not a JPEG or PNG file (%zu bytes, starting %02x %02x %02x %02x)",
			 size, size > 0 ? p[0] : 0, size > 1 ? p[1] : 0,
			 size > 2 ? p[2] : 0, size > 3 ? p[3] : 0);
	return RT_DECODE_UNKNOWN;
}
