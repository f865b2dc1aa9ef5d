// SPDX-License-Identifier: MIT
/*
 * op_exec.c - single-op mode: npurt_op_execute() (like ACL's
 * aclopExecute).
 *
 * One ONNX operator is compiled by libnpuc (npuc_compile_op, loaded on
 * demand, npuc_dl.c) into a one-node model, loaded as an internal model
 * and kept in the context's op cache (rt_cache.c, LRU) under its key: the
 * op type, its attributes in the order given, each input's dtype, shape,
 * layout and constant contents, and the number of outputs. A later call
 * with the same key finds the loaded model and only submits it: no
 * compilation, no load. Inputs and outputs are the caller's device
 * buffers, bound without a copy (model_exec.c).
 *
 * Each cached op holds its weights (constant inputs), its workspace, its
 * staging buffers and one device semaphore; when the device runs out of
 * memory or semaphores while loading a new op, the least recently used
 * ops are evicted and the load is tried again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuc.h"
#include "rt_internal.h"

#define OP_CACHE_DEFAULT	64
#define OP_MAX_INPUTS		16
#define OP_MAX_OUTPUTS		8

struct rt_op_cache {
	pthread_mutex_t lock;
	struct rt_cache cache;
};

/* ---- the key ---- */

struct keybuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct keybuf *k, const void *data, size_t n)
{
	if (k->oom)
		return;
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 256;
		uint8_t *p;

		while (cap < k->len + n)
			cap *= 2;
		p = realloc(k->p, cap);
		if (!p) {
			k->oom = true;
			return;
		}
		k->p = p;
		k->cap = cap;
	}
	memcpy(k->p + k->len, data, n);
	k->len += n;
}

static void put_u64(struct keybuf *k, uint64_t v)
{
	put(k, &v, sizeof(v));
}

static void put_str(struct keybuf *k, const char *s)
{
	put(k, s ? s : "", strlen(s ? s : "") + 1);
}

static void make_key(struct keybuf *k, const char *op,
		     const npurt_op_attr *attrs, uint32_t na,
		     const npurt_op_tensor *in, uint32_t nin, uint32_t nout)
{
	put_str(k, op);
	put_u64(k, na);
	for (uint32_t i = 0; i < na; i++) {
		const npurt_op_attr *a = &attrs[i];

		put_str(k, a->name);
		put_u64(k, a->type);
		switch (a->type) {
		case NPURT_ATTR_INT:
			put_u64(k, (uint64_t)a->i);
			break;
		case NPURT_ATTR_FLOAT:
			put(k, &a->f, sizeof(a->f));
			break;
		case NPURT_ATTR_STRING:
			put_str(k, a->s);
			break;
		case NPURT_ATTR_INTS:
			put_u64(k, a->n);
			if (a->n)
				put(k, a->ints, a->n * sizeof(*a->ints));
			break;
		case NPURT_ATTR_FLOATS:
			put_u64(k, a->n);
			if (a->n)
				put(k, a->floats, a->n * sizeof(*a->floats));
			break;
		}
	}
	put_u64(k, nin);
	for (uint32_t i = 0; i < nin; i++) {
		put_u64(k, in[i].dtype);
		put_u64(k, in[i].rank);
		put(k, in[i].dims, in[i].rank * sizeof(in[i].dims[0]));
		put_str(k, in[i].layout ? in[i].layout : "ND");
		put_u64(k, in[i].data ? in[i].data_size + 1 : 0);
		if (in[i].data && in[i].data_size)
			put(k, in[i].data, in[i].data_size);
	}
	put_u64(k, nout);
}

/* ---- arguments ---- */

static npurt_status check_args(const char *op, const npurt_op_attr *attrs,
			       uint32_t na, const npurt_op_tensor *in,
			       uint32_t nin, const npurt_op_tensor *out,
			       uint32_t nout, npurt_stream *s,
			       const char *func)
{
	if (!op || !s || (na && !attrs) || (nin && !in) || !out)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass an op type, a stream and the arrays",
			       "bad arguments");
	if (nin > OP_MAX_INPUTS || nout < 1 || nout > OP_MAX_OUTPUTS)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass at most 16 inputs and 1 to 8 outputs",
			       "%s: %u inputs, %u outputs", op, nin, nout);
	for (uint32_t i = 0; i < na; i++)
		if (!attrs[i].name ||
		    (unsigned int)attrs[i].type > NPURT_ATTR_FLOATS ||
		    (attrs[i].n && attrs[i].type == NPURT_ATTR_INTS &&
		     !attrs[i].ints) ||
		    (attrs[i].n && attrs[i].type == NPURT_ATTR_FLOATS &&
		     !attrs[i].floats) ||
		    attrs[i].n > INT32_MAX)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "give each attribute a name, a type "
				       "and its values",
				       "%s: attribute %u is malformed", op, i);
	for (uint32_t i = 0; i < nin; i++) {
		if (in[i].rank > NPURT_MAX_RANK)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "use at most NPURT_MAX_RANK dims",
				       "%s: input %u has rank %u", op, i,
				       in[i].rank);
		for (uint32_t d = 0; d < in[i].rank; d++)
			if (in[i].dims[d] > INT64_MAX)
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "give static dims",
					       "%s: input %u dim %u is not a "
					       "size", op, i, d);
		if (!in[i].data && !in[i].mem)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "set .mem (a device buffer) or .data "
				       "(a constant input)",
				       "%s: input %u has no buffer", op, i);
		if (in[i].mem && in[i].mem->ctx != s->ctx)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "use blocks of the stream's context",
				       "%s: input %u is a block of another "
				       "context", op, i);
	}
	for (uint32_t i = 0; i < nout; i++)
		if (!out[i].mem || out[i].mem->ctx != s->ctx)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "give every output a device block of "
				       "the stream's context",
				       "%s: output %u has no block of this "
				       "context", op, i);
	return NPURT_OK;
}

/* ---- the cache ---- */

static struct rt_op_cache *op_cache(npurt_context *ctx, const char *func)
{
	struct rt_op_cache *c;

	pthread_mutex_lock(&ctx->lock);
	c = ctx->op_cache;
	if (!c) {
		const char *env = getenv("NPURT_OP_CACHE_SIZE");
		unsigned long cap = env && *env ? strtoul(env, NULL, 10) : 0;

		c = calloc(1, sizeof(*c));
		if (c) {
			pthread_mutex_init(&c->lock, NULL);
			c->cache.capacity = cap >= 1 && cap <= 65536 ?
				(uint32_t)cap : OP_CACHE_DEFAULT;
			ctx->op_cache = c;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!c)
		rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			"out of memory for the op cache");
	return c;
}

void rt_op_cache_destroy(npurt_context *ctx)
{
	struct rt_op_cache *c = ctx->op_cache;

	if (!c)
		return;
	rt_cache_clear(&c->cache);
	pthread_mutex_destroy(&c->lock);
	free(c);
	ctx->op_cache = NULL;
}

static npurt_status compile_error(int ret, const char *op, const char *err,
				  const char *func)
{
	if (ret == -ENOMEM)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "compiling %s: %s", op, err);
	if (strstr(err, "not supported"))
		return rt_fail(NPURT_ERR_UNSUPPORTED, func,
			       "use an operator of the compiler's table "
			       "(Documentation/npuc.rst)",
			       "compiling %s: %s", op, err);
	return rt_fail(NPURT_ERR_SHAPE, func,
		       "check the inputs' shapes and dtypes and the "
		       "attributes against the ONNX operator",
		       "compiling %s: %s", op, err);
}

/* Compile and load the op of a miss (cache lock held). */
static npurt_status compile_op(npurt_context *ctx, struct rt_cache *cache,
			       const char *op, const npurt_op_attr *attrs,
			       uint32_t na, const npurt_op_tensor *in,
			       uint32_t nin, uint32_t nout,
			       npurt_model **out, const char *func)
{
	const struct rt_npuc *npuc = rt_npuc_get(func);
	struct npuc_op_attr a[64];
	struct npuc_op_attr *ap = na <= 64 ? a : calloc(na, sizeof(*ap));
	struct npuc_op_tensor t[OP_MAX_INPUTS];
	int64_t dims[OP_MAX_INPUTS][NPURT_MAX_RANK];
	struct npuc_compile_options o;
	struct rt_load_opts lo = { .internal = true };
	npuc_result *r = NULL;
	const void *om;
	size_t om_size;
	char err[512] = "";
	uint64_t t0;
	npurt_status st;
	int ret;

	if (!npuc)
		return npurt_last_error()->code;
	if (!ap)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	for (uint32_t i = 0; i < na; i++) {
		memset(&ap[i], 0, sizeof(ap[i]));
		ap[i].name = attrs[i].name;
		ap[i].type = (int)attrs[i].type;
		ap[i].i = attrs[i].i;
		ap[i].f = attrs[i].f;
		ap[i].s = attrs[i].s;
		ap[i].ints = attrs[i].ints;
		ap[i].floats = attrs[i].floats;
		ap[i].n = (int)attrs[i].n;
	}
	for (uint32_t i = 0; i < nin; i++) {
		for (uint32_t d = 0; d < in[i].rank; d++)
			dims[i][d] = (int64_t)in[i].dims[d];
		memset(&t[i], 0, sizeof(t[i]));
		t[i].dtype = (int)in[i].dtype;
		t[i].rank = (int)in[i].rank;
		t[i].dims = dims[i];
		t[i].layout = in[i].layout;
		t[i].data = in[i].data;
		t[i].data_size = in[i].data_size;
	}
	npuc->options_init(&o);
	o.use_cache = 0;
	o.max_streams = 1;
	if (ctx->dev->info.is_kernel)
		o.target_device = ctx->dev->spec;
	t0 = rt_now_ns();
	ret = npuc->compile_op(op, ap, (int)na, t, (int)nin, (int)nout, &o,
			       &r, err, sizeof(err));
	if (ap != a)
		free(ap);
	cache->last_compile_ns = rt_now_ns() - t0;
	cache->compile_ns += cache->last_compile_ns;
	cache->misses++;
	if (ret)
		return compile_error(ret, op, err, func);
	om = npuc->result_model(r, &om_size);
	t0 = rt_now_ns();
	for (;;) {
		st = rt_model_load(ctx, om, om_size, &lo, out, func);
		/* The device is full: make room from the least used ops. */
		if ((st != NPURT_ERR_NO_RESOURCE &&
		     st != NPURT_ERR_DEVICE_NOMEM) ||
		    !rt_cache_evict_lru(cache))
			break;
	}
	cache->load_ns += rt_now_ns() - t0;
	npuc->result_free(r);
	return st;
}

NPURT_API npurt_status npurt_op_execute(const char *op_type,
					const npurt_op_attr *attrs,
					uint32_t num_attrs,
					const npurt_op_tensor *inputs,
					uint32_t num_inputs,
					npurt_op_tensor *outputs,
					uint32_t num_outputs,
					npurt_stream *stream)
{
	npurt_io io_in[OP_MAX_INPUTS], io_out[OP_MAX_OUTPUTS];
	struct keybuf key = { 0 };
	struct rt_op_cache *c;
	struct rt_centry *e;
	npurt_model *m = NULL;
	uint32_t k = 0;
	npurt_status st;

	st = check_args(op_type, attrs, num_attrs, inputs, num_inputs, outputs,
			num_outputs, stream, __func__);
	if (st)
		return st;
	c = op_cache(stream->ctx, __func__);
	if (!c)
		return NPURT_ERR_NOMEM;
	make_key(&key, op_type, attrs, num_attrs, inputs, num_inputs,
		 num_outputs);
	if (key.oom) {
		free(key.p);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	}
	pthread_mutex_lock(&c->lock);
	e = rt_cache_find(&c->cache, key.p, key.len);
	if (!e) {
		char name[96];

		st = compile_op(stream->ctx, &c->cache, op_type, attrs,
				num_attrs, inputs, num_inputs, num_outputs, &m,
				__func__);
		snprintf(name, sizeof(name), "%s#%016llx", op_type,
			 (unsigned long long)rt_hash(key.p, key.len));
		if (!st)
			st = rt_cache_insert(&c->cache, key.p, key.len, m, name,
					     &e, __func__);
		if (st) {
			rt_model_unload(m);
			goto out;
		}
	}
	m = e->model;
	for (uint32_t i = 0; i < num_inputs; i++) {
		npurt_tensor_desc d;

		if (inputs[i].data)
			continue;
		npurt_model_get_input(m, k, 0, &d);
		io_in[k] = (npurt_io){ inputs[i].mem, NULL, inputs[i].offset,
				       d.size };
		k++;
	}
	if (k != m->nin || num_outputs != m->nout) {
		st = RT_FAIL(NPURT_ERR_INTERNAL, "report a bug",
			     "%s: compiled with %u inputs and %u outputs; "
			     "%u and %u given", op_type, m->nin, m->nout, k,
			     num_outputs);
		goto out;
	}
	for (uint32_t i = 0; i < num_outputs; i++) {
		npurt_op_tensor *o = &outputs[i];
		npurt_tensor_desc d;
		size_t have = npurt_mem_size(o->mem);

		npurt_model_get_output(m, i, 0, &d);
		o->dtype = d.dtype;
		o->rank = d.rank;
		memset(o->dims, 0, sizeof(o->dims));
		memcpy(o->dims, d.dims, d.rank * sizeof(d.dims[0]));
		if (o->offset > have || have - o->offset < d.size) {
			st = RT_FAIL(NPURT_ERR_SHAPE,
				     "give the output a block of its size",
				     "%s: output %u needs %zu bytes; the "
				     "block has %zu from offset %zu", op_type,
				     i, d.size, have, o->offset);
			goto out;
		}
		io_out[i] = (npurt_io){ o->mem, NULL, o->offset, d.size };
	}
	st = rt_model_execute_plain(m, io_in, k, io_out, num_outputs, stream,
				    __func__);
out:
	pthread_mutex_unlock(&c->lock);
	free(key.p);
	return st;
}

NPURT_API npurt_status npurt_op_cache_get_stats(npurt_context *ctx,
						npurt_cache_stats *stats)
{
	struct rt_op_cache *c;

	if (!ctx || !stats)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a context and a struct",
			       "bad arguments");
	c = op_cache(ctx, __func__);
	if (!c)
		return NPURT_ERR_NOMEM;
	pthread_mutex_lock(&c->lock);
	rt_cache_stats(&c->cache, stats);
	pthread_mutex_unlock(&c->lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_op_cache_set_capacity(npurt_context *ctx,
						   uint32_t capacity)
{
	struct rt_op_cache *c;

	if (!ctx || !capacity)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context and a capacity >= 1",
			       "bad arguments");
	c = op_cache(ctx, __func__);
	if (!c)
		return NPURT_ERR_NOMEM;
	pthread_mutex_lock(&c->lock);
	c->cache.capacity = capacity;
	while (c->cache.count > capacity && rt_cache_evict_lru(&c->cache))
		;
	pthread_mutex_unlock(&c->lock);
	return NPURT_OK;
}
