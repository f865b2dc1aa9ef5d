// SPDX-License-Identifier: MIT
/*
 * driver.c - the compile pipeline as one call (see npuc.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cache.h"
#include "driver/npuc.h"
#include "driver/passes_hook.h"
#include "onnx/onnx_import.h"
#include "passes/aipp.h"
#include "om/om.h"
#include "npuc_build_id.h"
#include "shape/shape.h"
#include "plugin/plugin_ir.h"
#include "plugin/plugin_load.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The target of @o: its description, else the named profile. */
static int resolve_target(const struct npuc_options *o, struct npuc_target *t,
			  char *err, size_t errlen)
{
	if (o->target_desc) {
		*t = *o->target_desc;
		return 0;
	}
	return npuc_target_profile(o->target, t, err, errlen);
}

static void report_plugin_nodes(const struct ir_graph *g,
				struct npuc_report *rep);

/*
 * @shapes: the options that choose the input shapes too (the model's key;
 * the partition cache's salt leaves them out, so that another batch or
 * sequence length finds the same partitions).
 */
static void hash_options(struct cache_hasher *h, const struct npuc_options *o,
			 bool shapes)
{
	cache_hash_str(h, "npuc");
	/*
	 * The sources the compiler was built from: a compiler changed without a
	 * version bump (a fix, a developer's tree) must not be served the .om
	 * files of the old one.
	 */
	cache_hash_str(h, NPUC_BUILD_ID);
	cache_hash_u64(h, OM_VERSION(NPUC_VERSION_MAJOR, NPUC_VERSION_MINOR,
				     NPUC_VERSION_PATCH));
	cache_hash_u64(h, DRM_NPU_MODEL_SIM910);
	cache_hash_u64(h, DRM_NPU_UAPI_VERSION);
	cache_hash_u64(h, sizeof(struct drm_npu_task));
	cache_hash_u64(h, OM_FORMAT_MAJOR << 16 | OM_FORMAT_MINOR);
	cache_hash_u64(h, (uint64_t)o->opt_level);
	if (shapes) {
		cache_hash_str(h, o->input_shapes);
		cache_hash_str(h, o->dynamic_batch);
		cache_hash_str(h, o->dynamic_dims);
		cache_hash_u64(h, (uint64_t)o->symbol_default);
	}
	cache_hash_str(h, o->input_format);
	cache_hash_str(h, o->disable_passes);
	cache_hash_u64(h, o->max_streams);
	cache_hash_str(h, o->aipp_conf);
	cache_hash_u64(h, o->no_host_engine);
	/* Loaded plugins: their ops decide what custom nodes become. */
	for (int i = 0; i < npu_plugin_count(); i++) {
		const struct npu_plugin_lib *p = npu_plugin_at(i);

		cache_hash_str(h, p->desc->name);
		cache_hash_str(h, p->digest);
	}
	cache_hash_str(h, o->precision);
	cache_hash_str(h, o->keep_dtype);
	{
		/* The target decides streams and semaphores: part of the key. */
		struct npuc_target t;
		char e[128];

		if (!resolve_target(o, &t, e, sizeof(e))) {
			cache_hash_str(h, t.name);
			cache_hash_u64(h, t.model);
			cache_hash_u64(h, t.features);
			cache_hash_u64(h, t.num_cores);
			cache_hash_u64(h, t.num_queues);
			cache_hash_u64(h, t.num_semaphores);
			cache_hash_u64(h, t.max_tasks);
			cache_hash_u64(h, t.vram_size);
			cache_hash_u64(h, t.file_queues);
			cache_hash_u64(h, t.file_semaphores);
			cache_hash_u64(h, t.file_vram_quota);
		} else {
			cache_hash_str(h, o->target);
		}
	}
	cache_hash_u64(h, o->plan_budget_ms);
}

static struct cache_key compile_key(struct ir_graph *g,
				    const struct npuc_options *o)
{
	struct cache_hasher h;

	cache_hash_init(&h);
	hash_options(&h, o, true);
	cache_hash_graph(&h, g, true);
	return cache_hash_final(&h);
}

/*
 * The quick way in: the same file (device, inode, size, modification and
 * change times to the nanosecond) with the same options names the same
 * canonical key, remembered in <file key>.ref, so a hit needs no import at
 * all. Any change to the file changes its times and takes the full path;
 * a renamed or re-exported model with the same graph still hits through
 * the canonical key after its import.
 */
static bool file_key(const char *path, const struct npuc_options *o,
		     struct cache_key *k)
{
	struct cache_hasher h;
	struct stat st;
	char real[4096];

	if (stat(path, &st) || !realpath(path, real))
		return false;
	cache_hash_init(&h);
	cache_hash_str(&h, "file");
	hash_options(&h, o, true);
	cache_hash_str(&h, real);
	cache_hash_u64(&h, (uint64_t)st.st_dev);
	cache_hash_u64(&h, (uint64_t)st.st_ino);
	cache_hash_u64(&h, (uint64_t)st.st_size);
	cache_hash_u64(&h, (uint64_t)st.st_mtim.tv_sec);
	cache_hash_u64(&h, (uint64_t)st.st_mtim.tv_nsec);
	cache_hash_u64(&h, (uint64_t)st.st_ctim.tv_sec);
	cache_hash_u64(&h, (uint64_t)st.st_ctim.tv_nsec);
	*k = cache_hash_final(&h);
	return true;
}

static bool read_ref(const char *dir, const struct cache_key *fk,
		     struct cache_key *key)
{
	char path[4200], hex[33], text[40];
	unsigned long long a, b;
	FILE *f;
	bool ok;

	cache_key_hex(fk, hex);
	snprintf(path, sizeof(path), "%s/%s.ref", dir, hex);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(text, sizeof(text), f) && strlen(text) >= 32 &&
	     sscanf(text, "%16llx%16llx", &a, &b) == 2;
	fclose(f);
	key->h[0] = a;
	key->h[1] = b;
	return ok;
}

static void write_ref(const char *dir, const struct cache_key *fk,
		      const char *key_hex)
{
	char path[4200], tmp[4300], hex[33];
	FILE *f;

	cache_key_hex(fk, hex);
	snprintf(path, sizeof(path), "%s/%s.ref", dir, hex);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", key_hex);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

/* ---- shape gears ------------------------------------------------------- */

struct gear {
	int num;			/* symbols bound */
	int sym[IR_MAX_RANK * 4];
	int64_t value[IR_MAX_RANK * 4];
	char name[64];
};

static int parse_list(const char *s, int64_t *v, int max, char *err,
		      size_t errlen, const char *what)
{
	int n = 0;

	while (*s) {
		char *end;
		long long x = strtoll(s, &end, 10);

		if (end == s || x <= 0 || n == max) {
			snprintf(err, errlen,
				 "%s: expected up to %d positive integers separated by ',' (got \"%s\")",
				 what, max, s);
			return -EINVAL;
		}
		v[n++] = x;
		s = end;
		while (*s == ' ')
			s++;
		if (*s == ',')
			s++;
		else if (*s) {
			snprintf(err, errlen, "%s: unexpected '%c'", what, *s);
			return -EINVAL;
		}
	}
	return n;
}

/* Symbols in order of first appearance in the inputs' shapes. */
static int input_symbols(const struct ir_graph *g, int *sym, int max)
{
	int n = 0;

	for (int i = 0; i < g->num_inputs; i++)
		for (int d = 0; d < g->inputs[i]->shape.rank; d++) {
			int64_t dim = g->inputs[i]->shape.dim[d];
			bool seen = false;

			if (!IR_DIM_IS_SYM(dim))
				continue;
			for (int k = 0; k < n; k++)
				seen = seen || sym[k] == IR_DIM_SYM_ID(dim);
			if (!seen && n < max)
				sym[n++] = IR_DIM_SYM_ID(dim);
		}
	return n;
}

static int make_gears(const struct ir_graph *g, const struct npuc_options *o,
		      struct gear *gears, int *num, char *err, size_t errlen)
{
	int sym[IR_MAX_RANK * 4];
	int ns = input_symbols(g, sym, IR_MAX_RANK * 4);
	int64_t v[NPUC_MAX_VARIANTS * IR_MAX_RANK];
	int n;

	*num = 0;
	if (o->dynamic_batch) {
		int64_t d0 = g->num_inputs ? g->inputs[0]->shape.dim[0] : 0;

		if (!g->num_inputs || !g->inputs[0]->shape.rank ||
		    !IR_DIM_IS_SYM(d0)) {
			snprintf(err, errlen,
				 "--dynamic-batch needs a symbolic batch dim; give e.g. --input-shape \"%s:batch,...\"",
				 g->num_inputs ? g->inputs[0]->name : "input");
			return -EINVAL;
		}
		n = parse_list(o->dynamic_batch, v, NPUC_MAX_VARIANTS, err,
			       errlen, "--dynamic-batch");
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			gears[i].num = 1;
			gears[i].sym[0] = IR_DIM_SYM_ID(d0);
			gears[i].value[0] = v[i];
			snprintf(gears[i].name, sizeof(gears[i].name),
				 "%s=%lld", g->syms[gears[i].sym[0]],
				 (long long)v[i]);
		}
		*num = n;
		return 0;
	}
	if (o->dynamic_dims) {
		const char *s = o->dynamic_dims;
		int gi = 0;

		while (*s && gi < NPUC_MAX_VARIANTS) {
			char part[256];
			size_t len = strcspn(s, ";");

			if (len >= sizeof(part))
				len = sizeof(part) - 1;
			memcpy(part, s, len);
			part[len] = '\0';
			n = parse_list(part, v, IR_MAX_RANK * 4, err, errlen,
				       "--dynamic-dims");
			if (n < 0)
				return n;
			if (n != ns) {
				snprintf(err, errlen,
					 "--dynamic-dims gear %d gives %d values but the inputs have %d symbolic dims (in order of appearance)",
					 gi + 1, n, ns);
				return -EINVAL;
			}
			gears[gi].num = n;
			gears[gi].name[0] = '\0';
			for (int k = 0; k < n; k++) {
				size_t at = strlen(gears[gi].name);

				gears[gi].sym[k] = sym[k];
				gears[gi].value[k] = v[k];
				snprintf(gears[gi].name + at,
					 sizeof(gears[gi].name) - at, "%s%s=%lld",
					 k ? "," : "", g->syms[sym[k]],
					 (long long)v[k]);
			}
			gi++;
			s += strlen(part);
			if (*s == ';')
				s++;
		}
		*num = gi;
		return 0;
	}
	if (ns && o->symbol_default > 0) {
		/* One gear, every symbol at the default (online loads). */
		gears[0].num = ns;
		gears[0].name[0] = '\0';
		for (int k = 0; k < ns; k++) {
			size_t at = strlen(gears[0].name);

			gears[0].sym[k] = sym[k];
			gears[0].value[k] = o->symbol_default;
			snprintf(gears[0].name + at,
				 sizeof(gears[0].name) - at, "%s%s=%lld",
				 k ? "," : "", g->syms[sym[k]],
				 (long long)o->symbol_default);
		}
		*num = 1;
		return 0;
	}
	if (ns) {
		snprintf(err, errlen,
			 "input '%s' has symbolic dims; fix them with --input-shape or give gears with --dynamic-batch/--dynamic-dims",
			 g->inputs[0]->name);
		return -EINVAL;
	}
	*num = 1;
	gears[0].num = 0;
	gears[0].name[0] = '\0';
	return 0;
}

/* ---- the .om model ----------------------------------------------------- */

/* Whether an input of @g has symbolic dim @d (a symbol gears bind). */
static bool input_symbol(const struct ir_graph *g, int64_t d)
{
	for (int i = 0; i < g->num_inputs; i++)
		for (int k = 0; k < g->inputs[i]->shape.rank; k++)
			if (g->inputs[i]->shape.dim[k] == d)
				return true;
	return false;
}

/*
 * The symbol dim @d of I/O @t (output @i if @out) has in the imported
 * graph @g: what symbolic shape inference found, else what the model file
 * declares for the output; 0 if neither names it.
 */
static int64_t io_symbol(const struct ir_graph *g, const struct ir_tensor *t,
			 bool out, int i, int rank, int d)
{
	const struct ir_shape *decl = out && g->out_decl ? &g->out_decl[i] :
				      NULL;

	if (t->shape_known && d < t->shape.rank &&
	    IR_DIM_IS_SYM(t->shape.dim[d]))
		return t->shape.dim[d];
	if (decl && decl->rank == rank && IR_DIM_IS_SYM(decl->dim[d]))
		return decl->dim[d];
	return 0;
}

/*
 * Whether input symbol @sym has, in every gear, the value of dim @d of
 * output @i: a file may declare an output dim "total" (past + seq of a
 * KV cache) and bind an input's "total" (an attention mask) apart, which
 * the default gear (every symbol 1) does not make agree. A name that
 * disagrees names nothing.
 */
static bool symbol_agrees(const struct ir_graph *g,
			  struct ir_graph *const *gear, int num_gears, int i,
			  int d, int64_t sym)
{
	for (int q = 0; q < num_gears; q++)
		for (int j = 0; j < g->num_inputs; j++)
			for (int k = 0; k < g->inputs[j]->shape.rank; k++)
				if (g->inputs[j]->shape.dim[k] == sym &&
				    gear[q]->inputs[j]->shape.dim[k] !=
				    gear[q]->outputs[i]->shape.dim[d])
					return false;
	return true;
}

/*
 * Declare the model's I/O. Inputs come from the imported graph (their
 * symbolic dims keep their names); outputs from the first gear's graph.
 * A dim is dynamic where it differs between gears or where it is a
 * symbol of the inputs (that the gears bind: a model of one gear still
 * says which dims its shapes may vary in, for padding to it); it is
 * named after that symbol when shape inference or the file's output
 * declaration can name it.
 */
static int declare_io(struct om_writer *w, const struct ir_graph *g,
		      struct ir_graph *const *gear, int num_gears,
		      char *err, size_t errlen)
{
	for (int k = 0; k < 2; k++) {
		int n = k ? g->num_outputs : g->num_inputs;

		for (int i = 0; i < n; i++) {
			const struct ir_tensor *t = k ? g->outputs[i] :
						    g->inputs[i];
			const struct ir_tensor *t0 = k ? gear[0]->outputs[i] :
						     gear[0]->inputs[i];
			struct om_tensor_info info = { 0 };
			char names[OM_MAX_RANK][32];
			int ret;

			if (t0->shape.rank > OM_MAX_RANK) {
				snprintf(err, errlen,
					 "I/O '%s' has rank %d, which is not supported (the device takes at most %d)",
					 t->name, t0->shape.rank, OM_MAX_RANK);
				return -ENOTSUP;
			}
			info.name = t->name;
			info.dtype = t0->dtype;
			info.layout = t0->layout;
			info.rank = (uint32_t)t0->shape.rank;
			for (int d = 0; d < t0->shape.rank; d++) {
				int64_t dim = t0->shape.dim[d];
				int64_t sym = io_symbol(g, t, k, i,
							    t0->shape.rank, d);
				bool same;

				if (k && sym && !symbol_agrees(g, gear,
							       num_gears, i, d,
							       sym))
					sym = 0;
				same = !sym || !input_symbol(g, sym);

				for (int q = 1; q < num_gears; q++) {
					const struct ir_tensor *tq = k ?
						gear[q]->outputs[i] :
						gear[q]->inputs[i];

					same = same && tq->shape.dim[d] == dim;
				}
				if (same) {
					info.dims[d] = (uint64_t)dim;
					continue;
				}
				info.dims[d] = OM_DIM_DYNAMIC;
				if (sym)
					info.dim_names[d] = ir_sym_name(g, sym);
				else {
					snprintf(names[d], sizeof(names[d]),
						 "%s%d_d%d", k ? "out" : "in", i, d);
					info.dim_names[d] = names[d];
				}
			}
			ret = om_writer_add_io(w, k ? OM_IO_OUTPUT : OM_IO_INPUT,
					       &info, NULL);
			if (ret) {
				snprintf(err, errlen, "I/O '%s': %s", t->name,
					 om_writer_error(w));
				return ret;
			}
		}
	}
	return 0;
}

static uint32_t streams_wanted(const struct npuc_options *o)
{
	return o->max_streams ? o->max_streams : o->opt_level >= 2 ? 4 : 1;
}

static void level_defaults(const struct npuc_options *o,
			   const struct npuc_target *t,
			   struct lower_options *lo)
{
	struct npuc_budget b;

	memset(lo, 0, sizeof(*lo));
	npuc_target_budget(t, streams_wanted(o), &b);
	lo->max_streams = b.max_streams;
	lo->max_semaphores = b.max_semaphores;
	lo->sems_per_stream = b.sems_per_stream;
	lo->sems_fixed = b.sems_fixed;
	lo->inplace = o->opt_level >= 1;
	/* 2^18 multiply-adds a core: ~2.5 us at 100 GFLOP/s, a wait's worth */
	lo->fill_macs = (uint64_t)t->num_cores << 18;
	lo->plan_budget_ms = o->plan_budget_ms ? o->plan_budget_ms :
			     o->opt_level >= 3 ? 5000 :
			     o->opt_level >= 1 ? 1000 : 100;
	lo->planners = o->opt_level == 0 ? MP_PLANNER_BIT(MP_GREEDY_SIZE) : 0;
}

/* --precision and --keep-dtype onto the graph (pass_precision()). */
static int set_precision(struct ir_graph *g, const struct npuc_options *o,
			 char *err, size_t errlen)
{
	const char *p = o->precision;

	if (!p || !strcmp(p, "must_keep_origin_dtype"))
		g->precision = IR_PREC_KEEP;
	else if (!strcmp(p, "allow_mix_precision"))
		g->precision = IR_PREC_MIX;
	else if (!strcmp(p, "force_fp16"))
		g->precision = IR_PREC_FP16;
	else {
		snprintf(err, errlen, "--precision %s: use "
			 "must_keep_origin_dtype, allow_mix_precision or "
			 "force_fp16", p);
		return -EINVAL;
	}
	free(g->keep_dtype);
	g->keep_dtype = NULL;
	if (o->keep_dtype) {
		g->keep_dtype = strdup(o->keep_dtype);
		if (!g->keep_dtype) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* Bind a gear's dims, infer shapes, run the passes: a graph to lower. */
static int prepare_gear(struct ir_graph *src, const struct gear *gear,
			bool in_place, const struct npuc_options *o,
			struct npuc_report *rep, struct ir_graph **out,
			char *err, size_t errlen)
{
	/* A single static gear works on the imported graph itself: no copy
	 * of the weights. */
	struct ir_graph *g = in_place ? src : ir_graph_clone(src);
	int ret = 0;

	*out = NULL;
	if (!g) {
		snprintf(err, errlen, "out of memory cloning the graph");
		return -ENOMEM;
	}
	for (int k = 0; k < gear->num && !ret; k++)
		ret = ir_graph_bind_sym(g, src->syms[gear->sym[k]],
					gear->value[k]);
	if (!ret)
		ret = set_precision(g, o, err, errlen);
	if (ret) {
		if (!in_place)
			ir_graph_free(g);
		return ret;
	}
	if (!ret)
		ret = shape_infer(g);
	if (ret) {
		snprintf(err, errlen, "shape inference%s%s: %s",
			 gear->name[0] ? " for gear " : "", gear->name,
			 ir_graph_error(g));
		if (!in_place)
			ir_graph_free(g);
		return ret;
	}
	ret = npuc_run_passes(g, o, rep, err, errlen);
	if (ret) {
		if (!in_place)
			ir_graph_free(g);
		return ret;
	}
	*out = g;
	return 0;
}

static int lower_gear(struct ir_graph *g, const struct gear *gear,
		      const struct npuc_options *o,
		      const struct npuc_target *t, struct om_writer *w,
		      struct npuc_report *rep, char *err, size_t errlen)
{
	struct npuc_variant_report *vr = &rep->variant[rep->num_variants];
	struct lower_options lo;
	int v, ret = 0;

	v = om_writer_add_variant(w, gear->name[0] ? gear->name : NULL);
	if (v < 0) {
		snprintf(err, errlen, "variant: %s", om_writer_error(w));
		return v;
	}
	snprintf(vr->name, sizeof(vr->name), "%s",
		 gear->name[0] ? gear->name : "default");
	for (int k = 0; k < 2 && gear->num && !ret; k++) {
		int n = k ? g->num_outputs : g->num_inputs;

		for (int i = 0; i < n && !ret; i++) {
			const struct ir_tensor *t = k ? g->outputs[i] :
						    g->inputs[i];
			uint64_t dims[OM_MAX_RANK] = { 0 };

			for (int d = 0; d < t->shape.rank && d < OM_MAX_RANK; d++)
				dims[d] = (uint64_t)t->shape.dim[d];
			ret = om_writer_set_variant_shape(w, (uint32_t)v,
					k ? OM_IO_OUTPUT : OM_IO_INPUT,
					(uint32_t)i, dims);
			if (ret)
				snprintf(err, errlen, "variant %s shape of '%s': %s",
					 gear->name, t->name, om_writer_error(w));
		}
	}
	level_defaults(o, t, &lo);
	vr->lower_ms = now_ms();
	if (!ret)
		ret = lower_graph(g, &lo, w, (uint32_t)v, &vr->lower, err,
				  errlen);
	vr->lower_ms = now_ms() - vr->lower_ms;
	if (!ret && !rep->num_variants)
		rep->num_host_tasks = vr->lower.num_host_tasks;
	if (!ret)
		rep->num_variants++;
	return ret;
}

/*
 * What the gears' constants can take in the .om (each aligned; shared
 * ones are stored once, so this bounds it from above): the writer's
 * weights buffer is made once at this size (om_writer_reserve_weights()).
 */
static uint64_t const_bytes(struct ir_graph *const *gg, int num)
{
	uint64_t n = 0;

	for (int i = 0; i < num; i++)
		for (int k = 0; k < gg[i]->num_tensors; k++)
			if (gg[i]->tensors[k]->data)
				n += (gg[i]->tensors[k]->nbytes + 63) & ~63ull;
	return n;
}

static int compile_graph(struct ir_graph *g, const struct npuc_options *o,
			 struct npuc_om *om, struct npuc_report *rep,
			 char *err, size_t errlen)
{
	struct gear gears[NPUC_MAX_VARIANTS];
	struct ir_graph *gg[NPUC_MAX_VARIANTS] = { NULL };
	struct om_writer *w = om_writer_create();
	struct npuc_target tgt;
	struct npuc_budget b;
	uint32_t sems = 0;
	uint64_t vram = 0;
	int num = 0, ret;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = resolve_target(o, &tgt, err, errlen);
	if (!ret) {
		struct npuc_target_report *tr = &rep->target;

		npuc_target_budget(&tgt, streams_wanted(o), &b);
		snprintf(tr->name, sizeof(tr->name), "%s", tgt.name);
		tr->num_cores = tgt.num_cores;
		tr->num_queues = tgt.num_queues;
		tr->num_semaphores = tgt.num_semaphores;
		tr->vram_size = tgt.vram_size;
		tr->streams_asked = streams_wanted(o);
		tr->max_streams = b.max_streams;
		snprintf(tr->stream_limit, sizeof(tr->stream_limit), "%s",
			 b.limit);
		tr->semaphore_budget = b.max_semaphores;
		/* what one open file of the target may hold */
		vram = tgt.vram_size;
		if (tgt.file_vram_quota && tgt.file_vram_quota < vram)
			vram = tgt.file_vram_quota;
	}
	if (!ret)
		ret = make_gears(g, o, gears, &num, err, errlen);
	for (int i = 0; i < num && !ret; i++) {
		double t0 = now_ms();

		ret = prepare_gear(g, &gears[i], num == 1 && !gears[i].num, o,
				   rep, &gg[i], err, errlen);
		rep->variant[i].passes_ms = now_ms() - t0;
	}
	if (!ret)
		ret = om_writer_set_name(w, rep->model);
	if (!ret)
		ret = om_writer_set_target(w, tgt.model ? tgt.model :
					   DRM_NPU_MODEL_SIM910,
					   DRM_NPU_FEATURE_FP32);
	if (!ret)
		ret = om_writer_set_compiler_version(w,
			OM_VERSION(NPUC_VERSION_MAJOR, NPUC_VERSION_MINOR,
				   NPUC_VERSION_PATCH));
	if (!ret)
		ret = declare_io(w, g, gg, num, err, errlen);
	if (!ret)
		ret = om_writer_reserve_weights(w, const_bytes(gg, num));
	for (int i = 0; i < num && !ret; i++) {
		const struct lower_report *l = &rep->variant[i].lower;

		ret = lower_gear(gg[i], &gears[i], o, &tgt, w, rep, err,
				 errlen);
		if (!ret && l->num_semaphores > sems)
			sems = l->num_semaphores;
		if (!ret && l->semaphore_budget_used -
			    l->num_semaphores > rep->target.runtime_semaphores)
			rep->target.runtime_semaphores =
				l->semaphore_budget_used - l->num_semaphores;
		if (!ret && vram &&
		    (uint64_t)l->plan.arena + l->weights_bytes > vram) {
			snprintf(err, errlen,
				 "VRAM: variant %s needs %llu bytes (workspace %llu + weights %llu); target %s lets one file hold %llu (of %llu); compile for a larger target (--target) or a smaller shape",
				 rep->variant[i].name,
				 (unsigned long long)l->plan.arena +
				 l->weights_bytes,
				 (unsigned long long)l->plan.arena,
				 (unsigned long long)l->weights_bytes,
				 tgt.name, (unsigned long long)vram,
				 (unsigned long long)tgt.vram_size);
			ret = -ENOSPC;
		}
	}
	if (!ret && sems)
		ret = om_writer_set_semaphores(w, sems, NULL);
	if (!ret) {
		ret = om_writer_serialize(w, &om->data, &om->size);
		om->map_len = 0;
		if (ret)
			snprintf(err, errlen, "writing the model: %s",
				 om_writer_error(w));
	}
	if (ret && !err[0])
		snprintf(err, errlen, "%s", om_writer_error(w));
	for (int i = 0; i < num; i++)
		if (gg[i] != g)
			ir_graph_free(gg[i]);
	om_writer_destroy(w);
	return ret;
}

static int cache_dir_of(const struct npuc_options *o, char *dir, size_t len)
{
	if (o->cache_dir) {
		if (strlen(o->cache_dir) >= len)
			return -ENAMETOOLONG;
		strcpy(dir, o->cache_dir);
		return 0;
	}
	return cache_dir(dir, len);
}

/* "dir/resnet50.onnx" -> "resnet50"; "resnet50/model.onnx" -> "resnet50". */
static const char *base_name(const char *path, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	char *dot;

	snprintf(buf, len, "%s", b ? b + 1 : path);
	dot = strrchr(buf, '.');
	if (dot && dot != buf)
		*dot = '\0';
	if (!strcmp(buf, "model") && b && b > path) {
		const char *d = b;

		while (d > path && d[-1] != '/')
			d--;
		snprintf(buf, len, "%.*s", (int)(b - d), d);
	}
	return buf;
}

void npuc_om_release(struct npuc_om *om)
{
	cache_om_release(om->data, om->map_len);
	om->data = NULL;
	om->size = 0;
	om->map_len = 0;
}

/* Look the key up; on a hit fill the outputs and return true. */
static bool try_hit(struct cache_handle *ch, struct npuc_om *om,
		    struct npuc_report *rep, bool *corrupt)
{
	void *blob = NULL;
	size_t blob_size = 0;
	enum cache_status st = cache_lookup(ch, &om->data, &om->size,
					    &om->map_len, &blob,
					    &blob_size);
	char key_hex[33];

	if (st == CACHE_CORRUPT)
		*corrupt = true;
	if (st != CACHE_HIT)
		return false;
	if (blob_size != sizeof(*rep)) {
		npuc_om_release(om);	/* a report of another layout */
		free(blob);
		return false;
	}
	memcpy(key_hex, rep->cache_key, sizeof(key_hex));
	memcpy(rep, blob, sizeof(*rep));
	rep->part_on = false;	/* the partitions of the compile that stored it */
	memcpy(rep->cache_key, ch->key_hex, sizeof(key_hex));
	rep->cache = CACHE_HIT;
	rep->cache_corrupt_seen = false;
	free(blob);
	return true;
}

/*
 * Everything after the import: shape inference, the compile cache by the
 * canonical key, the gears, the report. Takes @g; @fkey (or NULL) is the
 * file key to remember a stored entry under.
 */
/*
 * The partition cache for a miss of the whole model: keyed by the same
 * options, target and build (@o), in the same directory. Without it (out
 * of memory) the compile goes on, deriving everything.
 */
static struct part_cache *open_partitions(const char *dir,
					  struct ir_graph *g,
					  const struct npuc_options *o,
					  struct npuc_report *rep)
{
	struct part_cache *pc;
	struct cache_hasher h;
	struct cache_key salt;

	cache_hash_init(&h);
	cache_hash_str(&h, "partition salt");
	hash_options(&h, o, false);
	salt = cache_hash_final(&h);
	if (part_cache_open(&pc, dir, g, &salt))
		return NULL;
	rep->part_on = true;
	return pc;
}

/*
 * The mapped constants into memory of their own, for the passes; with
 * @keep_weights, the weights of convolutions and products stay mapped
 * (onnx_import_materialize_except_weights()): the partition cache may
 * hold all that is derived from them.
 */
static int materialize(struct ir_graph *g, bool keep_weights, char *err,
		       size_t errlen)
{
	int ret = keep_weights ? onnx_import_materialize_except_weights(g) :
				 onnx_import_materialize(g);

	if (ret)
		snprintf(err, errlen, "out of memory copying the model's "
			 "weights out of its file; free memory and compile "
			 "again");
	return ret;
}

static int compile_imported(struct ir_graph *g, struct npuc_options *o,
			    const struct cache_key *fkey, double t0,
			    struct npuc_om *om,
			    struct npuc_report *rep, bool corrupt,
			    char *err, size_t errlen)
{
	struct cache_handle ch = { .lock_fd = -1 };
	struct part_cache *pc = NULL;
	bool cached = false;
	char dir[4096];
	int ret;

	if (o->aipp_conf) {
		struct aipp_conf ac;

		ret = aipp_conf_parse(o->aipp_conf, "insert-op-conf", &ac, err,
				      errlen);
		if (!ret)
			ret = materialize(g, false, err, errlen);
		if (!ret)
			ret = aipp_insert(g, &ac, err, errlen);
		if (ret)
			goto out;
	}
	report_plugin_nodes(g, rep);
	/*
	 * The key is the graph as imported (with the AIPP it asked for): a
	 * hit needs the weights' digest and nothing else of them, so they
	 * stay in the file's mapping; a miss copies out what the passes may
	 * read as typed arrays (materialize()).
	 */
	if (!o->no_cache && !cache_dir_of(o, dir, sizeof(dir))) {
		struct cache_key key = compile_key(g, o);

		if (!cache_open(&ch, dir, &key)) {
			cached = true;
			if (try_hit(&ch, om, rep, &corrupt)) {
				rep->import_ms = now_ms() - t0;
				rep->compile_ms = 0;
				rep->total_ms = now_ms() - t0;
				if (fkey)
					write_ref(dir, fkey, ch.key_hex);
				goto out;
			}
			memcpy(rep->cache_key, ch.key_hex, sizeof(ch.key_hex));
			rep->cache = CACHE_MISS;
		}
	}
	ret = materialize(g, true, err, errlen);
	if (ret)
		goto out;
	ret = shape_infer(g);
	if (ret && !o->dynamic_batch && !o->dynamic_dims &&
	    o->symbol_default <= 0) {
		snprintf(err, errlen, "shape inference: %s", ir_graph_error(g));
		goto out;
	}
	if (o->no_host_engine) {
		char names[512] = "";
		size_t used = 0;
		int count = 0;

		for (int i = 0; i < g->num_nodes; i++) {
			const struct ir_node *n = g->nodes[i];

			if (!plugin_is_host_node(n))
				continue;
			if (used < sizeof(names))
				used += (size_t)snprintf(names + used,
					sizeof(names) - used, "%s'%s' (%s)",
					count ? ", " : "", n->name,
					ir_attr_str(n, IR_CUSTOM_TYPE, "?"));
			count++;
		}
		if (count) {
			snprintf(err, errlen, "the host engine is off "
				 "(--no-host-engine) and %d node(s) run only on "
				 "the host: %s; allow the host engine or give "
				 "their ops a decomposition", count, names);
			ret = -ENOTSUP;
			goto out;
		}
	}
	/* With gears, shapes are inferred again once each gear binds its
	 * dims; the symbolic graph may not infer everywhere. */
	ret = 0;
	rep->import_ms = now_ms() - t0;
	rep->nodes_before = (uint32_t)g->num_nodes;
	if (cached)
		pc = open_partitions(dir, g, o, rep);
	ret = compile_graph(g, o, om, rep, err, errlen);
	if (ret)
		goto out;
	rep->om_size = om->size;
	{
		struct om_model *m;
		char oerr[OM_ERR_MAX];

		/* in place: the writer checked it, less the checksum it had
		 * just taken; this is for the weights' size */
		if (!om_open_memory_ex(om->data, om->size, OM_OPEN_NO_COPY |
				       OM_OPEN_SKIP_CHECKSUM, &m, oerr)) {
			rep->weights_size = om_get_model(m)->weights_size;
			om_close(m);
		} else {
			snprintf(err, errlen,
				 "the written model does not read back: %s",
				 oerr);
			npuc_om_release(om);
			ret = -EFAULT;
			goto out;
		}
	}
	rep->compile_ms = now_ms() - t0 - rep->import_ms;
	rep->total_ms = now_ms() - t0;
	rep->cache_corrupt_seen = corrupt;
	if (pc) {
		part_cache_store(pc);
		part_cache_stats(pc, &rep->part);
	}
	if (cached && !cache_store(&ch, om->data, om->size, rep, sizeof(*rep)) &&
	    fkey)
		write_ref(dir, fkey, ch.key_hex);
out:
	part_cache_close(pc);
	if (cached)
		cache_close(&ch);
	ir_graph_free(g);
	return ret;
}

static int check_options(struct npuc_options *o, struct npuc_report *rep,
			 char *err, size_t errlen)
{
	memset(rep, 0, sizeof(*rep));
	err[0] = '\0';
	rep->cache = -1;
	if (o->opt_level < 0 || o->opt_level > 3) {
		snprintf(err, errlen, "optimisation level %d: use -O0..-O3",
			 o->opt_level);
		return -EINVAL;
	}
	rep->opt_level = o->opt_level;
	if (o->dump_ir_after)
		o->no_cache = true;	/* a dump needs the passes to run */
	/* Plugins: the named files, then $NPUC_PLUGIN_PATH. */
	{
		char *copy = o->plugins ? strdup(o->plugins) : NULL, *save;
		int ret = 0;

		if (o->plugins && !copy)
			return -ENOMEM;
		for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL;
		     tok && !ret; tok = strtok_r(NULL, ":", &save))
			ret = npu_plugin_load(tok, NULL, err, errlen);
		free(copy);
		if (!ret)
			ret = npu_plugin_load_path(getenv(NPU_PLUGIN_ENV), err,
						   errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The report's list of nodes plugins serve (before decompositions). */
static void report_plugin_nodes(const struct ir_graph *g,
				struct npuc_report *rep)
{
	for (int i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];
		const struct npu_plugin_lib *lib = NULL;
		const struct npuc_plugin_op *op = plugin_op_of(n, &lib);
		struct npuc_plugin_node *p;

		if (!op)
			continue;
		if (rep->num_plugin_nodes++ >= NPUC_MAX_PLUGIN_NODES)
			continue;
		p = &rep->plugin_node[rep->num_plugin_nodes - 1];
		snprintf(p->node, sizeof(p->node), "%s", n->name);
		snprintf(p->op, sizeof(p->op), "%s::%s",
			 op->domain && *op->domain ? op->domain : "ai.onnx",
			 op->op_type);
		snprintf(p->plugin, sizeof(p->plugin), "%s %s %s",
			 lib->desc->name, lib->desc->version, lib->digest);
		snprintf(p->placement, sizeof(p->placement), "%s",
			 op->decompose ? "decomposed" : "host");
	}
}

int npuc_compile_file(const char *path, const struct npuc_options *opt,
		      struct npuc_om *om, struct npuc_report *rep,
		      char *err, size_t errlen)
{
	struct npuc_options o = opt ? *opt : (struct npuc_options){
		.opt_level = 2 };
	struct onnx_import_opts io = { 0 };
	struct ir_graph *g = NULL;
	struct cache_handle ch = { .lock_fd = -1 };
	bool corrupt = false, have_fkey = false;
	struct cache_key fkey = { { 0, 0 } };
	char dir[4096];
	double t0 = now_ms();
	int ret;

	ret = check_options(&o, rep, err, errlen);
	if (ret)
		return ret;
	base_name(path, rep->model, sizeof(rep->model));
	if (!o.no_cache && file_key(path, &o, &fkey)) {
		struct cache_key key;

		have_fkey = true;
		if (!cache_dir_of(&o, dir, sizeof(dir)) &&
		    read_ref(dir, &fkey, &key) && !cache_open(&ch, dir, &key)) {
			bool hit = try_hit(&ch, om, rep, &corrupt);

			cache_close(&ch);
			if (hit) {
				rep->import_ms = 0;
				rep->compile_ms = 0;
				rep->total_ms = now_ms() - t0;
				return 0;
			}
		}
	}
	io.input_shapes = o.input_shapes;
	io.map_weights = true;
	ret = onnx_import_file(path, &io, &g, err, errlen);
	if (ret)
		return ret;
	return compile_imported(g, &o, have_fkey ? &fkey : NULL, t0, om,
				rep, corrupt, err, errlen);
}

int npuc_compile_buffer(const void *data, size_t size, const char *name,
			const char *base_dir, const struct npuc_options *opt,
			struct npuc_om *om, struct npuc_report *rep,
			char *err, size_t errlen)
{
	struct npuc_options o = opt ? *opt : (struct npuc_options){
		.opt_level = 2 };
	struct onnx_import_opts io = { 0 };
	struct ir_graph *g = NULL;
	double t0 = now_ms();
	int ret;

	ret = check_options(&o, rep, err, errlen);
	if (ret)
		return ret;
	snprintf(rep->model, sizeof(rep->model), "%s", name ? name : "model");
	io.input_shapes = o.input_shapes;
	io.map_weights = true;	/* @data outlives the compile */
	ret = onnx_import_buffer(data, size, base_dir, &io, &g, err, errlen);
	if (ret)
		return ret;
	return compile_imported(g, &o, NULL, t0, om, rep, false,
				err, errlen);
}

int npuc_compile_ir(struct ir_graph *g, const char *name,
		    const struct npuc_options *opt, struct npuc_om *om,
		    struct npuc_report *rep, char *err,
		    size_t errlen)
{
	struct npuc_options o = opt ? *opt : (struct npuc_options){
		.opt_level = 2 };
	int ret = check_options(&o, rep, err, errlen);

	if (ret) {
		ir_graph_free(g);
		return ret;
	}
	snprintf(rep->model, sizeof(rep->model), "%s", name ? name : "graph");
	return compile_imported(g, &o, NULL, now_ms(), om, rep,
				false, err, errlen);
}
