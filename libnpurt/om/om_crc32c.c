// SPDX-License-Identifier: MIT
/*
 * om_crc32c.c - CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the
 * checksum of .om files. Uses the SSE4.2 crc32 instruction when the CPU has
 * it, a slice-by-8 table otherwise; both give the same value.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "om.h"
#include "om_internal.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/*
 * The hardware path runs three streams of CRC_STRIDE bytes side by side
 * (the crc32 instruction has a latency of three cycles and a throughput
 * of one: one stream leaves two thirds of it idle) and joins them: the
 * register after A || B is that of A advanced through |B| zero bytes,
 * xor that of B from zero. Advancing through CRC_STRIDE zero bytes is
 * linear over GF(2): four tables of 256 entries (crc_shift), made from the
 * one-zero-byte operator squared log2(CRC_STRIDE) times.
 */
#define CRC_STRIDE	4096
static uint32_t crc_shift[4][256];

/* @mat (32 columns: the images of 1 << i) times @vec. */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	for (; vec; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

static void crc_shift_init(void)
{
	uint32_t op[32], sq[32];

	/* one zero byte: c -> (c >> 8) ^ table[c & 0xff] */
	for (int i = 0; i < 32; i++) {
		uint32_t c = 1u << i;

		op[i] = (c >> 8) ^ crc_table[0][c & 0xff];
	}
	for (int n = 1; n < CRC_STRIDE; n <<= 1) {
		for (int i = 0; i < 32; i++)
			sq[i] = gf2_times(op, op[i]);
		memcpy(op, sq, sizeof(op));
	}
	for (int k = 0; k < 4; k++)
		for (uint32_t b = 0; b < 256; b++)
			crc_shift[k][b] = gf2_times(op, b << (8 * k));
}

static void crc_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xff];
	crc_shift_init();
}

/* @c advanced through CRC_STRIDE zero bytes. */
static uint32_t crc_advance(uint32_t c)
{
	return crc_shift[0][c & 0xff] ^ crc_shift[1][(c >> 8) & 0xff] ^
	       crc_shift[2][(c >> 16) & 0xff] ^ crc_shift[3][c >> 24];
}

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t len)
{
	pthread_once(&crc_once, crc_table_init);
	while (len && ((uintptr_t)p & 7)) {
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		v ^= c;
		c = crc_table[7][v & 0xff] ^ crc_table[6][(v >> 8) & 0xff] ^
		    crc_table[5][(v >> 16) & 0xff] ^
		    crc_table[4][(v >> 24) & 0xff] ^
		    crc_table[3][(v >> 32) & 0xff] ^
		    crc_table[2][(v >> 40) & 0xff] ^
		    crc_table[1][(v >> 48) & 0xff] ^ crc_table[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t len)
{
	uint64_t c64;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi(c, *p++);
		len--;
	}
	if (len >= 3 * CRC_STRIDE)
		pthread_once(&crc_once, crc_table_init);
	while (len >= 3 * CRC_STRIDE) {
		uint64_t a = c, b = 0, d = 0;

		for (size_t i = 0; i < CRC_STRIDE; i += 8) {
			uint64_t va, vb, vd;

			memcpy(&va, p + i, 8);
			memcpy(&vb, p + CRC_STRIDE + i, 8);
			memcpy(&vd, p + 2 * CRC_STRIDE + i, 8);
			a = __builtin_ia32_crc32di(a, va);
			b = __builtin_ia32_crc32di(b, vb);
			d = __builtin_ia32_crc32di(d, vd);
		}
		c = crc_advance(crc_advance((uint32_t)a) ^ (uint32_t)b) ^
		    (uint32_t)d;
		p += 3 * CRC_STRIDE;
		len -= 3 * CRC_STRIDE;
	}
	c64 = c;
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		len -= 8;
	}
	c = (uint32_t)c64;
	while (len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}

static int have_hw(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	return cached;
}
#endif

uint32_t om_crc32c(uint32_t crc, const void *data, size_t len)
{
	uint32_t c = ~crc;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (have_hw())
		return ~crc_hw(c, data, len);
#endif
	return ~crc_sw(c, data, len);
}

/* The table path alone, for the unit test that compares both. */
uint32_t om_crc32c_portable(uint32_t crc, const void *data, size_t len)
{
	return ~crc_sw(~crc, data, len);
}
