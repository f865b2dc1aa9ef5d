/* SPDX-License-Identifier: MIT */
/*
 * om_bigbuf.h - buffers for a model's weights, backed by transparent huge
 * pages where the kernel offers them (madvise mode).
 *
 * Why: on its way from ONNX to a .om and from a .om to the device, a
 * model's weights land in fresh memory several times (the unpacked
 * protobuf, the transformed weights, the writer's weights buffer, which
 * becomes the file image).
 * With 4 KiB pages each 4 KiB of them costs a page fault on first touch:
 * compiling resnet50 (100 MB of weights) spent about half of its time in
 * page faults on the development VM. Advising the 2 MiB-aligned interior
 * of a large buffer as MADV_HUGEPAGE before it is touched makes that one
 * fault per 2 MiB. The advice is a hint: where THP is off (or the call is
 * refused) the buffer is an ordinary one.
 *
 * Buffers come from malloc() and go back with free(): any owner may free
 * them. Small ones (under OM_BIGBUF_MIN) get no advice. Header-only: the
 * compiler's front end and the .om library both use it.
 */
#ifndef OM_BIGBUF_H
#define OM_BIGBUF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define OM_BIGBUF_MIN	((size_t)2 << 20)
#define OM_BIGBUF_HUGE	((uintptr_t)2 << 20)

/* om_bigbuf_advise() - advise @p[0..@n) for huge pages (before touching) */
static inline void om_bigbuf_advise(void *p, size_t n)
{
	uintptr_t lo = ((uintptr_t)p + OM_BIGBUF_HUGE - 1) &
		       ~(OM_BIGBUF_HUGE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(OM_BIGBUF_HUGE - 1);

	if (!p || n < OM_BIGBUF_MIN || hi <= lo)
		return;
#ifdef MADV_HUGEPAGE
	/* a hint: EINVAL where THP is not built in changes nothing */
	(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
}

/*
 * om_bigbuf_alloc() - malloc(@n) (1 byte for 0), advised; NULL on failure
 *
 * A buffer of OM_BIGBUF_MIN or more starts on a 2 MiB boundary, so that
 * all but its last partial 2 MiB can be huge pages (the address space
 * before it is reserved, never touched).
 */
static inline void *om_bigbuf_alloc(size_t n)
{
	void *p;

	if (n < OM_BIGBUF_MIN)
		return malloc(n ? n : 1);
	if (posix_memalign(&p, OM_BIGBUF_HUGE, n))
		return NULL;
	om_bigbuf_advise(p, n);
	return p;
}

#endif /* OM_BIGBUF_H */
