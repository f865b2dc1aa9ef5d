// SPDX-License-Identifier: MIT
/*
 * calib.c - activation range calibration (min-max, percentile, entropy)
 * and ONNX's QuantizeLinear arithmetic for npu-quant.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"

void calib_init(struct calib *c)
{
	memset(c, 0, sizeof(*c));
	c->min = INFINITY;
	c->max = -INFINITY;
}

void calib_free(struct calib *c)
{
	free(c->abs_hist);
	free(c->sig_hist);
	c->abs_hist = c->sig_hist = NULL;
}

void calib_range(struct calib *c, const float *x, uint64_t n)
{
	double lo = c->min, hi = c->max;

	for (uint64_t i = 0; i < n; i++) {
		float v = x[i];

		if (!isfinite(v)) {
			c->nonfinite++;
			continue;
		}
		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
		c->count++;
	}
	c->min = lo;
	c->max = hi;
}

int calib_hist_begin(struct calib *c)
{
	c->abs_hist = calloc(CALIB_ABS_BINS, sizeof(*c->abs_hist));
	c->sig_hist = calloc(CALIB_SIGNED_BINS, sizeof(*c->sig_hist));
	if (!c->abs_hist || !c->sig_hist) {
		calib_free(c);
		return -ENOMEM;
	}
	c->absmax = c->count ? fmax(fabs(c->min), fabs(c->max)) : 0;
	c->hist_on = true;
	return 0;
}

static int bin_of(double v, double lo, double width, int nbins)
{
	double b = width > 0 ? (v - lo) / width : 0;

	if (!(b >= 0))
		return 0;
	if (b >= nbins)
		return nbins - 1;
	return (int)b;
}

void calib_hist(struct calib *c, const float *x, uint64_t n)
{
	double aw = c->absmax / CALIB_ABS_BINS;
	double sw = (c->max - c->min) / CALIB_SIGNED_BINS;

	if (!c->hist_on || !c->count)
		return;
	for (uint64_t i = 0; i < n; i++) {
		float v = x[i];

		if (!isfinite(v))
			continue;
		c->abs_hist[bin_of(fabs(v), 0, aw, CALIB_ABS_BINS)]++;
		c->sig_hist[bin_of(v, c->min, sw, CALIB_SIGNED_BINS)]++;
	}
}

/* The value below which @q of the histogram's mass lies (bin edge). */
static double hist_quantile(const uint64_t *h, int nbins, double lo,
			    double width, double q, bool upper_edge)
{
	uint64_t total = 0, acc = 0;
	double want;

	for (int i = 0; i < nbins; i++)
		total += h[i];
	if (!total)
		return lo;
	want = q * (double)total;
	for (int i = 0; i < nbins; i++) {
		acc += h[i];
		if ((double)acc >= want && (acc || want <= 0))
			return lo + width * (upper_edge ? i + 1 : i);
	}
	return lo + width * nbins;
}

double calib_entropy_threshold(const uint64_t *hist, int nbins, double width,
			       int qbins)
{
	double *p, *q, best_kl = INFINITY;
	int best = nbins;
	uint64_t outliers = 0, *h0;

	if (qbins < 2 || nbins < qbins)
		return width * nbins;
	/*
	 * The first bin holds the zeros of a ReLU's output: counted as its
	 * neighbour (as NVIDIA's pytorch-quantization does), or that spike
	 * dominates both distributions and pulls the threshold down.
	 */
	h0 = malloc((size_t)nbins * sizeof(*h0));
	if (!h0)
		return width * nbins;
	memcpy(h0, hist, (size_t)nbins * sizeof(*h0));
	h0[0] = h0[1];
	hist = h0;
	p = malloc((size_t)nbins * sizeof(*p));
	q = malloc((size_t)nbins * sizeof(*q));
	if (!p || !q) {
		free(p);
		free(q);
		free(h0);
		return width * nbins;
	}
	/* outliers beyond bin i fold into P's last bin: sum them downwards */
	for (int i = nbins; i >= qbins; i--) {
		double ps = 0, qs = 0, kl = 0;
		int merged = i / qbins;

		if (i < nbins)
			outliers += hist[i];
		for (int j = 0; j < i; j++)
			p[j] = (double)hist[j];
		p[i - 1] += (double)outliers;
		/* Q: hist[0, i) merged into qbins levels, spread back over the
		 * bins that held values */
		for (int j = 0; j < qbins; j++) {
			int start = j * merged;
			int stop = j == qbins - 1 ? i : start + merged;
			double sum = 0;
			int nz = 0;

			for (int k = start; k < stop; k++) {
				sum += (double)hist[k];
				nz += hist[k] != 0;
			}
			for (int k = start; k < stop; k++)
				q[k] = hist[k] && nz ? sum / nz : 0;
		}
		for (int j = 0; j < i; j++) {
			ps += p[j];
			qs += q[j];
		}
		if (ps <= 0)
			continue;
		for (int j = 0; j < i; j++) {
			double pj = p[j] / ps, qj;

			if (pj <= 0)
				continue;
			qj = qs > 0 ? q[j] / qs : 0;
			if (qj <= 0)
				qj = 1e-12;	/* smoothing, as in practice */
			kl += pj * log(pj / qj);
		}
		if (kl < best_kl) {
			best_kl = kl;
			best = i;
		}
	}
	free(p);
	free(q);
	free(h0);
	return width * best;
}

void calib_choose(const struct calib *c, enum calib_method m,
		  bool symmetric, double percentile, int levels,
		  double *lo, double *hi)
{
	double amax = fmax(fabs(c->min), fabs(c->max));
	double t;

	if (!c->count) {
		*lo = *hi = 0;
		return;
	}
	switch (m) {
	case CALIB_PERCENTILE:
		if (!c->hist_on)
			break;
		if (symmetric) {
			t = hist_quantile(c->abs_hist, CALIB_ABS_BINS, 0,
					  c->absmax / CALIB_ABS_BINS,
					  percentile / 100, true);
			*lo = c->min < 0 ? -t : 0;
			*hi = t;
		} else {
			double w = (c->max - c->min) / CALIB_SIGNED_BINS;

			*lo = hist_quantile(c->sig_hist, CALIB_SIGNED_BINS,
					    c->min, w,
					    1 - percentile / 100, false);
			*hi = hist_quantile(c->sig_hist, CALIB_SIGNED_BINS,
					    c->min, w, percentile / 100, true);
			*lo = fmax(*lo, c->min);
			*hi = fmin(*hi, c->max);
		}
		return;
	case CALIB_ENTROPY:
		if (!c->hist_on)
			break;
		/*
		 * A signed range spends half the levels on each side; a
		 * non-negative tensor with an asymmetric range all of them.
		 */
		t = calib_entropy_threshold(c->abs_hist, CALIB_ABS_BINS,
					    c->absmax / CALIB_ABS_BINS,
					    c->min < 0 || symmetric ?
					    levels / 2 : levels);
		*lo = c->min < 0 ? fmax(c->min, -t) : 0;
		*hi = fmin(c->max, t);
		if (symmetric)
			*lo = c->min < 0 ? -t : 0, *hi = t;
		return;
	case CALIB_MINMAX:
		break;
	}
	if (symmetric) {
		*lo = c->min < 0 ? -amax : 0;
		*hi = amax;
	} else {
		*lo = c->min;
		*hi = c->max;
	}
}

void quant_params(double lo, double hi, bool symmetric, bool is_signed,
		  float *scale, int32_t *zero_point)
{
	double s, z;

	lo = fmin(lo, 0);
	hi = fmax(hi, 0);
	if (symmetric) {
		double t = fmax(-lo, hi);

		if (is_signed) {
			s = t / 127;
			z = 0;
		} else if (lo >= 0) {
			s = t / 255;
			z = 0;
		} else {
			s = 2 * t / 255;
			z = 128;
		}
	} else {
		s = (hi - lo) / 255;
		z = s > 0 ? (is_signed ? -128 : 0) - lo / s : 0;
	}
	if (!(s > 0) || !isfinite(s) || (float)s <= 0) {
		s = 1;
		z = 0;
	}
	z = nearbyint(z);
	if (is_signed)
		z = fmin(fmax(z, -128), 127);
	else
		z = fmin(fmax(z, 0), 255);
	*scale = (float)s;
	*zero_point = (int32_t)z;
}

int32_t quant_one(float x, float scale, int32_t zp, int32_t qmin,
		  int32_t qmax)
{
	float r = nearbyintf(x / scale);
	double v;

	if (isnan(r))
		return zp < qmin ? qmin : zp > qmax ? qmax : zp;
	v = (double)r + zp;
	if (v < qmin)
		return qmin;
	if (v > qmax)
		return qmax;
	return (int32_t)v;
}

void fake_quant(float *x, uint64_t n, float scale, int32_t zp, int32_t qmin,
		int32_t qmax)
{
	for (uint64_t i = 0; i < n; i++)
		x[i] = (float)(quant_one(x[i], scale, zp, qmin, qmax) - zp) *
		       scale;
}
