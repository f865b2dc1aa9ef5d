/* SPDX-License-Identifier: MIT */
/*
 * npy.h - a small, strict reader/writer of NumPy .npy files (format
 * versions 1.0, 2.0 and 3.0; C order; little-endian or byte-order-free
 * dtypes f4 f2 i1 u1 i4 i8 b1).
 */
#ifndef NPU_NPY_H
#define NPU_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_RANK	6

struct npy_array {
	uint32_t dtype;			/* enum drm_npu_dtype */
	uint32_t rank;
	uint64_t dims[NPY_MAX_RANK];
	void *data;			/* malloc'ed */
	size_t size;			/* bytes */
};

/* 0, or -errno with @err (256 bytes) saying what is wrong. */
int npy_read(const char *path, struct npy_array *a, char *err);
int npy_write(const char *path, uint32_t dtype, uint32_t rank,
	      const uint64_t *dims, const void *data, char *err);
void npy_free(struct npy_array *a);

#endif
