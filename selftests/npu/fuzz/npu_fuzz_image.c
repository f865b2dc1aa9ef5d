// SPDX-License-Identifier: MIT
/*
 * npu_fuzz_image.c - the decode path of libnpurt's image API
 * (libnpurt/src/image_decode.c: libjpeg-turbo, libpng) under libFuzzer:
 * truncated files, huge declared sizes, corrupt tables, odd subsampling.
 * The pixel limit is 2^20 here so that one input decodes in milliseconds;
 * a decoded image must have the size its header declared, within it.
 *
 * Built twice: with -DNPU_FUZZ_IMAGE_MAIN it is a plain C program that
 * replays files (make check's corpus replay), without it the libFuzzer
 * target (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_decode.h"

#define FUZZ_MAX_PIXELS	(1ull << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_pixels px;
	char why[256];
	enum rt_decode_result r;

	r = rt_image_decode(data, size, FUZZ_MAX_PIXELS, &px, why,
			    sizeof(why));
	if (r == RT_DECODE_OK) {
		volatile uint8_t sink;
		uint64_t n = (uint64_t)px.width * px.height * 3;

		if (!px.data || !px.width || !px.height ||
		    (uint64_t)px.width * px.height > FUZZ_MAX_PIXELS)
			abort();
		/* touch the first and last byte: the whole buffer exists */
		sink = px.data[0];
		sink = px.data[n - 1];
		(void)sink;
		free(px.data);
	} else if (px.data || !why[0]) {
		abort();	/* a failure frees and says why */
	}
	return 0;
}

#ifdef NPU_FUZZ_IMAGE_MAIN
/* Replay: each file argument once; TAP-ish lines, exit 1 on a crash-free
 * contract violation (abort() above kills the process instead). */
int main(int argc, char **argv)
{
	int i, ok = 0, refused = 0;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *buf;
		long n;
		struct rt_pixels px;
		char why[256];

		if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		rewind(f);
		buf = malloc(n ? (size_t)n : 1);
		if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		if (rt_image_decode(buf, (size_t)n, FUZZ_MAX_PIXELS, &px, why,
				    sizeof(why)) == RT_DECODE_OK) {
			ok++;
			free(px.data);
		} else {
			refused++;
		}
		free(buf);
	}
	printf("# %d decoded, %d refused\n", ok, refused);
	return 0;
}
#endif
