// SPDX-License-Identifier: MIT
/*
 * generate.c - greedy decoding of a decoder model with a KV cache that
 * stays in device memory (npurt_model_generate).
 *
 * A decoder exported with its cache as I/O (HF-style: inputs
 * past_key_values.L.key/value, outputs logits and present.L.key/value,
 * present = concat(past, new) along one growing sequence dim) runs one
 * step per token. Step 0 takes the prompt and an empty cache; step k the
 * token chosen at step k-1 and the cache step k-1 wrote. Each pair of
 * cache tensors gets two device blocks, each for the longest sequence of
 * the generation: a step reads the past from one and writes the present
 * into the other, and the next step swaps them. The present of a step is
 * exactly the next step's past (same dims, same dense bytes at offset 0),
 * so the runtime binds both without a copy and nothing of the cache
 * crosses to the host. What does cross, each step: the new token ids (and
 * a mask or positions when the model takes them) in, one row of logits
 * out; the runtime's host-copy counters (rt_count_copy) measure it.
 *
 * Every step selects its shapes: a model loaded from ONNX compiles an
 * unseen length on demand (shape_cache.c), a .om must have a gear of it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#define GEN_MAX_IO	64

/* What each model input is to the loop. */
enum gen_role { GEN_IDS, GEN_PAST, GEN_MASK, GEN_POS, GEN_CACHE_POS };

struct gen_pair {
	uint32_t in, out;		/* past input, present output */
	npurt_tensor_desc d;		/* the input's generic description */
	uint32_t seq_dim;		/* the positions' dim */
	uint64_t row_bytes;		/* bytes per position of the seq dim */
	npurt_mem *blk[2];		/* ping-pong: the past is blk[cur] */
};

struct gen {
	npurt_model *m;
	npurt_context *ctx;
	npurt_model_info info;
	const npurt_generate_options *o;
	enum gen_role role[GEN_MAX_IO];
	int32_t pair_of_out[GEN_MAX_IO];	/* -1: logits */
	uint32_t ids, logits;
	struct gen_pair *pairs;
	uint32_t npairs;
	uint32_t cur;			/* which block holds the past */
	bool fixed;			/* a static cache: present = past's shape */
	uint64_t positions;		/* a static cache's capacity */
	uint64_t mask_len;		/* a static attention_mask's, else 0 */
	uint64_t vocab;
	npurt_mem *logits_blk;
	uint64_t logits_cap;		/* bytes of @logits_blk */
	int64_t *host_in;		/* ids, mask, positions for a step */
	float *row;			/* the last row of logits */
	uint64_t cache_host;		/* host copies of the cache */
};

static int64_t copy_counter(npurt_context *ctx, bool to_device)
{
	return (int64_t)__atomic_load_n(to_device ? &ctx->h2d_bytes :
					&ctx->d2h_bytes, __ATOMIC_RELAXED);
}

static bool starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* "past_key_values.0.key" -> "present.0.key", "past_k0" -> "present_k0" */
static bool present_name(const char *past, char *buf, size_t len)
{
	const char *rest;
	int n;

	if (starts_with(past, "past_key_values"))
		rest = past + strlen("past_key_values");
	else if (starts_with(past, "past"))
		rest = past + strlen("past");
	else
		return false;
	n = snprintf(buf, len, "present%s", rest);
	return n > 0 && (size_t)n < len;
}

static size_t dtype_bytes(npurt_dtype t)
{
	switch (t) {
	case NPURT_DTYPE_F32: case NPURT_DTYPE_I32: case NPURT_DTYPE_U32:
		return 4;
	case NPURT_DTYPE_F16: case NPURT_DTYPE_BF16: case NPURT_DTYPE_I16:
	case NPURT_DTYPE_U16:
		return 2;
	case NPURT_DTYPE_I64: case NPURT_DTYPE_F64: case NPURT_DTYPE_U64:
		return 8;
	case NPURT_DTYPE_I8: case NPURT_DTYPE_U8: case NPURT_DTYPE_BOOL:
		return 1;
	}
	return 0;
}

/* The input roles by name: ids, attention_mask, position_ids, caches. */
static npurt_status find_inputs(struct gen *g, const char *func)
{
	const char *want = g->o->input_ids ? g->o->input_ids : "input_ids";
	uint32_t ids = UINT32_MAX, guess = UINT32_MAX, nguess = 0;

	for (uint32_t i = 0; i < g->info.num_inputs; i++) {
		npurt_tensor_desc d;

		npurt_model_get_input(g->m, i, 1, &d);
		g->role[i] = GEN_PAST;
		if (!strcmp(d.name, want)) {
			ids = i;
		} else if (!strcmp(d.name, "attention_mask")) {
			g->role[i] = GEN_MASK;
		} else if (!strcmp(d.name, "position_ids")) {
			g->role[i] = GEN_POS;
		} else if (!strcmp(d.name, "cache_position")) {
			g->role[i] = GEN_CACHE_POS;
		} else if (!g->o->input_ids && d.dtype == NPURT_DTYPE_I64 &&
			   d.rank == 2) {
			guess = i;
			nguess++;
		}
	}
	if (ids == UINT32_MAX && nguess == 1)
		ids = guess;
	if (ids == UINT32_MAX)
		return rt_fail(NPURT_ERR_NOT_FOUND, func,
			       "name it in npurt_generate_options.input_ids",
			       "model \"%s\" has no token input \"%s\"%s",
			       g->info.name, want, nguess > 1 ?
			       " and several rank-2 int64 inputs" : "");
	g->ids = ids;
	g->role[ids] = GEN_IDS;
	for (uint32_t i = 0; i < g->info.num_inputs; i++) {
		npurt_tensor_desc d;

		npurt_model_get_input(g->m, i, 1, &d);
		if (g->role[i] != GEN_PAST && d.dtype != NPURT_DTYPE_I64)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export the token ids, mask and "
				       "positions as int64",
				       "input \"%s\" is not int64", d.name);
		if (g->role[i] != GEN_PAST &&
		    d.rank != (g->role[i] == GEN_CACHE_POS ? 1u : 2u))
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export it as [batch, seq] ([seq] for "
				       "cache_position)",
				       "input \"%s\" has rank %u", d.name,
				       d.rank);
		if (g->role[i] == GEN_MASK &&
		    d.dims[1] != NPURT_DIM_DYNAMIC)
			g->mask_len = d.dims[1];
	}
	return NPURT_OK;
}

/* The logits output and the present output of each past input. */
static npurt_status pair_outputs(struct gen *g, const char *func)
{
	const char *want = g->o->logits ? g->o->logits : "logits";
	uint32_t nin = g->info.num_inputs, nout = g->info.num_outputs;
	bool taken[GEN_MAX_IO] = { false };

	if (npurt_model_find_output(g->m, want, &g->logits)) {
		if (g->o->logits)
			return rt_fail(NPURT_ERR_NOT_FOUND, func,
				       "name an output of the model",
				       "model \"%s\" has no output \"%s\"",
				       g->info.name, want);
		npurt_clear_error();
		g->logits = 0;
	}
	taken[g->logits] = true;
	g->pair_of_out[g->logits] = -1;
	g->pairs = calloc(nin, sizeof(*g->pairs));
	if (!g->pairs)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	/* by name first: past... -> present... */
	for (uint32_t i = 0; i < nin; i++) {
		struct gen_pair *p = &g->pairs[g->npairs];
		char name[256];

		if (g->role[i] != GEN_PAST)
			continue;
		npurt_model_get_input(g->m, i, 1, &p->d);
		p->in = i;
		p->out = UINT32_MAX;
		if (present_name(p->d.name, name, sizeof(name)) &&
		    !npurt_model_find_output(g->m, name, &p->out)) {
			if (taken[p->out])
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "give each past input a present "
					       "output of its own",
					       "input \"%s\" pairs with output "
					       "\"%s\", which is already the "
					       "logits or another cache's",
					       p->d.name, name);
			taken[p->out] = true;
		}
		npurt_clear_error();
		g->npairs++;
	}
	/* then in order, the unnamed ones with the outputs left */
	for (uint32_t k = 0, j = 0; k < g->npairs; k++) {
		if (g->pairs[k].out != UINT32_MAX)
			continue;
		while (j < nout && taken[j])
			j++;
		if (j == nout)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export a present output for every "
				       "past input (or name them past*/present*)",
				       "input \"%s\" is no token input, mask or "
				       "positions and no output is left to "
				       "pair it with", g->pairs[k].d.name);
		g->pairs[k].out = j;
		taken[j] = true;
	}
	for (uint32_t j = 0; j < nout; j++)
		if (!taken[j]) {
			npurt_tensor_desc d;

			npurt_model_get_output(g->m, j, 1, &d);
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export logits and the present cache "
				       "only",
				       "output \"%s\" is neither the logits "
				       "nor a present cache", d.name);
		}
	for (uint32_t k = 0; k < g->npairs; k++)
		g->pair_of_out[g->pairs[k].out] = (int32_t)k;
	return NPURT_OK;
}

/*
 * A cache pair's form: growing (one symbolic dim besides dim 0, the
 * batch: the positions) or static (no symbolic dim: [batch, heads,
 * positions, head_dim], the model writes the new positions in place).
 * Sets @p->seq_dim and @p->row_bytes; 1 growing, 0 static, -1 neither.
 */
static int pair_form(struct gen_pair *p, uint64_t *row)
{
	uint32_t nsym = 0;

	*row = dtype_bytes(p->d.dtype);
	for (uint32_t d = 0; d < p->d.rank; d++) {
		if (p->d.dims[d] == NPURT_DIM_DYNAMIC) {
			if (d) {
				p->seq_dim = d;
				nsym++;
			}
			continue;
		}
		if (__builtin_mul_overflow(*row, p->d.dims[d], row))
			return -1;
	}
	if (nsym > 1 || !*row)
		return -1;
	if (!nsym) {
		if (p->d.rank < 3 || !p->d.dims[p->d.rank - 2])
			return -1;
		p->seq_dim = p->d.rank - 2;
		*row /= p->d.dims[p->seq_dim];
	}
	return nsym;
}

/* The cache's form, its bytes per position and two blocks per pair. */
static npurt_status plan_cache(struct gen *g, uint64_t max_len,
			       const char *func)
{
	bool has_pos = false;

	for (uint32_t i = 0; i < g->info.num_inputs; i++)
		has_pos |= g->role[i] == GEN_POS || g->role[i] == GEN_CACHE_POS;
	for (uint32_t k = 0; k < g->npairs; k++) {
		struct gen_pair *p = &g->pairs[k];
		int form = pair_form(p, &p->row_bytes);
		uint64_t bytes, len = max_len;

		if (form < 0)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export the cache with one dynamic "
				       "positions dim (torch dynamic_axes), or "
				       "static [batch, heads, positions, "
				       "head_dim]",
				       "cache input \"%s\" (rank %u) has neither "
				       "form", p->d.name, p->d.rank);
		if (k && g->fixed != !form)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export every cache in one form",
				       "cache input \"%s\" is %s, the first is "
				       "not", p->d.name, form ? "growing" :
				       "static");
		g->fixed = !form;
		if (g->fixed) {
			len = p->d.dims[p->seq_dim];
			if (!has_pos)
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "give the model a cache_position "
					       "or position_ids input",
					       "static cache \"%s\" but no input "
					       "says where the new tokens go",
					       p->d.name);
			if (k && len != g->positions)
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "export every cache with the "
					       "same positions",
					       "cache \"%s\" holds %llu "
					       "positions, the first %llu",
					       p->d.name,
					       (unsigned long long)len,
					       (unsigned long long)g->positions);
			g->positions = len;
			if (max_len > len)
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "generate fewer tokens or export "
					       "a larger cache",
					       "the prompt and the new tokens "
					       "need %llu positions, cache \"%s\" "
					       "holds %llu",
					       (unsigned long long)max_len,
					       p->d.name,
					       (unsigned long long)len);
		}
		if (__builtin_mul_overflow(p->row_bytes, len, &bytes) ||
		    bytes > SIZE_MAX)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "generate fewer tokens",
				       "cache \"%s\" for %llu positions does not "
				       "fit 64 bits", p->d.name,
				       (unsigned long long)len);
		for (int b = 0; b < 2; b++) {
			npurt_status st = npurt_mem_alloc(g->ctx, bytes,
							  &p->blk[b]);

			if (st)
				return st;
		}
		/* a static cache starts empty: zeros, as the export's */
		if (g->fixed) {
			npurt_status st = npurt_memset(p->blk[0], 0, 0, bytes);

			if (st)
				return st;
		}
	}
	return NPURT_OK;
}

/* Selects the shapes of a step of @seq tokens after @past positions. */
static npurt_status select_step(struct gen *g, uint64_t past, uint64_t seq)
{
	uint64_t dims[GEN_MAX_IO][NPURT_MAX_RANK];
	const uint64_t *shapes[GEN_MAX_IO];

	for (uint32_t i = 0; i < g->info.num_inputs; i++) {
		shapes[i] = dims[i];
		dims[i][0] = 1;
		switch (g->role[i]) {
		case GEN_IDS: case GEN_POS:
			dims[i][1] = seq;
			break;
		case GEN_CACHE_POS:
			dims[i][0] = seq;
			break;
		case GEN_MASK:
			dims[i][1] = g->mask_len ? g->mask_len : past + seq;
			break;
		case GEN_PAST:
			break;
		}
	}
	for (uint32_t k = 0; k < g->npairs; k++) {
		struct gen_pair *p = &g->pairs[k];

		for (uint32_t d = 0; d < p->d.rank; d++)
			dims[p->in][d] = d == p->seq_dim && !g->fixed ? past :
					 d == 0 ? 1 : p->d.dims[d];
	}
	return npurt_model_select_shapes(g->m, shapes);
}

/* Whether @a and @b have the same dims but dim @skip. */
static bool same_but(const npurt_tensor_desc *a, const npurt_tensor_desc *b,
		     uint32_t skip)
{
	for (uint32_t d = 0; d < a->rank; d++)
		if (d != skip && a->dims[d] != b->dims[d])
			return false;
	return true;
}

/* The selected step's outputs: presents one past longer, logits f32. */
static npurt_status check_step(struct gen *g, uint64_t past, uint64_t seq,
			       const char *func)
{
	npurt_tensor_desc d;

	npurt_model_get_output(g->m, g->logits, 0, &d);
	if (d.dtype != NPURT_DTYPE_F32 || d.rank != 3 || d.dims[0] != 1 ||
	    d.dims[1] != seq || !d.dims[2])
		return rt_fail(NPURT_ERR_SHAPE, func,
			       "export logits as f32 [batch, seq, vocab]",
			       "output \"%s\" of a %llu-token step is not f32 "
			       "[1, %llu, vocab]", d.name,
			       (unsigned long long)seq,
			       (unsigned long long)seq);
	if (g->vocab && d.dims[2] != g->vocab)
		return rt_fail(NPURT_ERR_SHAPE, func, "report it",
			       "the vocabulary of \"%s\" changed from %llu to "
			       "%llu", d.name, (unsigned long long)g->vocab,
			       (unsigned long long)d.dims[2]);
	g->vocab = d.dims[2];
	for (uint32_t k = 0; k < g->npairs; k++) {
		struct gen_pair *p = &g->pairs[k];
		npurt_tensor_desc in;

		npurt_model_get_input(g->m, p->in, 0, &in);
		npurt_model_get_output(g->m, p->out, 0, &d);
		if (g->fixed && d.dtype == in.dtype && d.rank == in.rank &&
		    d.size == in.size && same_but(&d, &in, NPURT_MAX_RANK))
			continue;
		if (g->fixed)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "export a static cache's present with "
				       "its past's shape",
				       "output \"%s\" (%zu bytes) is not input "
				       "\"%s\" (%zu bytes)", d.name, d.size,
				       in.name, in.size);
		if (!g->fixed && d.dtype == in.dtype && d.rank == in.rank &&
		    d.size == in.size + seq * p->row_bytes &&
		    same_but(&d, &in, p->seq_dim) &&
		    d.dims[p->seq_dim] == past + seq)
			continue;
		return rt_fail(NPURT_ERR_SHAPE, func,
			       "export present = concat(past, new) along the "
			       "sequence dim",
			       "output \"%s\" (%zu bytes) is not input \"%s\" "
			       "(%zu bytes) grown by %llu position(s) along "
			       "dim %u", d.name, d.size, in.name, in.size,
			       (unsigned long long)seq, p->seq_dim);
	}
	return NPURT_OK;
}

/* Argmax of the last row of logits; NaN counts as the largest (torch). */
static int64_t argmax_row(const float *v, uint64_t n)
{
	uint64_t best = 0;

	for (uint64_t i = 1; i < n; i++) {
		if (v[best] != v[best])
			break;
		if (v[i] > v[best] || v[i] != v[i])
			best = i;
	}
	return (int64_t)best;
}

/*
 * One step: @seq tokens of @ids after @past cached positions; writes the
 * chosen token to *@next and the bytes it meant to move between host and
 * device (its host inputs and one row of logits) to *@host_bytes.
 */
static npurt_status run_step(struct gen *g, const int64_t *ids, uint64_t seq,
			     uint64_t past, int64_t *next,
			     uint64_t *host_bytes, const char *func)
{
	npurt_io in[GEN_MAX_IO], out[GEN_MAX_IO];
	int64_t *h = g->host_in;
	uint64_t lbytes;
	npurt_status st;

	st = select_step(g, past, seq);
	if (!st)
		st = check_step(g, past, seq, func);
	if (st)
		return st;
	for (uint32_t i = 0; i < g->info.num_inputs; i++) {
		uint64_t n = g->role[i] != GEN_MASK ? seq :
			     g->mask_len ? g->mask_len : past + seq;

		if (g->role[i] == GEN_PAST)
			continue;
		for (uint64_t t = 0; t < n; t++)
			h[t] = g->role[i] == GEN_IDS ? ids[t] :
			       g->role[i] != GEN_MASK ? (int64_t)(past + t) :
			       t < past + seq;
		in[i] = (npurt_io){ NULL, h, 0, n * sizeof(*h) };
		*host_bytes += n * sizeof(*h);
		h += n;
	}
	for (uint32_t k = 0; k < g->npairs; k++) {
		struct gen_pair *p = &g->pairs[k];

		in[p->in] = (npurt_io){ p->blk[g->cur], NULL, 0,
					npurt_mem_size(p->blk[g->cur]) };
		out[p->out] = (npurt_io){ p->blk[!g->cur], NULL, 0,
					  npurt_mem_size(p->blk[!g->cur]) };
	}
	lbytes = seq * g->vocab * sizeof(float);
	if (lbytes > g->logits_cap) {
		npurt_mem_free(g->logits_blk);
		g->logits_blk = NULL;
		st = npurt_mem_alloc(g->ctx, lbytes, &g->logits_blk);
		if (st)
			return st;
		g->logits_cap = lbytes;
	}
	out[g->logits] = (npurt_io){ g->logits_blk, NULL, 0, g->logits_cap };
	st = npurt_model_execute(g->m, in, g->info.num_inputs, out,
				 g->info.num_outputs);
	if (st)
		return st;
	g->cur = !g->cur;
	if (!g->row) {
		g->row = malloc(g->vocab * sizeof(float));
		if (!g->row)
			return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
				       "out of memory");
	}
	st = npurt_memcpy_d2h(g->row, g->logits_blk,
			      (seq - 1) * g->vocab * sizeof(float),
			      g->vocab * sizeof(float));
	*host_bytes += g->vocab * sizeof(float);
	if (!st)
		*next = argmax_row(g->row, g->vocab);
	return st;
}

/*
 * Elements of the host inputs of the largest step: the prompt's length
 * for the ids and each kind of positions, the mask of the longest
 * sequence (or its static length).
 */
static size_t host_in_len(const struct gen *g, uint32_t prompt_len,
			  uint64_t max_len)
{
	size_t n = 1;

	for (uint32_t i = 0; i < g->info.num_inputs; i++)
		if (g->role[i] == GEN_MASK)
			n += g->mask_len ? g->mask_len : max_len + 1;
		else if (g->role[i] != GEN_PAST)
			n += prompt_len;
	return n;
}

static void gen_free(struct gen *g)
{
	for (uint32_t k = 0; k < g->npairs; k++) {
		npurt_mem_free(g->pairs[k].blk[0]);
		npurt_mem_free(g->pairs[k].blk[1]);
	}
	free(g->pairs);
	npurt_mem_free(g->logits_blk);
	free(g->host_in);
	free(g->row);
}

NPURT_API void npurt_generate_options_init(npurt_generate_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->eos_token_id = -1;
}

static npurt_status check_args(npurt_model *m, const int64_t *prompt,
			       uint32_t prompt_len,
			       const npurt_generate_options *o,
			       int64_t *tokens, uint32_t *num_tokens,
			       const char *func)
{
	if (!m || !prompt || !prompt_len || !o || !tokens || !num_tokens)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a model, a prompt of at least one token, "
			       "options and room for the tokens",
			       "bad arguments");
	if (o->size != sizeof(*o))
		return rt_fail(NPURT_ERR_INVALID, func,
			       "call npurt_generate_options_init() first",
			       "options size is %zu, not %zu", o->size,
			       sizeof(*o));
	if (!o->max_new_tokens ||
	    (uint64_t)o->max_new_tokens + prompt_len > INT32_MAX)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "ask for 1 to 2^31 - 1 tokens, prompt included",
			       "max_new_tokens is %u with a prompt of %u",
			       o->max_new_tokens, prompt_len);
	return NPURT_OK;
}

static npurt_status generate(struct gen *g, const int64_t *prompt,
			     uint32_t prompt_len, int64_t *tokens,
			     uint32_t *num_tokens, npurt_generate_stats *s,
			     const char *func)
{
	const npurt_generate_options *o = g->o;
	npurt_cache_stats c0 = { 0 }, c1 = { 0 };
	bool online = !npurt_model_get_shape_cache_stats(g->m, &c0);
	int64_t h0 = copy_counter(g->ctx, true);
	int64_t d0 = copy_counter(g->ctx, false);
	uint64_t past = 0, t0 = rt_now_ns(), t1 = t0;
	const int64_t *ids = prompt;
	uint64_t seq = prompt_len;
	npurt_status st = NPURT_OK;
	uint32_t n = 0;

	npurt_clear_error();
	while (n < o->max_new_tokens) {
		int64_t before = copy_counter(g->ctx, true) +
				 copy_counter(g->ctx, false), crossed;
		uint64_t meant = 0;
		int64_t next;

		st = run_step(g, ids, seq, past, &next, &meant, func);
		if (st)
			break;
		/* whatever crossed beyond the ids and the logits row */
		crossed = copy_counter(g->ctx, true) +
			  copy_counter(g->ctx, false) - before;
		if (crossed > (int64_t)meant)
			g->cache_host += (uint64_t)crossed - meant;
		tokens[n++] = next;
		if (n == 1)
			t1 = rt_now_ns();
		past += seq;
		if ((o->on_token && o->on_token(o->user, n - 1, next)) ||
		    next == o->eos_token_id)
			break;
		ids = &tokens[n - 1];
		seq = 1;
	}
	*num_tokens = n;
	if (!s)
		return st;
	s->prompt_tokens = prompt_len;
	s->new_tokens = n;
	s->prompt_ns = n ? t1 - t0 : 0;
	s->decode_ns = n > 1 ? rt_now_ns() - t1 : 0;
	s->tokens_per_s = s->decode_ns ?
			  (double)(n - 1) * 1e9 / (double)s->decode_ns : 0;
	s->cache_tensors = g->npairs;
	for (uint32_t k = 0; k < g->npairs; k++)
		s->cache_bytes += 2 * npurt_mem_size(g->pairs[k].blk[0]);
	s->cache_host_bytes = g->cache_host;
	s->h2d_bytes = (uint64_t)(copy_counter(g->ctx, true) - h0);
	s->d2h_bytes = (uint64_t)(copy_counter(g->ctx, false) - d0);
	if (online && !npurt_model_get_shape_cache_stats(g->m, &c1)) {
		s->shapes_compiled = (uint32_t)(c1.misses - c0.misses);
		s->compile_ns = c1.compile_ns - c0.compile_ns;
	}
	return st;
}

NPURT_API npurt_status npurt_model_generate(npurt_model *m,
					    const int64_t *prompt,
					    uint32_t prompt_len,
					    const npurt_generate_options *o,
					    int64_t *tokens,
					    uint32_t *num_tokens,
					    npurt_generate_stats *stats)
{
	struct gen g = { .m = m, .o = o };
	npurt_status st;
	uint64_t max_len;

	st = check_args(m, prompt, prompt_len, o, tokens, num_tokens,
			__func__);
	if (st)
		return st;
	*num_tokens = 0;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	g.ctx = m->ctx;
	npurt_model_get_info(m, &g.info);
	if (g.info.num_inputs > GEN_MAX_IO || g.info.num_outputs > GEN_MAX_IO)
		return RT_FAIL(NPURT_ERR_UNSUPPORTED,
			       "export at most 64 inputs and outputs",
			       "model \"%s\" has %u inputs and %u outputs",
			       g.info.name, g.info.num_inputs,
			       g.info.num_outputs);
	/* the last step's present holds every position but the last token */
	max_len = (uint64_t)prompt_len + o->max_new_tokens - 1;
	st = find_inputs(&g, __func__);
	if (!st)
		st = pair_outputs(&g, __func__);
	if (!st && !g.npairs)
		st = RT_FAIL(NPURT_ERR_SHAPE,
			     "export the cache as past*/present* I/O",
			     "model \"%s\" has no cache inputs", g.info.name);
	if (!st)
		st = plan_cache(&g, max_len, __func__);
	if (!st) {
		g.host_in = calloc(host_in_len(&g, prompt_len, max_len),
				   sizeof(*g.host_in));
		if (!g.host_in)
			st = RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
				     "out of memory");
	}
	if (!st)
		st = generate(&g, prompt, prompt_len, tokens, num_tokens,
			      stats, __func__);
	gen_free(&g);
	return st;
}
