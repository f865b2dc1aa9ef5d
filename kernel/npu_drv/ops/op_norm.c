// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_norm.c - LAYERNORM and BATCHNORM (inference).
 *
 * LAYERNORM (ONNX LayerNormalization, torch.nn.LayerNorm): over the dims
 * [axis, rank), mean and *biased* variance (two passes, in double; over
 * one dim with 8 partial sums in a fixed order, ln_sum()), then
 * y = (x - mean) / sqrt(var + eps) * scale (+ bias); scale/bias broadcast
 * to the normalised dims. Work unit: one normalised group.
 *
 * BATCHNORM (ONNX BatchNormalization, inference): per channel of axis 1,
 * y = (x - mean) / sqrt(var + eps) * scale + bias, NCHW-like (any rank
 * >= 2) or NC1HWC0 (padding channels written 0). Work unit: an output row.
 */
#include "npu_ops_float.h"
#include "npu_kern.h"

/*
 * The sum over @n floats @xs apart of x (@sq false) or of (x - m)^2 (@sq
 * true), in double: 8 partial sums over whole groups of 8, then
 * ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)), then the tail one by
 * one. A fixed order, so chunking and the ISA level do not change the
 * bits; eight independent chains instead of one serial sum.
 */
static double ln_sum(const float *x, u64 xs, u64 n, double m, bool sq)
{
	double p[8] = { 0 }, t;
	u64 i;
	u32 l;

	for (i = 0; i + 8 <= n; i += 8)
		for (l = 0; l < 8; l++) {
			double v = x[(i + l) * xs];

			if (sq) {
				v -= m;
				v *= v;
			}
			p[l] += v;
		}
	t = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
	for (; i < n; i++) {
		double v = x[i * xs];

		if (sq) {
			v -= m;
			v *= v;
		}
		t += v;
	}
	return t;
}

int npu_run_layernorm(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_norm_params *p = &t->params.norm;
	int has_bias = !!(p->flags & DRM_NPU_NORM_HAS_BIAS);
	const struct drm_npu_operand *in = npu_opnd(t, 0);
	const struct drm_npu_operand *out = npu_opnd(t, 2 + has_bias);
	const struct drm_npu_operand *sc = npu_opnd(t, 1);
	const struct drm_npu_operand *bi = has_bias ? npu_opnd(t, 2) : NULL;
	u32 axis = p->axis, nd = in->rank - axis, d;
	u32 shape[DRM_NPU_MAX_RANK], coord[DRM_NPU_MAX_RANK] = { 0 };
	u64 sst[DRM_NPU_MAX_RANK] = { 0 }, bst[DRM_NPU_MAX_RANK] = { 0 };
	u64 cnt = npu_dims_prod(in, axis, in->rank), u, i;
	double eps = npu_u2f(p->epsilon);
	const float *s = args->data[1], *b = has_bias ? args->data[2] : NULL;
	const u32 *xst = in->strides + axis, *yst = out->strides + axis;
	const struct npu_kern *k = npu_kern_get(args->isa);
	struct drm_npu_operand tail;

	memset(&tail, 0, sizeof(tail));
	tail.rank = nd;
	for (d = 0; d < nd; d++) {
		shape[d] = in->shape[axis + d];
		tail.shape[d] = shape[d];
	}
	npu_bcast_strides(sc, &tail, sst);
	if (bi)
		npu_bcast_strides(bi, &tail, bst);
	for (u = begin; u < end; u++) {
		u32 oc[DRM_NPU_MAX_RANK] = { 0 };
		const float *x;
		float *y;
		double mean = 0, var = 0, rstd;

		npu_unravel(u, in->shape, axis, oc);
		x = (const float *)args->data[0] + npu_offset32(oc, in->strides, axis);
		y = (float *)args->data[2 + has_bias] +
		    npu_offset32(oc, out->strides, axis);
		if (nd == 1) {
			/* one normalised dim: the same sums, no unravelling */
			u64 xs = xst[0], ys = yst[0], ss = sst[0], bs = bst[0];

			/* contiguous: the level's vectors, the same bits */
			if (xs == 1) {
				mean = k->ln_sum(x, cnt, 0, false) / (double)cnt;
				var = k->ln_sum(x, cnt, mean, true) /
				      (double)cnt;
			} else {
				mean = ln_sum(x, xs, cnt, 0, false) / (double)cnt;
				var = ln_sum(x, xs, cnt, mean, true) /
				      (double)cnt;
			}
			rstd = 1.0 / npu_sqrt_d(var + eps);
			/* each stride 1: a broadcast scale or bias has 0 */
			if (xs == 1 && ys == 1 && ss == 1 && (!b || bs == 1)) {
				k->ln_out(y, x, s, b, cnt, mean, rstd);
				continue;
			}
			for (i = 0; i < cnt; i++) {
				double v = (x[i * xs] - mean) * rstd * s[i * ss];

				if (b)
					v += b[i * bs];
				y[i * ys] = (float)v;
			}
			continue;
		}
		/* two passes: mean, then the biased variance around it */
		for (i = 0; i < cnt; i++) {
			npu_unravel(i, shape, nd, coord);
			mean += x[npu_offset32(coord, xst, nd)];
		}
		mean /= (double)cnt;
		for (i = 0; i < cnt; i++) {
			double dv;

			npu_unravel(i, shape, nd, coord);
			dv = x[npu_offset32(coord, xst, nd)] - mean;
			var += dv * dv;
		}
		var /= (double)cnt;
		rstd = 1.0 / npu_sqrt_d(var + eps);
		for (i = 0; i < cnt; i++) {
			double v;

			npu_unravel(i, shape, nd, coord);
			v = (x[npu_offset32(coord, xst, nd)] - mean) * rstd *
			    s[npu_offset(coord, sst, nd)];
			if (b)
				v += b[npu_offset(coord, bst, nd)];
			y[npu_offset32(coord, yst, nd)] = (float)v;
		}
	}
	return 0;
}

int npu_run_batchnorm(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_operand *in = npu_opnd(t, 0), *out = npu_opnd(t, 5);
	const struct drm_npu_operand *const ops[2] = { in, out };
	double eps = npu_u2f(t->params.norm.epsilon);
	u64 ch = npu_opnd(t, 1)->shape[0], c0 = 0, c, i, u, have = ~0ull;
	double ca[NPU_C0_BYTES_1], cb[NPU_C0_BYTES_1];
	const float *v[4];
	u64 vst[4], offs[2];
	struct npu_rows r;
	struct npu_seg sg;

	for (i = 0; i < 4; i++) {
		v[i] = args->data[1 + i];
		vst[i] = npu_opnd(t, 1 + i)->strides[0];
	}
	if (npu_is_nc1hwc0(in))
		c0 = in->shape[4];
	npu_rows_begin(&r, ops, 2);
	for (u = begin; u < end; u++) {
		u32 coord[DRM_NPU_MAX_RANK] = { 0 };
		const float *x;
		float *y;
		double a = 0, b = 0;

		npu_row_offsets(&r, u, &sg, offs);
		npu_unravel(sg.row, in->shape, in->rank - 1, coord);
		x = (const float *)args->data[0] + offs[0];
		y = (float *)args->data[5] + offs[1];
		if (c0 && sg.start == 0 && sg.len == c0 && c0 <= NPU_C0_BYTES_1) {
			/*
			 * NC1HWC0: a row is one pixel's C0 channels. The
			 * factors of a block are computed once for the rows of
			 * the block that follow each other in [begin, end).
			 */
			if (coord[1] != have) {
				for (i = 0; i < c0; i++) {
					u64 cc = coord[1] * c0 + i;

					if (cc >= ch)
						continue;
					ca[i] = (double)v[0][cc * vst[0]] /
						npu_sqrt_d((double)v[3][cc * vst[3]] +
							   eps);
					cb[i] = (double)v[1][cc * vst[1]] -
						(double)v[2][cc * vst[2]] * ca[i];
				}
				have = coord[1];
			}
			for (i = 0; i < c0; i++)
				y[i * r.inner[1]] = coord[1] * c0 + i >= ch ? 0.0f :
					(float)(x[i * r.inner[0]] * ca[i] + cb[i]);
			continue;
		}
		if (in->rank == 2 || c0) {
			/* channel varies along the row: per element */
			for (i = 0; i < sg.len; i++) {
				/* C1 * C0 may pass 2^32: 64-bit channel */
				u64 cc = c0 ? coord[1] * c0 + i : sg.start + i;

				if (cc >= ch) {
					y[i * r.inner[1]] = 0.0f;
					continue;
				}
				a = (double)v[0][cc * vst[0]] /
				    npu_sqrt_d((double)v[3][cc * vst[3]] + eps);
				b = (double)v[1][cc * vst[1]] -
				    (double)v[2][cc * vst[2]] * a;
				y[i * r.inner[1]] = (float)(x[i * r.inner[0]] * a + b);
			}
			continue;
		}
		c = coord[1];	/* NCHW-like: the channel is fixed on a row */
		a = (double)v[0][c * vst[0]] /
		    npu_sqrt_d((double)v[3][c * vst[3]] + eps);
		b = (double)v[1][c * vst[1]] - (double)v[2][c * vst[2]] * a;
		for (i = 0; i < sg.len; i++)
			y[i * r.inner[1]] = (float)(x[i * r.inner[0]] * a + b);
	}
	return 0;
}
