/* SPDX-License-Identifier: MIT */
/*
 * calib.h - activation range calibration and the quantization arithmetic
 * of npu-quant (Documentation/npu-quant.rst).
 *
 * A struct calib gathers one tensor's statistics over the calibration set
 * in two passes: calib_range() sees every value once for the minimum and
 * maximum; after calib_hist_begin(), calib_hist() sees them again into two
 * histograms over the final range (|x| over [0, absmax] for the entropy
 * method, x over [min, max] for percentiles). calib_choose() then picks
 * the range [lo, hi] with one of the methods.
 */
#ifndef NPU_QUANT_CALIB_H
#define NPU_QUANT_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALIB_ABS_BINS		2048	/* TensorRT's entropy histogram */
#define CALIB_SIGNED_BINS	8192

enum calib_method {
	CALIB_MINMAX,
	CALIB_PERCENTILE,
	CALIB_ENTROPY,
};

struct calib {
	double min, max;
	uint64_t count;			/* finite values seen */
	uint64_t nonfinite;
	bool hist_on;
	double absmax;			/* histogram ranges */
	uint64_t *abs_hist;		/* CALIB_ABS_BINS */
	uint64_t *sig_hist;		/* CALIB_SIGNED_BINS over [min, max] */
};

void calib_init(struct calib *c);
void calib_free(struct calib *c);
void calib_range(struct calib *c, const float *x, uint64_t n);
int calib_hist_begin(struct calib *c);		/* 0 or -ENOMEM */
void calib_hist(struct calib *c, const float *x, uint64_t n);

/*
 * calib_choose() - the calibrated range
 * @symmetric: the range is [-T, T] (T from |x|); otherwise [lo, hi]
 * @percentile: for CALIB_PERCENTILE, e.g. 99.99
 * @levels: quantization levels the range is cut into (255 or 256 for
 *          8 bits), used by the entropy method
 */
void calib_choose(const struct calib *c, enum calib_method m,
		  bool symmetric, double percentile, int levels,
		  double *lo, double *hi);

/*
 * The entropy threshold (TensorRT's KL-divergence calibration) of a
 * histogram of |x| with @nbins bins of width @width, into @qbins levels:
 * the T that minimises KL(P || Q) where P is the clipped histogram and Q
 * its quantized expansion. Exposed for the tests.
 */
double calib_entropy_threshold(const uint64_t *hist, int nbins, double width,
			       int qbins);

/* Scale and zero point of a range for an 8-bit type (signed or not). */
void quant_params(double lo, double hi, bool symmetric, bool is_signed,
		  float *scale, int32_t *zero_point);

/* ONNX QuantizeLinear of one value: round half to even, saturate. */
int32_t quant_one(float x, float scale, int32_t zp, int32_t qmin,
		  int32_t qmax);

/* QuantizeLinear then DequantizeLinear of @n values in place. */
void fake_quant(float *x, uint64_t n, float scale, int32_t zp, int32_t qmin,
		int32_t qmax);

#endif
