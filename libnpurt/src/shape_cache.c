// SPDX-License-Identifier: MIT
/*
 * shape_cache.c - models loaded from ONNX, and dynamic shapes on demand.
 *
 * npurt_model_load_onnx() compiles the ONNX with libnpuc (loaded on
 * demand, npuc_dl.c) at the shapes or gears given, or, for symbolic dims
 * with neither, one gear with every symbol at 1, and loads the result as
 * an ordinary model: the "base". The ONNX bytes stay with the model.
 *
 * npurt_model_select_shapes() on such a model:
 *   - a gear of the base: selected directly (not a shape cache lookup);
 *   - a shape in the shape cache: a hit, made the most recently used;
 *   - another shape: a miss, compiled with the concrete dims (shape
 *     inference, planning, lowering at those values), loaded as an
 *     internal model and added to the cache, the least recently used
 *     shape evicted (unloaded) beyond the cache's size.
 * The key is every input's rank and dims. Executions and descriptions of
 * the model then act on the selected shape's model (rt_model_target).
 *
 * Memory: NPURT_MEM_DYNAMIC gives each compiled shape its own workspace
 * (freed on eviction); NPURT_MEM_PREALLOCATED allocates one workspace at
 * load, for the declared largest shape, and every compiled shape runs in
 * it - their executions are then ordered by an event (one at a time on the
 * device), and a shape needing more is refused.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuc.h"
#include "rt_internal.h"

#define SHAPE_CACHE_DEFAULT	100

struct rt_online {
	npurt_context *ctx;
	void *onnx;
	size_t onnx_size;
	char *base_dir;
	char *cache_dir;
	int opt_level;
	uint32_t max_streams;
	int use_compile_cache;
	npurt_mem_strategy strategy;
	pthread_mutex_t lock;
	struct rt_cache cache;
	struct rt_centry *active;	/* NULL: a gear of the base model */
	uint32_t ws_bo;			/* preallocated workspace */
	uint64_t ws_size;
	npurt_event *order;		/* preallocated: the last execution */
	bool order_valid;
};

NPURT_API void npurt_onnx_options_init(npurt_onnx_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->opt_level = 2;
	o->mem_strategy = NPURT_MEM_DYNAMIC;
}

npurt_model *rt_model_target(npurt_model *m)
{
	if (m && m->online && m->online->active)
		return m->online->active->model;
	return m;
}

const char *rt_online_active_name(const npurt_model *m)
{
	return m->online && m->online->active ? m->online->active->name :
	       NULL;
}

void rt_online_free(struct rt_online *o)
{
	if (!o)
		return;
	rt_cache_clear(&o->cache);
	if (o->order)
		npurt_event_destroy(o->order);
	if (o->ws_bo)
		rt_bo_destroy(o->ctx, o->ws_bo, NULL, 0);
	pthread_mutex_destroy(&o->lock);
	free(o->onnx);
	free(o->base_dir);
	free(o->cache_dir);
	free(o);
}

static void compile_options(const struct rt_online *ol,
			    const struct rt_npuc *npuc,
			    struct npuc_compile_options *o)
{
	npuc->options_init(o);
	o->opt_level = ol->opt_level;
	o->max_streams = ol->max_streams;
	o->use_cache = ol->use_compile_cache;
	o->cache_dir = ol->cache_dir;
	if (ol->ctx->dev->info.is_kernel)
		o->target_device = ol->ctx->dev->spec;
}

/*
 * A shape compiled on demand is one of many loaded at once, and each holds
 * device semaphores and queues for its streams, of which a process has a
 * share (64 semaphores by default): with one stream it holds one, so about
 * sixty shapes stay loaded, where four streams (the -O2 default) held four
 * to six and the cache thrashed at about ten (a decoder's growing KV cache
 * is a new shape every token). npurt_onnx_options.max_streams, when set,
 * applies to them too.
 */
static void on_demand_streams(const struct rt_online *ol,
			      struct npuc_compile_options *o)
{
	if (!ol->max_streams)
		o->max_streams = 1;
}

static npurt_status compile_error(int ret, const char *name, const char *err,
				  const char *func)
{
	if (ret == -ENOMEM)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "compiling \"%s\": %s", name, err);
	return rt_fail(ret == -ENOENT ? NPURT_ERR_NOT_FOUND :
		       NPURT_ERR_BAD_MODEL, func,
		       "check the ONNX file and the shapes (npuc gives the "
		       "same message)", "compiling \"%s\": %s", name, err);
}

/* Workspace of the largest declared shape (preallocated strategy). */
static npurt_status preallocate(npurt_model *m, struct rt_online *ol,
				const struct rt_npuc *npuc,
				const char *max_shapes, const char *func)
{
	struct npuc_compile_options o;
	char err[OM_ERR_MAX > 512 ? OM_ERR_MAX : 512] = "";
	struct om_model *om;
	npuc_result *r = NULL;
	const void *bytes;
	size_t size;
	int ret;

	if (!max_shapes || !*max_shapes)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "set max_shapes (\"input:1,512\") with "
			       "NPURT_MEM_PREALLOCATED",
			       "the preallocated strategy needs the largest "
			       "shape");
	compile_options(ol, npuc, &o);
	o.input_shapes = max_shapes;
	on_demand_streams(ol, &o);	/* the workspace they run in */
	ret = npuc->compile_memory(ol->onnx, ol->onnx_size, m->name,
				   ol->base_dir, &o, &r, err, sizeof(err));
	if (ret)
		return compile_error(ret, m->name, err, func);
	bytes = npuc->result_model(r, &size);
	ret = om_open_memory(bytes, size, &om, err);
	if (!ret) {
		for (uint32_t v = 0; v < om_get_model(om)->num_variants; v++)
			if (om_get_plan(om, v)->workspace_size > ol->ws_size)
				ol->ws_size = om_get_plan(om, v)->workspace_size;
		om_close(om);
	}
	npuc->result_free(r);
	if (ret)
		return rt_fail(NPURT_ERR_INTERNAL, func, "report a bug",
			       "the compiler's model does not open: %s", err);
	ret = rt_bo_create(ol->ctx, ol->ws_size ? ol->ws_size : 1, &ol->ws_bo,
			   NULL);
	if (ret)
		return rt_fail_errno(func, ret,
				     "allocating the preallocated workspace");
	pthread_mutex_lock(&ol->ctx->lock);
	m->bytes += ol->ws_size;
	ol->ctx->model_bytes += ol->ws_size;
	pthread_mutex_unlock(&ol->ctx->lock);
	return npurt_event_create(ol->ctx, 0, &ol->order);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static npurt_status load_onnx(npurt_context *ctx, void *data, size_t size,
			      const char *name, char *base_dir,
			      const npurt_onnx_options *in, npurt_model **out,
			      const char *func)
{
	const struct rt_npuc *npuc;
	npurt_onnx_options opt;
	struct npuc_compile_options o;
	struct rt_online *ol;
	npuc_result *r = NULL;
	const void *bytes;
	size_t om_size;
	char err[512] = "";
	const char *env = getenv("NPURT_SHAPE_CACHE_SIZE");
	struct rt_load_opts base_lo = { .digest_weights = true };
	npurt_status st;
	int ret;

	npurt_onnx_options_init(&opt);
	if (in)
		memcpy(&opt, in, in->size && in->size < sizeof(opt) ?
		       in->size : sizeof(opt));
	if ((unsigned int)opt.mem_strategy > NPURT_MEM_PREALLOCATED) {
		free(data);
		free(base_dir);
		return rt_fail(NPURT_ERR_INVALID, func,
			       "use NPURT_MEM_DYNAMIC or NPURT_MEM_PREALLOCATED",
			       "memory strategy %d unknown", opt.mem_strategy);
	}
	npuc = rt_npuc_get(func);
	ol = npuc ? calloc(1, sizeof(*ol)) : NULL;
	if (!ol) {
		free(data);
		free(base_dir);
		return npuc ? rt_fail(NPURT_ERR_NOMEM, func,
				      "free host memory", "out of memory") :
			      npurt_last_error()->code;
	}
	ol->ctx = ctx;
	ol->onnx = data;
	ol->onnx_size = size;
	ol->base_dir = base_dir;
	ol->cache_dir = dup_or_null(opt.cache_dir);
	ol->opt_level = opt.opt_level;
	ol->max_streams = opt.max_streams;
	ol->use_compile_cache = opt.use_compile_cache;
	ol->strategy = opt.mem_strategy;
	ol->cache.capacity = opt.shape_cache_size ? opt.shape_cache_size :
			     env && *env && strtoul(env, NULL, 10) > 0 ?
			     (uint32_t)strtoul(env, NULL, 10) :
			     SHAPE_CACHE_DEFAULT;
	pthread_mutex_init(&ol->lock, NULL);
	if (opt.cache_dir && !ol->cache_dir) {
		rt_online_free(ol);
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	}
	compile_options(ol, npuc, &o);
	o.input_shapes = opt.input_shapes;
	o.dynamic_dims = opt.dynamic_dims;
	o.dynamic_batch = opt.dynamic_batch;
	o.symbol_default = 1;
	ret = npuc->compile_memory(data, size, name, base_dir, &o, &r, err,
				   sizeof(err));
	if (ret) {
		rt_online_free(ol);
		return compile_error(ret, name, err, func);
	}
	bytes = npuc->result_model(r, &om_size);
	st = rt_model_load(ctx, bytes, om_size, &base_lo, out, func);
	npuc->result_free(r);
	if (st) {
		rt_online_free(ol);
		return st;
	}
	snprintf((*out)->name, sizeof((*out)->name), "%s", name);
	if (ol->strategy == NPURT_MEM_PREALLOCATED) {
		st = preallocate(*out, ol, npuc, opt.max_shapes, func);
		if (st) {
			npurt_error saved = *npurt_last_error();

			rt_online_free(ol);
			npurt_model_unload(*out);
			*out = NULL;
			*(npurt_error *)npurt_last_error() = saved;
			return st;
		}
	}
	(*out)->online = ol;
	return NPURT_OK;
}

static const char *base_name(const char *path, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".onnx"))
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, b);
	return buf;
}

NPURT_API npurt_status npurt_model_load_onnx(npurt_context *ctx,
					     const char *path,
					     const npurt_onnx_options *opts,
					     npurt_model **out)
{
	char name[128], *dir;
	const char *slash;
	uint8_t *data = NULL;
	size_t size = 0, cap = 0;
	FILE *f;

	if (!ctx || !path || !out)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, a path and a pointer",
			       "bad arguments");
	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return RT_FAIL(errno == ENOENT ? NPURT_ERR_NOT_FOUND :
			       NPURT_ERR_IO, "check the path",
			       "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		size_t n;

		if (size == cap) {
			uint8_t *p = cap < SIZE_MAX / 2 ?
				realloc(data, cap ? cap * 2 : 1 << 20) : NULL;

			if (!p) {
				free(data);
				fclose(f);
				return RT_FAIL(NPURT_ERR_NOMEM,
					       "free host memory",
					       "reading %s", path);
			}
			data = p;
			cap = cap ? cap * 2 : 1 << 20;
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(data);
		return RT_FAIL(NPURT_ERR_IO, "check the file", "reading %s "
			       "failed", path);
	}
	fclose(f);
	slash = strrchr(path, '/');
	dir = slash ? strndup(path, (size_t)(slash - path) ?
			      (size_t)(slash - path) : 1) : strdup(".");
	if (!dir) {
		free(data);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	}
	return load_onnx(ctx, data, size, base_name(path, name, sizeof(name)),
			 dir, opts, out, __func__);
}

NPURT_API npurt_status npurt_model_load_onnx_memory(
	npurt_context *ctx, const void *data, size_t size,
	const npurt_onnx_options *opts, npurt_model **out)
{
	void *copy;

	if (!ctx || !data || !size || !out)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a context, ONNX bytes and a pointer",
			       "bad arguments");
	*out = NULL;
	copy = malloc(size);
	if (!copy)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	memcpy(copy, data, size);
	return load_onnx(ctx, copy, size, "model", NULL, opts, out, __func__);
}

/* Appends to @buf (of @len bytes) at *@used; false once it is full. */
__attribute__((format(printf, 4, 5)))
static bool append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used) {
		*used = len;
		return false;
	}
	*used += (size_t)n;
	return true;
}

/* "input_ids:1,17;mask:1,17" for the compiler, the key and the name. */
static npurt_status describe_shapes(npurt_model *m,
				    const uint64_t *const *shapes,
				    char *spec, size_t len, uint64_t *key,
				    size_t *key_words, const char *func)
{
	size_t used = 0, k = 0;

	spec[0] = '\0';
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct om_tensor_desc *t =
			om_get_io(m->om, OM_VARIANT_GENERIC, OM_IO_INPUT, i);

		if (!shapes[i] && t->rank)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "pass a shape for every input",
				       "input %u has no shape", i);
		append(spec, len, &used, "%s%s:", i ? ";" : "",
		       om_string(m->om, t->name));
		key[k++] = t->rank;
		for (uint32_t d = 0; d < t->rank; d++) {
			if (shapes[i][d] > INT32_MAX)
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "give dims from 0 to 2^31 - 1",
					       "input \"%s\" dim %u is %llu",
					       om_string(m->om, t->name), d,
					       (unsigned long long)
						       shapes[i][d]);
			append(spec, len, &used, "%s%llu", d ? "," : "",
			       (unsigned long long)shapes[i][d]);
			key[k++] = shapes[i][d];
		}
		if (used >= len)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "use shorter input names",
				       "the shapes of model \"%s\" do not fit "
				       "%zu bytes", m->name, len);
	}
	*key_words = k;
	return NPURT_OK;
}

/* Compile and load one shape (online lock held). */
static npurt_status compile_shape(npurt_model *m, struct rt_online *ol,
				  const char *spec, npurt_model **out,
				  const char *func)
{
	const struct rt_npuc *npuc = rt_npuc_get(func);
	/* a shape whose weights are the base's bytes shares the base's */
	struct rt_load_opts lo = { .internal = true, .share_weights = m };
	struct npuc_compile_options o;
	npuc_result *r = NULL;
	const void *bytes;
	size_t size;
	char err[512] = "";
	uint64_t t0;
	npurt_status st;
	int ret;

	if (!npuc)
		return npurt_last_error()->code;
	compile_options(ol, npuc, &o);
	o.input_shapes = spec;
	on_demand_streams(ol, &o);
	t0 = rt_now_ns();
	ret = npuc->compile_memory(ol->onnx, ol->onnx_size, m->name,
				   ol->base_dir, &o, &r, err, sizeof(err));
	ol->cache.last_compile_ns = rt_now_ns() - t0;
	ol->cache.compile_ns += ol->cache.last_compile_ns;
	ol->cache.misses++;
	if (ret)
		return rt_fail(ret == -ENOMEM ? NPURT_ERR_NOMEM :
			       NPURT_ERR_SHAPE, func,
			       "check the shapes against the model's inputs",
			       "model \"%s\" at %s: %s", m->name, spec, err);
	bytes = npuc->result_model(r, &size);
	if (ol->ws_bo) {
		lo.workspace_bo = ol->ws_bo;
		lo.workspace_cap = ol->ws_size;
	}
	t0 = rt_now_ns();
	for (;;) {
		st = rt_model_load(ol->ctx, bytes, size, &lo, out, func);
		if ((st != NPURT_ERR_NO_RESOURCE &&
		     st != NPURT_ERR_DEVICE_NOMEM) ||
		    !rt_cache_evict_lru(&ol->cache))
			break;
	}
	ol->cache.load_ns += rt_now_ns() - t0;
	npuc->result_free(r);
	return st;
}

npurt_status rt_online_select(npurt_model *m, const uint64_t *const *shapes,
			      const char *func)
{
	struct rt_online *ol = m->online;
	uint64_t key[1 + 64 * (NPURT_MAX_RANK + 1)];
	char spec[1024];
	size_t words = 0;
	struct rt_centry *e;
	npurt_model *c = NULL;
	npurt_status st;
	int v;

	if (m->nin > 64)
		return rt_fail(NPURT_ERR_UNSUPPORTED, func,
			       "use the gears of the model",
			       "shapes on demand take at most 64 inputs");
	v = om_find_variant(m->om, shapes);
	pthread_mutex_lock(&ol->lock);
	rt_pad_clear(m);
	if (v >= 0) {
		ol->active = NULL;
		pthread_mutex_lock(&m->lock);
		m->current_variant = (uint32_t)v;
		pthread_mutex_unlock(&m->lock);
		pthread_mutex_unlock(&ol->lock);
		return NPURT_OK;
	}
	st = describe_shapes(m, shapes, spec, sizeof(spec), key, &words,
			     func);
	if (st)
		goto out;
	e = rt_cache_find(&ol->cache, key, words * sizeof(key[0]));
	if (e) {
		ol->active = e;
		goto out;
	}
	/* A gear that covers the shape, when padding is on: no compile. */
	st = rt_pad_select(m, shapes, func);
	if (st != NPURT_ERR_NOT_FOUND) {
		if (!st)
			ol->active = NULL;
		goto out;
	}
	st = NPURT_OK;
	/* Room is made by evicting: the selection may go with it. */
	ol->active = NULL;
	st = compile_shape(m, ol, spec, &c, func);
	if (!st)
		st = rt_cache_insert(&ol->cache, key, words * sizeof(key[0]),
				     c, spec, &e, func);
	if (st) {
		rt_model_unload(c);
		goto out;
	}
	ol->active = e;
	rt_log("model \"%s\": compiled %s online (%.3f ms)", m->name, spec,
	       ol->cache.last_compile_ns / 1e6);
out:
	pthread_mutex_unlock(&ol->lock);
	return st;
}

npurt_status rt_online_select_variant(npurt_model *m, uint32_t index)
{
	struct rt_online *ol = m->online;

	if (index >= m->num_variants) {
		if (index == m->num_variants && ol->active)
			return NPURT_OK;
		return RT_FAIL(NPURT_ERR_NOT_FOUND,
			       "use an index below num_variants",
			       "variant %u; model \"%s\" has %u", index,
			       m->name, m->num_variants);
	}
	pthread_mutex_lock(&ol->lock);
	ol->active = NULL;
	pthread_mutex_lock(&m->lock);
	m->current_variant = index;
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_unlock(&ol->lock);
	return NPURT_OK;
}

npurt_status rt_online_execute(npurt_model *m, const npurt_io *in,
			       uint32_t nin, const npurt_io *out,
			       uint32_t nout, npurt_stream *s,
			       const char *func)
{
	struct rt_online *ol = m->online;
	npurt_model *c;
	npurt_status st;

	pthread_mutex_lock(&ol->lock);
	c = rt_model_target(m);
	if (c == m) {
		pthread_mutex_unlock(&ol->lock);
		return rt_model_execute_plain(m, in, nin, out, nout, s, func);
	}
	if (ol->order && ol->order_valid) {
		/* One workspace for every shape: one execution at a time. */
		st = npurt_stream_wait_event(s, ol->order);
		if (st)
			goto out;
	}
	st = rt_model_execute_plain(c, in, nin, out, nout, s, func);
	if (!st && ol->order) {
		st = npurt_event_record(ol->order, s);
		ol->order_valid = !st;
	}
out:
	pthread_mutex_unlock(&ol->lock);
	return st;
}

NPURT_API npurt_status npurt_model_get_shape_cache_stats(
	npurt_model *m, npurt_cache_stats *stats)
{
	if (!m || !stats)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model and a struct",
			       "bad arguments");
	if (!m->online)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "load the model with npurt_model_load_onnx",
			       "model \"%s\" was not loaded from ONNX (it has "
			       "no shape cache)", m->name);
	pthread_mutex_lock(&m->online->lock);
	rt_cache_stats(&m->online->cache, stats);
	pthread_mutex_unlock(&m->online->lock);
	return NPURT_OK;
}
