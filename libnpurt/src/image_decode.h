/* SPDX-License-Identifier: MIT */
/*
 * image_decode.h - JPEG (libjpeg-turbo) and PNG (libpng) decoding to
 * packed RGB888 in host memory: the untrusted-file part of libnpurt's
 * media API, self-contained so that the decode fuzz target links it alone.
 */
#ifndef NPURT_IMAGE_DECODE_H
#define NPURT_IMAGE_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* Default pixel limit against decompression bombs: 64 Mpixels. */
#define RT_DECODE_MAX_PIXELS_DEFAULT	(64ull << 20)
/* Progressive JPEG scans beyond this are refused (CPU bombs). */
#define RT_DECODE_MAX_SCANS		256

enum rt_decode_result {
	RT_DECODE_OK = 0,
	RT_DECODE_UNKNOWN = 1,		/* neither JPEG nor PNG */
	RT_DECODE_CORRUPT = 2,		/* the library refused the data */
	RT_DECODE_TOO_LARGE = 3,	/* above the pixel limit */
	RT_DECODE_NOMEM = 4,
};

/**
 * struct rt_pixels - a decoded image
 * @data: malloc'ed rows of width * 3 bytes, R, G, B (free() it)
 * @width, @height: > 0 on success
 * @kind: "JPEG" or "PNG"
 */
struct rt_pixels {
	uint8_t *data;
	uint32_t width, height;
	const char *kind;
};

/*
 * Decode @size bytes at @data. @max_pixels 0 means the default. On failure
 * @why (of @why_len bytes) says what is wrong, in the library's words where
 * it has them; @out->data is NULL. Never exits, never aborts: the libraries'
 * errors come back through their error managers (setjmp/longjmp).
 */
enum rt_decode_result rt_image_decode(const void *data, size_t size,
				      uint64_t max_pixels,
				      struct rt_pixels *out,
				      char *why, size_t why_len);

#endif /* NPURT_IMAGE_DECODE_H */
