// SPDX-License-Identifier: MIT
/*
 * test_media.c - libnpurt's image API: PNG and JPEG files made here with
 * libpng and libjpeg (encoders), decoded into device memory; hostile files
 * (truncated, garbage, declared sizes past the pixel limit, corrupt
 * tables) fail with a reason naming the file; the media unit's resize and
 * colour conversion on a stream against references computed here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

#include "rt_test_util.h"
#include "tap.h"

static npurt_context *ctx;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

/* ---- encoders (test data) ---- */

struct membuf {
	uint8_t *p;
	size_t n, cap;
};

static void png_put(png_structp png, png_bytep d, size_t n)
{
	struct membuf *b = png_get_io_ptr(png);

	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void png_nop(png_structp png)
{
	(void)png;
}

/* RGB (color 2) or grey (color 0) PNG; interlaced when @adam7. */
static struct membuf make_png(const uint8_t *px, uint32_t w, uint32_t h,
			      int grey, int adam7)
{
	struct membuf b = { 0 };
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
						  NULL, NULL);
	png_infop info = png_create_info_struct(png);
	uint32_t y;

	png_set_write_fn(png, &b, png_put, png_nop);
	png_set_IHDR(png, info, w, h, 8, grey ? PNG_COLOR_TYPE_GRAY :
		     PNG_COLOR_TYPE_RGB, adam7 ? PNG_INTERLACE_ADAM7 :
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	if (adam7) {
		png_bytep *rows = malloc(sizeof(*rows) * h);

		for (y = 0; y < h; y++)
			rows[y] = (png_bytep)px + (size_t)y * w * (grey ? 1 : 3);
		png_write_image(png, rows);
		free(rows);
	} else {
		for (y = 0; y < h; y++)
			png_write_row(png, px + (size_t)y * w * (grey ? 1 : 3));
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return b;
}

static struct membuf make_jpeg(const uint8_t *px, uint32_t w, uint32_t h,
			       int quality, int progressive)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr e;
	unsigned char *out = NULL;
	unsigned long n = 0;
	struct membuf b;

	c.err = jpeg_std_error(&e);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &out, &n);
	c.image_width = w;
	c.image_height = h;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, quality, TRUE);
	if (progressive)
		jpeg_simple_progression(&c);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < h) {
		JSAMPROW row = (JSAMPROW)px + (size_t)c.next_scanline * w * 3;

		jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	b.p = out;
	b.n = n;
	b.cap = n;
	return b;
}

static uint8_t *download(const npurt_image *img)
{
	size_t n = (size_t)img->stride * img->height;
	uint8_t *p = malloc(n);

	if (npurt_memcpy_d2h(p, img->mem, img->offset, n)) {
		free(p);
		return NULL;
	}
	return p;
}

/* ---- decode ---- */

static void test_png_exact(void)
{
	const uint32_t w = 37, h = 23;
	uint8_t *px = malloc(w * h * 3), *grey = malloc(w * h), *got = NULL;
	struct membuf b;
	npurt_image img;
	int ok = 0, adam7;

	for (uint32_t i = 0; i < w * h * 3; i++)
		px[i] = rnd8();
	for (uint32_t i = 0; i < w * h; i++)
		grey[i] = rnd8();
	for (adam7 = 0; adam7 < 2; adam7++) {
		b = make_png(px, w, h, 0, adam7);
		ok = !npurt_image_decode(ctx, b.p, b.n, "rgb.png", NULL, &img) &&
		     img.width == w && img.height == h &&
		     img.format == NPURT_PIXEL_RGB888 &&
		     (got = download(&img)) && !memcmp(got, px, w * h * 3);
		tap_ok(ok, "PNG RGB %ux%u%s decodes into device memory exactly",
		       w, h, adam7 ? " (Adam7 interlaced)" : "");
		free(got);
		got = NULL;
		npurt_image_free(&img);
		free(b.p);
	}
	b = make_png(grey, w, h, 1, 0);
	ok = !npurt_image_decode(ctx, b.p, b.n, "grey.png", NULL, &img) &&
	     (got = download(&img));
	for (uint32_t i = 0; ok && i < w * h; i++)
		ok = got[3 * i] == grey[i] && got[3 * i + 1] == grey[i] &&
		     got[3 * i + 2] == grey[i];
	tap_ok(ok, "PNG grey expands to RGB (R = G = B = Y)");
	free(got);
	npurt_image_free(&img);
	free(b.p);
	free(px);
	free(grey);
}

static void test_jpeg(void)
{
	const uint32_t w = 64, h = 48;
	uint8_t *px = malloc(w * h * 3), *got = NULL;
	struct membuf b;
	npurt_image img;
	double worst = 0;
	int ok, prog;

	/* smooth content: JPEG at quality 95 stays within a few levels */
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			px[(y * w + x) * 3] = (uint8_t)(x * 4);
			px[(y * w + x) * 3 + 1] = (uint8_t)(y * 5);
			px[(y * w + x) * 3 + 2] = (uint8_t)(128 + x - y);
		}
	for (prog = 0; prog < 2; prog++) {
		b = make_jpeg(px, w, h, 95, prog);
		ok = !npurt_image_decode(ctx, b.p, b.n, "a.jpg", NULL, &img) &&
		     img.width == w && img.height == h &&
		     (got = download(&img));
		worst = 0;
		for (uint32_t i = 0; ok && i < w * h * 3; i++)
			worst = fmax(worst, fabs((double)got[i] - px[i]));
		tap_ok(ok && worst <= 12, "JPEG%s %ux%u decodes: max |err| %.0f vs the source",
		       prog ? " (progressive)" : "", w, h, worst);
		free(got);
		got = NULL;
		npurt_image_free(&img);
		/* truncated: libjpeg would paint grey; here it is an error */
		npurt_clear_error();
		ok = npurt_image_decode(ctx, b.p, b.n * 2 / 3, "cut.jpg", NULL,
					&img) == NPURT_ERR_INVALID &&
		     strstr(rt_err(), "cut.jpg") && !img.mem;
		tap_ok(ok, "truncated JPEG%s refused: %s", prog ? " (progressive)" : "",
		       rt_err());
		free(b.p);
	}
	free(px);
}

static void test_hostile(void)
{
	static const uint8_t garbage[] = "GIF89a not what we decode";
	uint8_t px[8 * 8 * 3] = { 0 };
	npurt_decode_options opt = { .max_pixels = 16 };
	struct membuf b;
	npurt_image img;
	int ok;

	ok = npurt_image_decode(ctx, garbage, sizeof(garbage), "x.gif", NULL,
				&img) == NPURT_ERR_INVALID &&
	     strstr(rt_err(), "x.gif") && strstr(rt_err(), "not a JPEG or PNG");
	tap_ok(ok, "garbage refused: %s", rt_err());
	ok = npurt_image_decode(ctx, garbage, 0, "empty.png", NULL, &img) ==
	     NPURT_ERR_INVALID;
	tap_ok(ok, "empty file refused: %s", rt_err());

	b = make_png(px, 8, 8, 0, 0);
	ok = npurt_image_decode(ctx, b.p, b.n, "big.png", &opt, &img) ==
	     NPURT_ERR_UNSUPPORTED && strstr(rt_err(), "8x8") && !img.mem;
	tap_ok(ok, "PNG above max_pixels refused before decoding: %s",
	       rt_err());
	/* IHDR width = 2^30 (over libpng's user limit), CRC fixed up */
	b.p[16] = 0x40;
	b.p[19] = 0;
	{
		uint32_t crc = (uint32_t)crc32(0L, b.p + 12, 17);

		b.p[29] = (uint8_t)(crc >> 24);
		b.p[30] = (uint8_t)(crc >> 16);
		b.p[31] = (uint8_t)(crc >> 8);
		b.p[32] = (uint8_t)crc;
	}
	ok = npurt_image_decode(ctx, b.p, b.n, "wide.png", NULL, &img) != 0 &&
	     strstr(rt_err(), "wide.png") && !img.mem;
	tap_ok(ok, "PNG declaring 2^30 columns refused: %s", rt_err());
	b.p[16] = 0;
	b.p[19] = 8;
	{
		uint32_t crc = (uint32_t)crc32(0L, b.p + 12, 17);

		b.p[29] = (uint8_t)(crc >> 24);
		b.p[30] = (uint8_t)(crc >> 16);
		b.p[31] = (uint8_t)(crc >> 8);
		b.p[32] = (uint8_t)crc;
	}
	b.p[45] ^= 0xff;	/* IDAT data: CRC mismatch */
	ok = npurt_image_decode(ctx, b.p, b.n, "crc.png", NULL, &img) ==
	     NPURT_ERR_INVALID;
	tap_ok(ok, "PNG with corrupt IDAT data (bad CRC) refused: %s", rt_err());
	free(b.p);

	b = make_jpeg(px, 8, 8, 90, 0);
	/* SOF0 height/width at 60000 x 60000: 3.6 Gpixels declared */
	for (size_t i = 0; i + 9 < b.n; i++)
		if (b.p[i] == 0xff && b.p[i + 1] == 0xc0) {
			b.p[i + 5] = 0xea;
			b.p[i + 6] = 0x60;
			b.p[i + 7] = 0xea;
			b.p[i + 8] = 0x60;
			break;
		}
	ok = npurt_image_decode(ctx, b.p, b.n, "bomb.jpg", NULL, &img) ==
	     NPURT_ERR_UNSUPPORTED && strstr(rt_err(), "60000x60000");
	tap_ok(ok, "JPEG declaring 60000x60000 refused by the pixel limit: %s",
	       rt_err());
	free(b.p);
	b = make_jpeg(px, 8, 8, 90, 0);
	/* corrupt the first DHT's code counts */
	for (size_t i = 0; i + 20 < b.n; i++)
		if (b.p[i] == 0xff && b.p[i + 1] == 0xc4) {
			memset(b.p + i + 5, 0xff, 16);
			break;
		}
	ok = npurt_image_decode(ctx, b.p, b.n, "dht.jpg", NULL, &img) ==
	     NPURT_ERR_INVALID && strstr(rt_err(), "dht.jpg");
	tap_ok(ok, "JPEG with a corrupt Huffman table refused: %s", rt_err());
	free(b.p);
	ok = npurt_image_decode_file(ctx, "/nonexistent/a.jpg", NULL, &img) ==
	     NPURT_ERR_IO && strstr(rt_err(), "/nonexistent/a.jpg");
	tap_ok(ok, "missing file: %s", rt_err());
}

/* ---- the media unit ---- */

static void test_resize_convert(void)
{
	const uint32_t w = 40, h = 30, ow = 17, oh = 13;
	npurt_image src, dst, nv, rgb;
	npurt_resize_options ro = { .mode = NPURT_RESIZE_NEAREST,
				    .crop_x = 4, .crop_y = 2, .crop_w = 34,
				    .crop_h = 26, .pad_top = 1, .pad_left = 2,
				    .border = { 7, 8, 9, 0 } };
	uint8_t *px = malloc(w * h * 3), *got = NULL, *nvh;
	npurt_stream *s = NULL;
	int ok;

	for (uint32_t i = 0; i < w * h * 3; i++)
		px[i] = rnd8();
	ok = !npurt_image_alloc(ctx, w, h, NPURT_PIXEL_RGB888, &src) &&
	     !npurt_image_alloc(ctx, ow, oh, NPURT_PIXEL_RGB888, &dst) &&
	     !npurt_memcpy_h2d(src.mem, 0, px, w * h * 3) &&
	     !npurt_stream_create(ctx, NPURT_PRIORITY_NORMAL, &s) &&
	     !npurt_image_resize(&src, &dst, &ro, s) &&
	     !npurt_stream_synchronize(s) && (got = download(&dst));
	for (uint32_t y = 0; ok && y < oh; y++)
		for (uint32_t x = 0; x < ow; x++)
			for (uint32_t c = 0; c < 3; c++) {
				uint8_t want;

				if (y < 1 || x < 2) {
					want = (uint8_t)(7 + c);
				} else {
					uint32_t sy = 2 + (y - 1) * 26 / 12;
					uint32_t sx = 4 + (x - 2) * 34 / 15;

					want = px[(sy * w + sx) * 3 + c];
				}
				ok &= got[(y * ow + x) * 3 + c] == want;
			}
	tap_ok(ok, "npurt_image_resize: nearest of a crop into a bordered image, on a stream: exact (%s)",
	       ok ? "ok" : rt_err());
	free(got);
	got = NULL;

	/* NV12 -> RGB on the device against the BT.601 full-range formula */
	nvh = malloc(w * h + w * h / 2);
	for (uint32_t i = 0; i < w * h * 3 / 2; i++)
		nvh[i] = rnd8();
	ok = !npurt_image_alloc(ctx, w, h, NPURT_PIXEL_NV12, &nv) &&
	     !npurt_image_alloc(ctx, w, h, NPURT_PIXEL_RGB888, &rgb) &&
	     !npurt_memcpy_h2d(nv.mem, 0, nvh, w * h * 3 / 2) &&
	     !npurt_image_convert(&nv, &rgb, 0, NULL) && (got = download(&rgb));
	{
		double worst = 0;

		for (uint32_t y = 0; ok && y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				double Y = nvh[y * w + x];
				double U = nvh[w * h + (y / 2) * w + (x / 2) * 2] - 128.0;
				double V = nvh[w * h + (y / 2) * w + (x / 2) * 2 + 1] - 128.0;
				double r[3] = { Y + 1.402 * V,
						Y - 0.344136 * U - 0.714136 * V,
						Y + 1.772 * U };

				for (int c = 0; c < 3; c++) {
					double v = r[c] < 0 ? 0 : r[c] > 255 ? 255 : r[c];

					worst = fmax(worst, fabs(got[(y * w + x) * 3 + c] - v));
				}
			}
		tap_ok(ok && worst <= 1.0,
		       "npurt_image_convert NV12 -> RGB (BT.601 full): max |err| %.2f vs JFIF's formula",
		       worst);
	}
	free(got);
	free(nvh);
	free(px);
	npurt_image_free(&src);
	npurt_image_free(&dst);
	npurt_image_free(&nv);
	npurt_image_free(&rgb);
	npurt_stream_destroy(s);
}

/* npurt_aipp_params_pack: the device's struct, byte for byte */
static void test_aipp_pack(void)
{
	npurt_aipp_params p = { .csc = 1, .matrix = { 298, 0, 409 },
				.input_bias = { 16, 128, 128 },
				.mean = { 1, 2, 3 }, .min = { 0.5f },
				.var_reci = { 2.0f, 3.0f, 4.0f },
				.padding_value = -1.0f };
	uint8_t b[NPURT_AIPP_PARAMS_SIZE];
	float f;
	int16_t m;
	int ok;

	ok = !npurt_aipp_params_pack(&p, b, sizeof(b));
	memcpy(&m, b + 4, 2);
	ok = ok && b[0] == 1 && m == 298 && b[22] == 16 && b[23] == 128 &&
	     b[28] == 1 && b[30] == 2;
	memcpy(&f, b + 36, 4);
	ok = ok && f == 0.5f;
	memcpy(&f, b + 52 + 4, 4);
	ok = ok && f == 3.0f;
	memcpy(&f, b + 68, 4);
	ok = ok && f == -1.0f && !b[72];
	p.var_reci[1] = INFINITY;
	ok = ok && npurt_aipp_params_pack(&p, b, sizeof(b)) ==
		   NPURT_ERR_INVALID &&
	     npurt_aipp_params_pack(&p, b, 75) == NPURT_ERR_INVALID;
	tap_ok(ok, "npurt_aipp_params_pack writes the documented 76-byte layout, refuses inf and short buffers");
}

int main(void)
{
	npurt_device *dev = NULL;

	tap_plan(18);
	if (npurt_init(0) || npurt_device_open(0, &dev) ||
	    npurt_context_create(dev, 0, &ctx)) {
		tap_ok(0, "runtime up: %s", rt_err());
		return 1;
	}
	test_png_exact();
	test_jpeg();
	test_hostile();
	test_resize_convert();
	test_aipp_pack();
	npurt_context_destroy(ctx);
	npurt_device_close(dev);
	npurt_finalize();
	return tap_failed ? 1 : 0;
}
