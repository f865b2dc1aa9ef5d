// SPDX-License-Identifier: MIT
/*
 * legalize_tfidf.c - ONNX TfIdfVectorizer on integer tokens as
 * comparisons and sums:
 *
 * for each n-gram length n of [min_gram_length, max_gram_length] that the
 * pool holds and each skip s of [0, max_skip_count] (one for unigrams),
 * the P = N - (n - 1)(s + 1) windows of the rows of X [B, N] are compared
 * token by token with the pool's G n-grams:
 *
 *   hit[b, g, p] = AND_k Equal(X[b, p + k (s + 1)], pool[g, k])
 *   count[b, g] += ReduceSum_p Cast(hit)
 *
 * (each skip distance counts its occurrences, as ONNX says), then the
 * mode (TF: the counts, IDF: weight where the count is not zero, TFIDF:
 * count x weight) and a MatMul by a constant one-hot [G, out] puts each
 * n-gram at its ngram_indexes entry. Windows are Slices of X, so the
 * work is G P n comparisons per (n, s): a vocabulary-sized pool would
 * want a hash lookup task, which the device does not have; pools of a
 * few thousand n-grams are fine. String tokens are refused at import.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "legalize_build.h"
#include "shape_internal.h"

/* Largest pool (entries) and output accepted: a bound on the constants. */
#define TFIDF_MAX_POOL	(1 << 16)
/* Largest comparison tensor [B, G, P] of one (n, skip), in elements. */
#define TFIDF_MAX_HITS	(1 << 26)

struct tfidf {
	struct ir_graph *g;
	struct ir_node *n;
	struct lz_builder b;
	struct ir_tensor *x;		/* [B, N] */
	int64_t rows, len;		/* B, N */
	bool refused;			/* an error is recorded */
	const int64_t *pool, *counts, *idx;
	int npool, ncounts, nidx;
	enum ir_dtype dt;
};

static int tf_err(struct tfidf *t, const char *msg)
{
	return ir_error(t->g, "node '%s' (TfIdfVectorizer): %s", t->n->name,
			msg);
}

/* Tokens k of the G n-grams of length @n starting at pool entry @at. */
static struct ir_tensor *tf_tokens(struct tfidf *t, int64_t at, int64_t grams,
				   int64_t n, int64_t k)
{
	struct ir_shape s = { .rank = 2, .dim = { grams, 1 } };
	size_t es = ir_dtype_size(t->dt);
	uint8_t *v = malloc((size_t)grams * es + 1);
	struct ir_tensor *c;

	if (!v)
		return NULL;
	for (int64_t g = 0; g < grams; g++) {
		int64_t tok = t->pool[at + g * n + k];
		int32_t t32 = (int32_t)tok;

		memcpy(v + g * es, es == 4 ? (void *)&t32 : (void *)&tok, es);
	}
	c = ir_const_new(t->g, NULL, t->dt, &s, v, (size_t)grams * es);
	free(v);
	return c;
}

/* The counts [B, G] of the n-grams of length @n, every skip summed. */
static struct ir_tensor *tf_count(struct tfidf *t, int64_t at, int64_t grams,
				  int64_t n, int64_t max_skip)
{
	struct ir_tensor *sum = NULL;
	int64_t axis = -1, neg2 = -2;

	for (int64_t s = 0; s <= (n == 1 ? 0 : max_skip); s++) {
		int64_t step = s + 1, p = t->len - (n - 1) * step;
		struct ir_tensor *hit = NULL, *c;

		if (p <= 0)
			break;
		if (t->rows > TFIDF_MAX_HITS / grams / p) {	/* no overflow */
			tf_err(t, "rows x pool n-grams x positions pass 2^26 "
			       "comparisons of one length and skip: not "
			       "supported (a smaller pool or shorter rows)");
			t->refused = true;
			return NULL;
		}
		for (int64_t k = 0; k < n; k++) {
			int64_t st = k * step, en = st + p;
			struct ir_tensor *si[4] = {
				t->x, lz_i64(t->g, &st, 1), lz_i64(t->g, &en, 1),
				lz_i64(t->g, &axis, 1),
			}, *w, *e;

			w = lz_node(&t->b, IR_OP_SLICE, 4, si, t->dt, NULL);
			w = lz_binary(&t->b, IR_OP_UNSQUEEZE, w,
				      lz_i64(t->g, &neg2, 1), NULL);
			e = lz_binary(&t->b, IR_OP_EQUAL, w,
				      tf_tokens(t, at, grams, n, k), NULL);
			hit = hit ? lz_binary(&t->b, IR_OP_AND, hit, e, NULL) : e;
		}
		c = lz_cast(&t->b, hit, IR_F32, 1, NULL);
		c = c ? lz_reduce(&t->b, IR_OP_REDUCE_SUM, c, &axis, 1, 0,
				  NULL) : NULL;
		sum = sum && c ? lz_binary(&t->b, IR_OP_ADD, sum, c, NULL) : c;
		if (!sum)
			return NULL;
	}
	return sum;
}

/* The mode applied to @cnt [B, G] (weights of pool n-grams [g0, g0+G)). */
static struct ir_tensor *tf_mode(struct tfidf *t, struct ir_tensor *cnt,
				 int64_t g0, int64_t grams)
{
	const char *mode = ir_attr_str(t->n, "mode", "TF");
	const float *wts;
	int nw = ir_attr_floats(t->n, "weights", &wts);
	struct ir_shape s = { .rank = 1, .dim = { grams } };
	struct ir_tensor *w;
	float *v;

	if (!strcmp(mode, "TF"))
		return cnt;
	v = malloc((size_t)grams * sizeof(*v) + 1);
	if (!v)
		return NULL;
	for (int64_t g = 0; g < grams; g++)
		v[g] = nw ? wts[g0 + g] : 1.0f;
	w = ir_const_new(t->g, NULL, IR_F32, &s, v, (size_t)grams * sizeof(*v));
	free(v);
	if (!strcmp(mode, "IDF"))
		cnt = lz_cast(&t->b, lz_binary(&t->b, IR_OP_GREATER, cnt,
					       ir_const_scalar_f32(t->g, NULL, 0),
					       NULL), IR_F32, 1, NULL);
	return cnt ? lz_binary(&t->b, IR_OP_MUL, cnt, w, NULL) : NULL;
}

/* The one-hot rows [G, out] of the n-grams [g0, g0+G). */
static struct ir_tensor *tf_place(struct tfidf *t, int64_t g0, int64_t grams,
				  int64_t out)
{
	struct ir_shape s = { .rank = 2, .dim = { grams, out } };
	float *v = calloc((size_t)(grams * out) + 1, sizeof(*v));
	struct ir_tensor *m;

	if (!v)
		return NULL;
	for (int64_t g = 0; g < grams; g++)
		v[g * out + t->idx[g0 + g]] = 1.0f;
	m = ir_const_new(t->g, NULL, IR_F32, &s, v,
			 (size_t)(grams * out) * sizeof(*v));
	free(v);
	return m;
}

static int tf_check(struct tfidf *t, int64_t *out)
{
	int64_t mn = ir_attr_int(t->n, "min_gram_length", 0);
	int64_t mx = ir_attr_int(t->n, "max_gram_length", 0);
	const char *mode = ir_attr_str(t->n, "mode", "");
	const float *w;
	int64_t grams = 0;

	if (t->x->dtype != IR_I32 && t->x->dtype != IR_I64)
		return tf_err(t, "int32 or int64 tokens are supported");
	if (!ir_shape_is_static(&t->x->shape) || t->x->shape.rank < 1 ||
	    t->x->shape.rank > 2)
		return tf_err(t, "a static input [N] or [B, N] is supported");
	if (mn < 1 || mx < mn || mx > t->ncounts || t->npool < 1 ||
	    t->npool > TFIDF_MAX_POOL ||
	    ir_attr_int(t->n, "max_skip_count", 0) < 0 ||
	    (strcmp(mode, "TF") && strcmp(mode, "IDF") && strcmp(mode, "TFIDF")))
		return tf_err(t, "needs 1 <= min_gram_length <= max_gram_length "
			      "<= the ngram_counts entries, a pool of 1 to "
			      "65536 int64 tokens, max_skip_count >= 0 and "
			      "mode TF, IDF or TFIDF");
	for (int i = 0; i < t->ncounts; i++) {
		int64_t end = i + 1 < t->ncounts ? t->counts[i + 1] : t->npool;

		if (t->counts[i] < 0 || end < t->counts[i] || end > t->npool ||
		    (end - t->counts[i]) % (i + 1))
			return tf_err(t, "ngram_counts do not split the pool "
				      "into whole n-grams");
		grams += (end - t->counts[i]) / (i + 1);
	}
	if (grams != t->nidx || (ir_attr_floats(t->n, "weights", &w) &&
				 ir_attr_floats(t->n, "weights", &w) != grams))
		return tf_err(t, "ngram_indexes (and weights) need one entry "
			      "per n-gram of the pool");
	*out = 0;
	for (int i = 0; i < t->nidx; i++) {
		if (t->idx[i] < 0 || t->idx[i] >= TFIDF_MAX_POOL)
			return tf_err(t, "an ngram_indexes entry is out of "
				      "range");
		if (t->idx[i] + 1 > *out)
			*out = t->idx[i] + 1;
	}
	return 0;
}

int shape_legalize_tfidf(struct ir_graph *g, struct ir_node *n)
{
	struct tfidf t = { .g = g, .n = n, .x = ir_in(n, 0) };
	struct ir_tensor *acc = NULL, *out, *y;
	int64_t nout = 0, g0 = 0, rows[2], flat[1];
	int rank;

	if (!t.x || n->num_outputs != 1)
		return 0;	/* malformed: left to shape inference */
	t.npool = ir_attr_ints(n, "pool_int64s", &t.pool);
	t.ncounts = ir_attr_ints(n, "ngram_counts", &t.counts);
	t.nidx = ir_attr_ints(n, "ngram_indexes", &t.idx);
	t.dt = t.x->dtype;
	if (tf_check(&t, &nout))
		return -EINVAL;
	rank = t.x->shape.rank;
	t.len = t.x->shape.dim[rank - 1];
	out = lz_take(&t.b, g, n);
	rows[0] = rank == 2 ? t.x->shape.dim[0] : 1;
	rows[1] = t.len;
	t.rows = rows[0];
	if (rank == 1)
		t.x = lz_reshape(&t.b, t.x, rows, 2, NULL);
	for (int i = 0; i < t.ncounts && t.x; i++) {
		int64_t end = i + 1 < t.ncounts ? t.counts[i + 1] : t.npool;
		int64_t len = i + 1, grams = (end - t.counts[i]) / len;
		struct ir_tensor *c;

		if (grams && len >= ir_attr_int(n, "min_gram_length", 1) &&
		    len <= ir_attr_int(n, "max_gram_length", 1) &&
		    t.len - (len - 1) > 0) {
			c = tf_count(&t, t.counts[i], grams, len,
				     ir_attr_int(n, "max_skip_count", 0));
			if (!c && t.refused)
				return -EINVAL;
			c = c ? tf_mode(&t, c, g0, grams) : NULL;
			c = c ? lz_binary(&t.b, IR_OP_MATMUL, c,
					  tf_place(&t, g0, grams, nout),
					  NULL) : NULL;
			if (!c)
				return -ENOMEM;
			acc = acc ? lz_binary(&t.b, IR_OP_ADD, acc, c, NULL) : c;
		}
		g0 += grams;
	}
	if (!t.x)
		return -ENOMEM;
	if (!acc) {	/* nothing counted: zeros */
		struct ir_shape s = { .rank = 2, .dim = { rows[0], nout } };
		float *z = calloc((size_t)(rows[0] * nout) + 1, sizeof(*z));

		acc = z ? ir_const_new(g, NULL, IR_F32, &s, z, (size_t)(rows[0] *
				       nout) * sizeof(*z)) : NULL;
		free(z);
	}
	flat[0] = nout;
	y = rank == 1 ? lz_reshape(&t.b, acc, flat, 1, out) :
	    lz_unary(&t.b, IR_OP_IDENTITY, acc, out);
	return y ? 1 : -ENOMEM;
}
