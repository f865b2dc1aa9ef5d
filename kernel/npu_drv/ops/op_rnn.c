// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * op_rnn.c - RNN: a recurrent layer (ONNX RNN, LSTM, GRU; one direction)
 * over all of its time steps in one task.
 *
 * Operands: xg [T, B, G*H] (X W^T + the biases that add to it, computed
 * by a MATMUL before), r [G*H, H], h0 [B, H], then c0 [B, H] (LSTM) or
 * rbh [H] (GRU), LSTM with DRM_NPU_RNN_PEEPHOLE then p [3H] (ONNX P:
 * i, o, f), and state [T, B, S, H] last (written). Step t reads the
 * hidden state of the step before (h0 first) and writes state[t, b, 0, :];
 * the LSTM cell goes to state[t, b, 1, :]; a GRU without
 * linear_before_reset keeps r (.) h_prev in state[t, b, 1, :] first, as
 * the h gate needs all of it. ONNX gate order and default activations:
 *
 *   RNN   h = tanh(xg + R h_prev)
 *   LSTM  i, o, f = sigmoid(..), c~ = tanh(..): c = f c_prev + i c~,
 *         h = o tanh(c); peepholes add p_i c_prev, p_f c_prev, p_o c to
 *         the i, f and o gates
 *   GRU   z, r = sigmoid(..); h~ = tanh(xg_h + R_h (r h_prev) + rbh), or
 *         with linear_before_reset tanh(xg_h + r (R_h h_prev + rbh));
 *         h = (1 - z) h~ + z h_prev
 *
 * clip (if non-zero) bounds each gate's pre-activation to [-clip, clip]
 * (NaN passes). Dot products run over k in order in float: the same bits
 * in both homes and for any split of the work.
 * Work unit: one batch row b over all T steps (rows are independent).
 */
#include "npu_ops_float.h"

struct rnn_ctx {
	const struct drm_npu_operand *x, *r, *h0, *aux, *st;
	const float *xd, *rd, *h0d, *auxd, *pd;
	float *sd;
	u64 ps;
	u32 cell, t_len, hid;
	int reverse, lbr;
	float clip;
};

static float rnn_clip(const struct rnn_ctx *c, float v)
{
	if (c->clip > 0) {
		if (v > c->clip)
			return c->clip;
		if (v < -c->clip)
			return -c->clip;
	}
	return v;
}

/* Row @row of r (u64: row < G*H <= 2^34) times the vector @v. */
static float rnn_dot(const struct rnn_ctx *c, u64 row, const float *v,
		     u64 vs)
{
	const float *w = c->rd + row * c->r->strides[0];
	u64 ws = c->r->strides[1], k;
	float s = 0;

	for (k = 0; k < c->hid; k++)
		s += w[k * ws] * v[k * vs];
	return s;
}

static void rnn_row(const struct rnn_ctx *c, u64 b)
{
	const struct drm_npu_operand *st = c->st;
	u64 hid = c->hid, os0 = st->strides[0], os2 = st->strides[2];
	u64 os3 = st->strides[3], step, j;

	for (step = 0; step < c->t_len; step++) {
		u64 t = c->reverse ? c->t_len - 1 - step : step;
		u64 tp = c->reverse ? t + 1 : t - 1;
		const float *x = c->xd + t * c->x->strides[0] +
				 b * c->x->strides[1];
		u64 xs = c->x->strides[2];
		float *oh = c->sd + t * os0 + b * st->strides[1];
		const float *ph, *pc = NULL;
		u64 phs, pcs = 0;

		if (!step) {
			ph = c->h0d + b * c->h0->strides[0];
			phs = c->h0->strides[1];
			if (c->cell == DRM_NPU_RNN_LSTM) {
				pc = c->auxd + b * c->aux->strides[0];
				pcs = c->aux->strides[1];
			}
		} else {
			ph = c->sd + tp * os0 + b * st->strides[1];
			phs = os3;
			pc = ph + os2;
			pcs = os3;
		}
		switch (c->cell) {
		case DRM_NPU_RNN_TANH:
			for (j = 0; j < hid; j++)
				oh[j * os3] = npu_tanhf_fast(rnn_clip(c, x[j * xs] +
					rnn_dot(c, j, ph, phs)));
			break;
		case DRM_NPU_RNN_LSTM:
			for (j = 0; j < hid; j++) {
				float gi = x[j * xs] + rnn_dot(c, j, ph, phs);
				float go = x[(hid + j) * xs] +
					   rnn_dot(c, hid + j, ph, phs);
				float gf = x[(2 * hid + j) * xs] +
					   rnn_dot(c, 2 * hid + j, ph, phs);
				float gc = x[(3 * hid + j) * xs] +
					   rnn_dot(c, 3 * hid + j, ph, phs);
				float cp = pc[j * pcs], i, f, g, o, cell;

				if (c->pd) {	/* peepholes: P = [i, o, f] */
					gi += c->pd[j * c->ps] * cp;
					gf += c->pd[(2 * hid + j) * c->ps] * cp;
				}
				i = npu_sigmoidf_fast(rnn_clip(c, gi));
				f = npu_sigmoidf_fast(rnn_clip(c, gf));
				g = npu_tanhf_fast(rnn_clip(c, gc));
				cell = f * cp + i * g;
				if (c->pd)
					go += c->pd[(hid + j) * c->ps] * cell;
				o = npu_sigmoidf_fast(rnn_clip(c, go));
				oh[os2 + j * os3] = cell;
				oh[j * os3] = o * npu_tanhf_fast(cell);
			}
			break;
		default:	/* GRU */
			if (!c->lbr)	/* r (.) h_prev, all of it first */
				for (j = 0; j < hid; j++) {
					float gr = x[(hid + j) * xs] +
						   rnn_dot(c, hid + j, ph, phs);
					float rg = npu_sigmoidf_fast(rnn_clip(c, gr));

					oh[os2 + j * os3] = rg * ph[j * phs];
				}
			for (j = 0; j < hid; j++) {
				float gz = x[j * xs] + rnn_dot(c, j, ph, phs);
				float z = npu_sigmoidf_fast(rnn_clip(c, gz));
				float hp = ph[j * phs], gh;

				if (c->lbr) {
					float gr = x[(hid + j) * xs] +
						   rnn_dot(c, hid + j, ph, phs);
					float r = npu_sigmoidf_fast(rnn_clip(c, gr));

					gh = x[(2 * hid + j) * xs] + r *
					     (rnn_dot(c, 2 * hid + j, ph, phs) +
					      c->auxd[j * c->aux->strides[0]]);
				} else {
					gh = x[(2 * hid + j) * xs] +
					     rnn_dot(c, 2 * hid + j, oh + os2,
						     os3) +
					     c->auxd[j * c->aux->strides[0]];
				}
				oh[j * os3] = (1.0f - z) *
					      npu_tanhf_fast(rnn_clip(c, gh)) + z * hp;
			}
			break;
		}
	}
}

int npu_run_rnn(const struct npu_op_args *args, u64 begin, u64 end)
{
	const struct drm_npu_task *t = args->task;
	const struct drm_npu_rnn_params *p = &t->params.rnn;
	u32 n = t->num_operands, cb = p->clip;
	struct rnn_ctx c;
	u64 b;

	memset(&c, 0, sizeof(c));
	c.cell = p->cell;
	c.reverse = !!(p->flags & DRM_NPU_RNN_REVERSE);
	c.lbr = !!(p->flags & DRM_NPU_RNN_LINEAR_BEFORE_RESET);
	memcpy(&c.clip, &cb, sizeof(c.clip));
	c.x = npu_opnd(t, 0);
	c.r = npu_opnd(t, 1);
	c.h0 = npu_opnd(t, 2);
	c.st = npu_opnd(t, n - 1);
	c.xd = args->data[0];
	c.rd = args->data[1];
	c.h0d = args->data[2];
	c.sd = args->data[n - 1];
	if (n >= 5) {
		c.aux = npu_opnd(t, 3);
		c.auxd = args->data[3];
	}
	if (n == 6) {
		c.pd = args->data[4];
		c.ps = npu_opnd(t, 4)->strides[0];
	}
	c.t_len = c.st->shape[0];
	c.hid = c.st->shape[3];
	for (b = begin; b < end; b++)
		rnn_row(&c, b);
	return 0;
}
