// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_pool2d.c - POOL2D: max / average over dilated windows, global average
 * and global max; NCHW or NC1HWC0 (pooling is per channel, so an NC1HWC0
 * tensor is simply N x C1 x C0 planes).
 *
 * F32 and F16 (computed in fp32); MAX kinds also I8/U8 (exact in fp32).
 * Padding never wins a max. Average divides by the taps inside the input,
 * or with COUNT_INCLUDE_PAD by the taps inside the padded input (PyTorch's
 * rule, which also covers ceil-mode windows that overhang the padding).
 * Sums are accumulated in double.
 *
 * Work unit: one output row of one plane; global kinds: one plane; windows
 * over NC1HWC0 operands: one output row of a C0 block (npu_pool_blocked()),
 * F32 MAX there with the C0 channels as vector lanes (same results).
 */
#include "npu_ops_float.h"
#include "npu_kern.h"

struct pool_ctx {
	const struct npu_kern *kern;	/* the ISA level's loops */
	const struct drm_npu_pool2d_params *p;
	const struct drm_npu_operand *in, *out;
	const void *x;
	void *y;
	u32 dt;			/* F32, F16 (math in fp32), I8/U8 (MAX only) */
	u64 planes_c;		/* planes per image: C, or C1 * C0 (>= 2^32 ok) */
	u32 c0;
};

/* Plane @pl < planes_c of image @n < N: inside the operand's shape. */
static u64 plane_off(const struct drm_npu_operand *o, u32 c0, u64 n, u64 pl)
{
	u64 off = n * o->strides[0];

	if (c0)
		return off + (pl / c0) * o->strides[1] +
		       (pl % c0) * o->strides[4];
	return off + pl * o->strides[1];
}

static inline float ld(u32 dt, const void *p, u64 i)
{
	if (dt == DRM_NPU_DTYPE_I8 || dt == DRM_NPU_DTYPE_U8)
		return (float)npu_ld_i(dt, p, i);	/* exact */
	return npu_ld_f(dt, p, i);
}

static inline void st(u32 dt, void *p, u64 i, float v)
{
	/*
	 * A max of inputs, or -inf for a window that holds padding only (an
	 * empty input, a dilated window over the pad): then the type's
	 * lowest value, as -inf is for floats (converting -inf is undefined).
	 */
	if (dt == DRM_NPU_DTYPE_I8 || dt == DRM_NPU_DTYPE_U8)
		npu_st_i(dt, p, i, v != -NPU_INFF ? (s64)v :
				   dt == DRM_NPU_DTYPE_I8 ? -128 : 0);
	else
		npu_st_f(dt, p, i, v);
}

static float window(const struct pool_ctx *cx, u64 xp, u32 oy, u64 ox)
{
	const struct drm_npu_pool2d_params *p = cx->p;
	u32 H = cx->in->shape[2], W = cx->in->shape[3];
	u64 ky, kx;
	s64 y0 = (s64)oy * p->stride_h - p->pad_top;
	s64 x0 = (s64)ox * p->stride_w - p->pad_left;
	s64 hpad = (s64)H + p->pad_bottom, wpad = (s64)W + p->pad_right;
	u64 sy = cx->in->strides[2], sx = cx->in->strides[3];
	float m = -NPU_INFF;
	double sum = 0;
	u64 cnt = 0, cnt_pad = 0;

	for (ky = 0; ky < p->kernel_h; ky++) {
		s64 iy = y0 + (s64)ky * p->dilation_h;

		for (kx = 0; kx < p->kernel_w; kx++) {
			s64 ix = x0 + (s64)kx * p->dilation_w;
			float v;

			if (iy < hpad && ix < wpad)
				cnt_pad++;
			if (iy < 0 || iy >= H || ix < 0 || ix >= W)
				continue;
			v = ld(cx->dt, cx->x, xp + (u64)iy * sy + (u64)ix * sx);
			cnt++;
			sum += v;
			if (v > m || v != v)
				m = v != v || m != m ? NPU_NANF : v;
		}
	}
	if (p->kind == DRM_NPU_POOL_MAX)
		return m;
	if (p->flags & DRM_NPU_POOL_COUNT_INCLUDE_PAD)
		cnt = cnt_pad;
	return cnt ? (float)(sum / (double)cnt) : 0.0f;
}

/*
 * MAX over F32 NC1HWC0 blocks of 16 contiguous channels: four 4-float
 * vectors. Per lane the result of window(): the largest input, NaN
 * (NPU_NANF) if any input is NaN, -inf for a window in the padding only.
 */
typedef float npu_v4f __attribute__((__vector_size__(4 * sizeof(u32))));
typedef s32 npu_v4i __attribute__((__vector_size__(16)));

/*
 * The interior pixels [*xa, *xb) of output row @oy (every tap inside the
 * input) and their taps' offsets from the pixel's first tap, when the
 * window has a valid row and at most MAX16_TAPS taps: then true.
 */
#define MAX16_TAPS	64

static bool max16_interior(const struct pool_ctx *cx, u32 oy, u64 *off,
			   u32 *nt, u64 *xa, u64 *xb, s64 *iy0)
{
	const struct drm_npu_pool2d_params *p = cx->p;
	u64 H = cx->in->shape[2], W = cx->in->shape[3];
	u64 span = (u64)(p->kernel_w - 1) * p->dilation_w, ky, kx;
	s64 y0 = (s64)oy * p->stride_h - p->pad_top;
	u32 lo = 0, hi = p->kernel_h;

	while (lo < hi && y0 + (s64)lo * p->dilation_h < 0)
		lo++;
	while (hi > lo && y0 + (s64)(hi - 1) * p->dilation_h >= (s64)H)
		hi--;
	if (lo >= hi || (u64)(hi - lo) * p->kernel_w > MAX16_TAPS ||
	    W + p->pad_left < span + 1)
		return false;
	*nt = 0;
	for (ky = lo; ky < hi; ky++)
		for (kx = 0; kx < p->kernel_w; kx++)
			off[(*nt)++] = (ky - lo) * p->dilation_h *
				       cx->in->strides[2] +
				       kx * p->dilation_w * cx->in->strides[3];
	*iy0 = y0 + (s64)lo * p->dilation_h;
	*xa = ((u64)p->pad_left + p->stride_w - 1) / p->stride_w;
	*xb = (W + p->pad_left - span - 1) / p->stride_w + 1;
	if (*xb > cx->out->shape[3])
		*xb = cx->out->shape[3];
	if (*xb < *xa)
		*xb = *xa;
	return true;
}

static void max16_row(const struct pool_ctx *cx, u64 xp, u64 yp, u32 oy)
{
	const struct drm_npu_pool2d_params *p = cx->p;
	u32 H = cx->in->shape[2], W = cx->in->shape[3];
	u64 ow = cx->out->shape[3], sy = cx->in->strides[2];
	u64 sx = cx->in->strides[3], ky, kx, ox, off[MAX16_TAPS], xa = 0, xb = 0;
	s64 y0 = (s64)oy * p->stride_h - p->pad_top, iy0 = 0;
	const float *x = cx->x;
	float *y = cx->y;
	float res[16];
	npu_v4f m[4], v;
	npu_v4i nan[4], gt;
	u32 k, nt = 0;
	bool in = max16_interior(cx, oy, off, &nt, &xa, &xb, &iy0);

	for (ox = 0; ox < ow; ox++) {
		s64 x0 = (s64)ox * p->stride_w - p->pad_left;

		if (in && ox == xa && xa < xb) {
			/* every tap inside: the level's loop, the same bits */
			cx->kern->max16_px(y + yp + ox * cx->out->strides[3],
					   cx->out->strides[3],
					   x + xp + (u64)iy0 * sy +
					   (u64)x0 * sx,
					   (u64)p->stride_w * sx, off, nt,
					   (u32)(xb - xa));
			ox = xb - 1;
			continue;
		}

		for (k = 0; k < 4; k++) {
			m[k] = (npu_v4f) { -NPU_INFF, -NPU_INFF, -NPU_INFF,
					  -NPU_INFF };
			nan[k] = (npu_v4i) { 0, 0, 0, 0 };
		}
		for (ky = 0; ky < p->kernel_h; ky++) {
			s64 iy = y0 + (s64)ky * p->dilation_h;

			if (iy < 0 || iy >= H)
				continue;
			for (kx = 0; kx < p->kernel_w; kx++) {
				s64 ix = x0 + (s64)kx * p->dilation_w;
				const float *xv;

				if (ix < 0 || ix >= W)
					continue;
				xv = x + xp + (u64)iy * sy + (u64)ix * sx;
				for (k = 0; k < 4; k++) {
					memcpy(&v, xv + 4 * k, sizeof(v));
					nan[k] |= v != v;
					gt = v > m[k];
					m[k] = (npu_v4f)((gt & (npu_v4i)v) |
							 (~gt & (npu_v4i)m[k]));
				}
			}
		}
		for (k = 0; k < 4; k++) {
			m[k] = (npu_v4f)((nan[k] & (npu_v4i)(npu_v4f) { NPU_NANF,
					  NPU_NANF, NPU_NANF, NPU_NANF }) |
					 (~nan[k] & (npu_v4i)m[k]));
			memcpy(res + 4 * k, &m[k], sizeof(m[k]));
		}
		memcpy(y + yp + ox * cx->out->strides[3], res, sizeof(res));
	}
}

/*
 * MAX over I8/U8 NC1HWC0 blocks of 32 contiguous channels (the int8
 * layout): two 16-byte vectors, the lowest value of the type for a window
 * in the padding only, as st() writes for window()'s -inf.
 */
typedef u8 npu_v16u __attribute__((__vector_size__(16)));
typedef s8 npu_v16s __attribute__((__vector_size__(16)));

static void max32_row(const struct pool_ctx *cx, u64 xp, u64 yp, u32 oy)
{
	const struct drm_npu_pool2d_params *p = cx->p;
	u32 H = cx->in->shape[2], W = cx->in->shape[3];
	u64 ow = cx->out->shape[3], sy = cx->in->strides[2];
	u64 sx = cx->in->strides[3], ky, kx, ox;
	s64 y0 = (s64)oy * p->stride_h - p->pad_top;
	int sgn = cx->dt == DRM_NPU_DTYPE_I8;
	const u8 *x = cx->x;
	u8 *y = cx->y;
	npu_v16u m[2], v;
	npu_v16s ms[2], vs;
	u32 k;

	for (ox = 0; ox < ow; ox++) {
		s64 x0 = (s64)ox * p->stride_w - p->pad_left;

		for (k = 0; k < 2; k++) {
			memset(&m[k], 0, sizeof(m[k]));
			memset(&ms[k], 0x80, sizeof(ms[k]));
		}
		for (ky = 0; ky < p->kernel_h; ky++) {
			s64 iy = y0 + (s64)ky * p->dilation_h;

			if (iy < 0 || iy >= H)
				continue;
			for (kx = 0; kx < p->kernel_w; kx++) {
				s64 ix = x0 + (s64)kx * p->dilation_w;
				const u8 *xv;

				if (ix < 0 || ix >= W)
					continue;
				xv = x + xp + (u64)iy * sy + (u64)ix * sx;
				for (k = 0; k < 2; k++) {
					if (sgn) {
						memcpy(&vs, xv + 16 * k, 16);
						ms[k] = (npu_v16s)(((vs > ms[k]) &
								    vs) |
								   (~(vs > ms[k]) &
								    ms[k]));
					} else {
						memcpy(&v, xv + 16 * k, 16);
						m[k] = (npu_v16u)(((v > m[k]) &
								   v) |
								  (~(v > m[k]) &
								   m[k]));
					}
				}
			}
		}
		for (k = 0; k < 2; k++)
			memcpy(y + yp + ox * cx->out->strides[3] + 16 * k,
			       sgn ? (const void *)&ms[k] : (const void *)&m[k],
			       16);
	}
}

static void global_plane(const struct pool_ctx *cx, u64 n, u64 pl)
{
	u64 xp = plane_off(cx->in, cx->c0, n, pl);
	u64 H = cx->in->shape[2], W = cx->in->shape[3], y, x;
	u64 sy = cx->in->strides[2], sx = cx->in->strides[3];
	float m = -NPU_INFF;
	double sum = 0;

	if (!W)
		H = 0;		/* an empty plane: no rows to walk */
	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			float v = ld(cx->dt, cx->x, xp + y * sy + x * sx);

			sum += v;
			if (v > m || v != v)
				m = v != v || m != m ? NPU_NANF : v;
		}
	}
	st(cx->dt, cx->y, plane_off(cx->out, cx->c0, n, pl),
	   cx->p->kind == DRM_NPU_POOL_GLOBAL_MAX ? m :
	   ((H && W) ? (float)(sum / ((double)H * (double)W)) : 0.0f));
}

typedef double npu_v16d __attribute__((__vector_size__(16 * sizeof(u64))));
typedef float npu_v16f __attribute__((__vector_size__(16 * sizeof(u32))));

/*
 * Planes @pl .. @pl + 15 of image @n at once: the 16 contiguous channels
 * of an F32 NC1HWC0 block, each lane doing global_plane()'s walk (the
 * same sum order and max rule), so the lanes' chains run side by side;
 * the average's 16 sums in one vector of doubles (kept in registers: as
 * an array they went through memory, 170 us for squeezenet's 1000
 * channels of 13 x 13). Lanes [@l0, @l1) are stored: a chunk that starts
 * or ends inside the block computes the block and stores its own planes
 * (the same bits as global_plane()'s, which took 1-2 us a plane: the
 * small first chunks of a task and a helping core's chunks from the end
 * made squeezenet's 1000 planes 113-120 us).
 */
static void global16(const struct pool_ctx *cx, u64 n, u64 pl, u32 l0,
		     u32 l1)
{
	u64 xp = plane_off(cx->in, 16, n, pl), yp = plane_off(cx->out, 16, n, pl);
	u64 H = cx->in->shape[2], W = cx->in->shape[3], y, x;
	u64 sy = cx->in->strides[2], sx = cx->in->strides[3];
	const float *in = cx->x;
	float m[16], *out = cx->y;
	npu_v16d sum;
	npu_v16f f;
	u32 l;

	for (l = 0; l < 16; l++) {
		m[l] = -NPU_INFF;
		sum[l] = 0;
	}
	/* the average's sums or the maximum: only what the kind needs */
	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			const float *v = in + xp + y * sy + x * sx;

			if (cx->p->kind != DRM_NPU_POOL_GLOBAL_MAX) {
				memcpy(&f, v, sizeof(f));
				sum += __builtin_convertvector(f, npu_v16d);
				continue;
			}
			for (l = 0; l < 16; l++)
				if (v[l] > m[l] || v[l] != v[l])
					m[l] = v[l] != v[l] || m[l] != m[l] ?
					       NPU_NANF : v[l];
		}
	}
	for (l = l0; l < l1; l++)
		out[yp + l] = cx->p->kind == DRM_NPU_POOL_GLOBAL_MAX ? m[l] :
			      (float)(sum[l] / ((double)H * (double)W));
}

int npu_run_pool2d(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	struct pool_ctx cx;
	u64 oh, ow, ox, n, pl, u, uu;
	bool g16;
	u32 oy;

	cx.kern = npu_kern_get(args->isa);
	cx.p = &t->params.pool2d;
	cx.in = npu_opnd(t, 0);
	cx.out = npu_opnd(t, 1);
	cx.x = args->data[0];
	cx.y = args->data[1];
	cx.dt = cx.in->dtype;
	cx.c0 = npu_is_nc1hwc0(cx.in) ? cx.in->shape[4] : 0;
	cx.planes_c = (u64)cx.in->shape[1] * (cx.c0 ? cx.c0 : 1);
	oh = cx.out->shape[2];
	ow = cx.out->shape[3];
	/* global kinds over F32 16-channel blocks: 16 planes side by side */
	g16 = cx.dt == DRM_NPU_DTYPE_F32 && cx.c0 == 16 &&
	      cx.in->strides[4] == 1 && npu_is_nc1hwc0(cx.out) &&
	      cx.out->shape[4] == 16 && cx.out->strides[4] == 1 &&
	      cx.in->shape[2] && cx.in->shape[3];
	if (npu_pool_blocked(t)) {
		u64 c1s = cx.in->shape[1], c1, l;
		bool vec = cx.dt == DRM_NPU_DTYPE_F32 && cx.c0 == 16 &&
			   cx.p->kind == DRM_NPU_POOL_MAX &&
			   cx.in->strides[4] == 1 && cx.out->strides[4] == 1;
		bool vec8 = (cx.dt == DRM_NPU_DTYPE_I8 ||
			     cx.dt == DRM_NPU_DTYPE_U8) && cx.c0 == 32 &&
			    cx.p->kind == DRM_NPU_POOL_MAX &&
			    cx.in->strides[4] == 1 && cx.out->strides[4] == 1;

		for (u = begin; u < end; u++) {
			oy = (u32)(u % oh);
			c1 = (u / oh) % c1s;
			n = u / oh / c1s;
			if (vec8) {
				max32_row(&cx, plane_off(cx.in, 32, n, c1 * 32),
					  plane_off(cx.out, 32, n, c1 * 32) +
					  (u64)oy * cx.out->strides[2], oy);
				continue;
			}
			if (vec) {
				max16_row(&cx, plane_off(cx.in, 16, n, c1 * 16),
					  plane_off(cx.out, 16, n, c1 * 16) +
					  (u64)oy * cx.out->strides[2], oy);
				continue;
			}
			for (ox = 0; ox < ow; ox++)
				for (l = 0; l < cx.c0; l++) {
					pl = c1 * cx.c0 + l;
					st(cx.dt, cx.y,
					   plane_off(cx.out, cx.c0, n, pl) +
					   (u64)oy * cx.out->strides[2] +
					   ox * cx.out->strides[3],
					   window(&cx, plane_off(cx.in, cx.c0, n,
								 pl), oy, ox));
				}
		}
		return 0;
	}
	for (u = begin; u < end; u++) {
		oy = (u32)(u % oh);
		uu = u / oh;
		pl = uu % cx.planes_c;
		n = uu / cx.planes_c;
		if (cx.p->kind >= DRM_NPU_POOL_GLOBAL_AVG) {
			if (g16 && oh == 1) {
				u32 l0 = (u32)(pl % 16);
				u32 l1 = end - u < 16 - l0 ? l0 + (u32)(end - u) :
							     16;

				global16(&cx, n, pl - l0, l0, l1);
				u += l1 - l0 - 1;
				continue;
			}
			global_plane(&cx, n, pl);
			continue;
		}
		{
			u64 xp = plane_off(cx.in, cx.c0, n, pl);
			u64 yp = plane_off(cx.out, cx.c0, n, pl) +
				 (u64)oy * cx.out->strides[2];

			for (ox = 0; ox < ow; ox++)
				st(cx.dt, cx.y, yp + (u64)ox * cx.out->strides[3],
				   window(&cx, xp, oy, ox));
		}
	}
	return 0;
}
