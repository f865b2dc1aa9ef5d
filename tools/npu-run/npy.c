// SPDX-License-Identifier: MIT
/*
 * npy.c - the .npy reader/writer of npu-run. Strict: the header must be the
 * dict NumPy writes ({'descr': ..., 'fortran_order': False, 'shape': (...)})
 * and the data exactly as long as the shape says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/npu_drm.h>

#include "npy.h"
#include "om.h"

static const struct {
	const char *descr;
	uint32_t dtype;
} descrs[] = {
	{ "<f4", DRM_NPU_DTYPE_F32 }, { "<f2", DRM_NPU_DTYPE_F16 },
	{ "|i1", DRM_NPU_DTYPE_I8 }, { "|u1", DRM_NPU_DTYPE_U8 },
	{ "<i4", DRM_NPU_DTYPE_I32 }, { "<i8", DRM_NPU_DTYPE_I64 },
	{ "|b1", DRM_NPU_DTYPE_BOOL }, { "<b1", DRM_NPU_DTYPE_BOOL },
	{ "<i1", DRM_NPU_DTYPE_I8 }, { "<u1", DRM_NPU_DTYPE_U8 },
	{ "<f8", DRM_NPU_DTYPE_F64 }, { "<i2", DRM_NPU_DTYPE_I16 },
	{ "<u2", DRM_NPU_DTYPE_U16 }, { "<u4", DRM_NPU_DTYPE_U32 },
	{ "<u8", DRM_NPU_DTYPE_U64 },
	/* numpy has no bfloat16: its bits as uint16, as ONNX's tools write
	 * them (reads find U16 first; npu-run takes U16 for a BF16 input) */
	{ "<u2", DRM_NPU_DTYPE_BF16 },
};

void npy_free(struct npy_array *a)
{
	free(a->data);
	a->data = NULL;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* Parses the header dict; 0 or -EINVAL. */
static int parse_header(const char *h, struct npy_array *a, char *err,
			const char *path)
{
	const char *d = strstr(h, "'descr':"), *f = strstr(h, "'fortran_order':");
	const char *s = strstr(h, "'shape':");
	char descr[16];
	size_t i;

	if (!d || !f || !s) {
		snprintf(err, 256, "%s: header lacks descr, fortran_order or "
			 "shape", path);
		return -EINVAL;
	}
	d = skip_ws(d + 8);
	if (*d != '\'' || sscanf(d + 1, "%15[^']", descr) != 1) {
		snprintf(err, 256, "%s: unreadable descr", path);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(descrs) / sizeof(descrs[0]); i++)
		if (!strcmp(descr, descrs[i].descr))
			break;
	if (i == sizeof(descrs) / sizeof(descrs[0])) {
		snprintf(err, 256, "%s: dtype '%s' unsupported; use float32, "
			 "float16, float64, int8, uint8, int16, uint16, int32, "
			 "uint32, int64, uint64 or bool (little-endian; "
			 "bfloat16 as uint16 bits)", path, descr);
		return -EINVAL;
	}
	a->dtype = descrs[i].dtype;
	f = skip_ws(f + 16);
	if (strncmp(f, "False", 5)) {
		snprintf(err, 256, "%s: Fortran-order arrays unsupported; save "
			 "with np.ascontiguousarray", path);
		return -EINVAL;
	}
	s = skip_ws(s + 8);
	if (*s++ != '(') {
		snprintf(err, 256, "%s: shape is not a tuple", path);
		return -EINVAL;
	}
	a->rank = 0;
	for (;;) {
		char *end;
		unsigned long long v;

		s = skip_ws(s);
		if (*s == ')')
			break;
		if (*s < '0' || *s > '9') {
			snprintf(err, 256, "%s: bad shape", path);
			return -EINVAL;
		}
		v = strtoull(s, &end, 10);
		if (a->rank == NPY_MAX_RANK) {
			snprintf(err, 256, "%s: rank above %d", path,
				 NPY_MAX_RANK);
			return -EINVAL;
		}
		a->dims[a->rank++] = v;
		s = skip_ws(end);
		if (*s == ',')
			s++;
	}
	return 0;
}

int npy_read(const char *path, struct npy_array *a, char *err)
{
	unsigned char pre[10];
	uint32_t hlen;
	uint64_t need;
	char *h = NULL;
	FILE *fp;
	int ok, ret = -EINVAL;

	memset(a, 0, sizeof(*a));
	fp = fopen(path, "rb");
	if (!fp) {
		ret = -errno;
		snprintf(err, 256, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	if (fread(pre, 1, 8, fp) != 8 || memcmp(pre, "\x93NUMPY", 6)) {
		snprintf(err, 256, "%s is not a .npy file (bad magic)", path);
		goto out;
	}
	if (pre[6] == 1) {
		if (fread(pre + 8, 1, 2, fp) != 2)
			goto trunc;
		hlen = pre[8] | (uint32_t)pre[9] << 8;
	} else if (pre[6] == 2 || pre[6] == 3) {
		unsigned char l[4];

		if (fread(l, 1, 4, fp) != 4)
			goto trunc;
		hlen = l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 |
		       (uint32_t)l[3] << 24;
	} else {
		snprintf(err, 256, "%s: .npy version %u.%u unsupported", path,
			 pre[6], pre[7]);
		goto out;
	}
	if (hlen > 65536) {
		snprintf(err, 256, "%s: header of %u bytes is too long", path,
			 hlen);
		goto out;
	}
	h = calloc(1, hlen + 1);
	if (!h || fread(h, 1, hlen, fp) != hlen)
		goto trunc;
	ret = parse_header(h, a, err, path);
	if (ret)
		goto out;
	ret = -EINVAL;
	need = om_shape_bytes(a->dtype, a->rank, a->dims, &ok);
	if (!ok || need > (1ull << 40)) {
		snprintf(err, 256, "%s: shape too large", path);
		goto out;
	}
	a->size = (size_t)need;
	a->data = malloc(a->size ? a->size : 1);
	if (!a->data) {
		ret = -ENOMEM;
		snprintf(err, 256, "%s: out of memory", path);
		goto out;
	}
	if (fread(a->data, 1, a->size, fp) != a->size)
		goto trunc;
	if (fgetc(fp) != EOF) {
		snprintf(err, 256, "%s: data longer than its shape says", path);
		goto out;
	}
	ret = 0;
	goto out;
trunc:
	snprintf(err, 256, "%s: truncated", path);
	ret = -EINVAL;
out:
	if (ret)
		npy_free(a);
	free(h);
	fclose(fp);
	return ret;
}

int npy_write(const char *path, uint32_t dtype, uint32_t rank,
	      const uint64_t *dims, const void *data, char *err)
{
	char hdr[256];
	const char *descr = NULL;
	size_t used, total, size;
	FILE *fp;
	int n;

	for (size_t i = 0; i < sizeof(descrs) / sizeof(descrs[0]); i++)
		if (descrs[i].dtype == dtype) {
			descr = descrs[i].descr;
			break;
		}
	if (!descr || rank > NPY_MAX_RANK) {
		snprintf(err, 256, "%s: cannot write dtype %u rank %u", path,
			 dtype, rank);
		return -EINVAL;
	}
	n = snprintf(hdr, sizeof(hdr), "{'descr': '%s', 'fortran_order': "
		     "False, 'shape': (", descr);
	used = (size_t)n;
	for (uint32_t i = 0; i < rank; i++)
		used += (size_t)snprintf(hdr + used, sizeof(hdr) - used,
					 "%llu%s", (unsigned long long)dims[i],
					 rank == 1 || i + 1 < rank ? ", " : "");
	if (rank == 1)
		used -= 1;	/* "(n,)" */
	used += (size_t)snprintf(hdr + used, sizeof(hdr) - used, "), }");
	/* Pad with spaces so data starts 64-aligned; end with '\n'. */
	total = (10 + used + 1 + 63) / 64 * 64;
	while (10 + used + 1 < total)
		hdr[used++] = ' ';
	hdr[used++] = '\n';
	size = (size_t)om_shape_bytes(dtype, rank, dims, NULL);
	fp = fopen(path, "wb");
	if (!fp) {
		n = -errno;
		snprintf(err, 256, "cannot create %s: %s", path,
			 strerror(errno));
		return n;
	}
	fwrite("\x93NUMPY\x01\x00", 1, 8, fp);
	fputc((int)(used & 0xff), fp);
	fputc((int)(used >> 8), fp);
	fwrite(hdr, 1, used, fp);
	if (size)
		fwrite(data, 1, size, fp);
	if (fclose(fp)) {
		snprintf(err, 256, "cannot write %s", path);
		return -EIO;
	}
	return 0;
}
