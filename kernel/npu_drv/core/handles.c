// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * handles.c - per-file handle tables: small integers naming objects, the
 * lowest free one first (as idr_alloc(1, 0) does for GEM handles). Handle 0
 * is never valid. The owning file's lock protects the table.
 */
#include "npu_core_priv.h"

#define NPU_HANDLES_MAX		BIT(20)

int npu_handles_alloc(struct npu_handles *t, void *obj, u32 *handle)
{
	u32 i;

	if (t->count == t->cap) {
		u32 ncap = t->cap ? t->cap * 2 : 16;
		void **n;

		if (ncap > NPU_HANDLES_MAX)
			return -ENOSPC;
		n = npu_zalloc(ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		if (t->cap)
			memcpy(n, t->objs, t->cap * sizeof(*n));
		npu_free(t->objs);
		t->objs = n;
		t->cap = ncap;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->objs[i]) {
			t->objs[i] = obj;
			t->count++;
			*handle = i + 1;
			return 0;
		}
	}
	return -ENOSPC;	/* not reached: count < cap */
}

void *npu_handles_find(struct npu_handles *t, u32 handle)
{
	if (handle == 0 || handle > t->cap)
		return NULL;
	return t->objs[handle - 1];
}

void *npu_handles_remove(struct npu_handles *t, u32 handle)
{
	void *obj = npu_handles_find(t, handle);

	if (obj) {
		t->objs[handle - 1] = NULL;
		t->count--;
	}
	return obj;
}

void npu_handles_fini(struct npu_handles *t)
{
	npu_free(t->objs);
	t->objs = NULL;
	t->cap = 0;
	t->count = 0;
}
