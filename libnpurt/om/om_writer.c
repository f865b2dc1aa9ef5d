// SPDX-License-Identifier: MIT
/*
 * om_writer.c - builds a .om file.
 *
 * The writer collects the model in memory, checks it on serialize and lays
 * out the sections; the result is then opened with the reader, so that the
 * writer can never emit a file the runtime refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "om_bigbuf.h"
#include "om_internal.h"

struct strtab {
	char *buf;
	uint32_t len, cap;
	uint32_t *slots;	/* open addressing: offset + 1, 0 = empty */
	uint32_t nslots, used;
};

struct io_decl {
	struct om_tensor_info info;	/* names owned */
	uint32_t kind;
};

struct program {
	bool set;
	uint32_t first_task, num_tasks;
};

struct variant {
	char *name;
	uint64_t (*dims)[OM_MAX_RANK];	/* per I/O, inputs then outputs */
	bool *dims_set;
	uint64_t workspace_size, lower_bound;
	bool plan_set;
	struct om_placement_desc *placements;	/* names in pnames */
	char **pnames;
	uint32_t num_placements, cap_placements;
	struct program *programs;
	uint32_t num_streams;
};

struct weight_ref {
	uint32_t crc;
	uint64_t offset, size;
};

struct om_writer {
	char err[OM_ERR_MAX];
	char *name;
	uint32_t device_model, compiler_version, min_runtime_version;
	uint64_t features;
	struct io_decl *io;
	uint32_t num_inputs, num_outputs;
	/*
	 * The weights, in a malloc()ed buffer that becomes the file image
	 * (weights_grow(), om_writer_serialize()); @weights_taken once it
	 * has.
	 */
	uint8_t *weights;
	uint64_t weights_size;
	size_t weights_cap;
	bool weights_taken;
	struct weight_ref *wrefs;
	uint32_t num_wrefs, cap_wrefs;
	/* wrefs by crc: open addressing, entries are index + 1 (0: empty) */
	uint32_t *wmap;
	uint32_t wmap_cap;
	uint64_t *sem_incr;
	uint32_t num_sems;
	bool sems_set, sems_derive;
	struct variant *variants;
	uint32_t num_variants, default_variant;
	struct drm_npu_task *tasks;
	struct om_debug_info *debug;	/* strings owned */
	bool any_debug;
	uint32_t num_tasks, cap_tasks;
	/* provenance: per task ONNX node names; tensors (names owned) */
	struct worigin *origins;
	uint32_t cap_origins;
	struct om_tensor_origin_info *torigins;
	uint32_t num_torigins, cap_torigins;
	uint64_t num_origin_names;
	/* host tasks: string fields owned (char * in the uint32 slots' order) */
	struct whost *hosts;
	uint32_t num_hosts, cap_hosts;
	struct om_host_operand *hops;
	uint32_t num_hops, cap_hops;
	/* outputs of data-dependent extent, in (variant, output) order */
	struct om_count_desc *counts;
	uint32_t num_counts, cap_counts;
};

struct whost {
	struct om_host_task t;		/* string fields filled at build */
	char *str[7];	/* op, domain, node, plugin, version, digest, attrs */
};

struct worigin {
	char **nodes;
	uint32_t num_nodes;
};

static int fail(struct om_writer *w, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct om_writer *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return ret;
}

/* Grows *p (of *cap elements of @size) to hold @need elements. */
static int grow(void *p, uint64_t *cap, uint64_t need, size_t size)
{
	void **pp = p;
	uint64_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*pp, n * size);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = n;
	return 0;
}

static int grow32(void *p, uint32_t *cap, uint64_t need, size_t size)
{
	uint64_t c = *cap;
	int ret;

	if (need > UINT32_MAX)
		return -EOVERFLOW;
	ret = grow(p, &c, need, size);
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return ret;
}

struct om_writer *om_writer_create(void)
{
	struct om_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->device_model = DRM_NPU_MODEL_SIM910;
	w->compiler_version = OM_VERSION(0, 1, 0);
	w->sems_derive = true;
	return w;
}

static void free_variant(struct variant *v)
{
	free(v->name);
	free(v->dims);
	free(v->dims_set);
	for (uint32_t i = 0; i < v->num_placements; i++)
		free(v->pnames[i]);
	free(v->pnames);
	free(v->placements);
	free(v->programs);
}

void om_writer_destroy(struct om_writer *w)
{
	if (!w)
		return;
	free(w->name);
	for (uint32_t i = 0; i < w->num_inputs + w->num_outputs; i++) {
		free((char *)w->io[i].info.name);
		for (uint32_t k = 0; k < OM_MAX_RANK; k++)
			free((char *)w->io[i].info.dim_names[k]);
	}
	free(w->io);
	free(w->weights);
	free(w->wrefs);
	free(w->wmap);
	free(w->sem_incr);
	for (uint32_t i = 0; i < w->num_variants; i++)
		free_variant(&w->variants[i]);
	free(w->variants);
	free(w->tasks);
	for (uint32_t i = 0; w->debug && i < w->num_tasks; i++) {
		free((char *)w->debug[i].op);
		free((char *)w->debug[i].node);
	}
	free(w->debug);
	for (uint32_t i = 0; w->origins && i < w->cap_origins; i++) {
		for (uint32_t k = 0; k < w->origins[i].num_nodes; k++)
			free(w->origins[i].nodes[k]);
		free(w->origins[i].nodes);
	}
	free(w->origins);
	for (uint32_t i = 0; i < w->num_hosts; i++)
		for (int k = 0; k < 7; k++)
			free(w->hosts[i].str[k]);
	free(w->hosts);
	free(w->hops);
	free(w->counts);
	for (uint32_t i = 0; i < w->num_torigins; i++)
		free((char *)w->torigins[i].name);
	free(w->torigins);
	free(w);
}

const char *om_writer_error(const struct om_writer *w)
{
	return w ? w->err : "no writer";
}

int om_writer_set_name(struct om_writer *w, const char *name)
{
	char *n;

	if (!name || !om_name_ok(name))
		return fail(w, -EINVAL, "model name must be printable text");
	n = strdup(name);
	if (!n)
		return fail(w, -ENOMEM, "out of memory");
	free(w->name);
	w->name = n;
	return 0;
}

int om_writer_set_target(struct om_writer *w, uint32_t device_model,
			 uint64_t features)
{
	w->device_model = device_model;
	w->features = features;
	return 0;
}

int om_writer_set_compiler_version(struct om_writer *w, uint32_t version)
{
	w->compiler_version = version;
	return 0;
}

int om_writer_set_min_runtime_version(struct om_writer *w, uint32_t version)
{
	w->min_runtime_version = version;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* I/O and variants                                                         */
/* ---------------------------------------------------------------------- */

static int check_info(struct om_writer *w, const struct om_tensor_info *t)
{
	if (!t->name || !t->name[0] || !om_name_ok(t->name))
		return fail(w, -EINVAL, "an I/O needs a printable name");
	if (!om_dtype_size(t->dtype) || t->layout >= DRM_NPU_LAYOUT_COUNT ||
	    t->rank > OM_MAX_RANK)
		return fail(w, -EINVAL, "I/O \"%s\": dtype %u layout %u rank %u "
			    "invalid", t->name, t->dtype, t->layout, t->rank);
	for (uint32_t k = 0; k < t->rank; k++) {
		bool dyn = t->dims[k] == OM_DIM_DYNAMIC;
		bool named = t->dim_names[k] && t->dim_names[k][0];

		if (dyn != named)
			return fail(w, -EINVAL, "I/O \"%s\": dim %u must be "
				    "symbolic (OM_DIM_DYNAMIC) exactly when it "
				    "has a name", t->name, k);
		if (named && !om_name_ok(t->dim_names[k]))
			return fail(w, -EINVAL, "I/O \"%s\": bad dim name",
				    t->name);
	}
	for (uint32_t i = 0; i < w->num_inputs + w->num_outputs; i++)
		if (!strcmp(w->io[i].info.name, t->name))
			return fail(w, -EEXIST, "I/O name \"%s\" used twice",
				    t->name);
	return 0;
}

int om_writer_add_io(struct om_writer *w, enum om_io_kind kind,
		     const struct om_tensor_info *info, uint32_t *index)
{
	uint32_t n = w->num_inputs + w->num_outputs, cap = n;
	struct io_decl *d;
	int ret;

	if (kind != OM_IO_INPUT && kind != OM_IO_OUTPUT)
		return fail(w, -EINVAL, "I/O kind %d unknown", kind);
	if (kind == OM_IO_INPUT && w->num_outputs)
		return fail(w, -EINVAL, "declare every input before the first "
			    "output");
	if (w->num_variants)
		return fail(w, -EINVAL, "declare the I/O before the variants");
	if (OM_SLOT_IO_BASE + n + 1 > DRM_NPU_MAX_SLOTS)
		return fail(w, -E2BIG, "too many I/O for %u slots",
			    DRM_NPU_MAX_SLOTS);
	ret = check_info(w, info);
	if (ret)
		return ret;
	if (grow32(&w->io, &cap, n + 1, sizeof(*w->io)))
		return fail(w, -ENOMEM, "out of memory");
	d = &w->io[n];
	memset(d, 0, sizeof(*d));
	d->info = *info;
	d->kind = kind;
	d->info.name = strdup(info->name);
	for (uint32_t k = 0; k < OM_MAX_RANK; k++) {
		d->info.dim_names[k] = NULL;
		if (k >= info->rank)
			d->info.dims[k] = 0;
		else if (info->dim_names[k] && info->dim_names[k][0])
			d->info.dim_names[k] = strdup(info->dim_names[k]);
	}
	if (kind == OM_IO_INPUT)
		w->num_inputs++;
	else
		w->num_outputs++;
	if (index)
		*index = kind == OM_IO_INPUT ? w->num_inputs - 1 :
					       w->num_outputs - 1;
	return d->info.name ? 0 : fail(w, -ENOMEM, "out of memory");
}

int om_writer_add_variant(struct om_writer *w, const char *name)
{
	uint32_t nio = w->num_inputs + w->num_outputs, cap = w->num_variants;
	struct variant *v;
	char def[32];

	if (!nio)
		return fail(w, -EINVAL, "declare the model's I/O first");
	if (w->num_variants >= 65536)
		return fail(w, -E2BIG, "too many variants");
	if (!name) {
		snprintf(def, sizeof(def), w->num_variants ? "variant%u" :
			 "default", w->num_variants);
		name = def;
	}
	if (!om_name_ok(name))
		return fail(w, -EINVAL, "variant name must be printable");
	for (uint32_t i = 0; i < w->num_variants; i++)
		if (!strcmp(w->variants[i].name, name))
			return fail(w, -EEXIST, "variant \"%s\" exists", name);
	if (grow32(&w->variants, &cap, w->num_variants + 1,
		   sizeof(*w->variants)))
		return fail(w, -ENOMEM, "out of memory");
	v = &w->variants[w->num_variants];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->dims = calloc(nio, sizeof(*v->dims));
	v->dims_set = calloc(nio, sizeof(*v->dims_set));
	if (!v->name || !v->dims || !v->dims_set) {
		free_variant(v);
		return fail(w, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < nio; i++)
		memcpy(v->dims[i], w->io[i].info.dims, sizeof(v->dims[i]));
	return (int)w->num_variants++;
}

int om_writer_set_default_variant(struct om_writer *w, uint32_t variant)
{
	if (variant >= w->num_variants)
		return fail(w, -EINVAL, "variant %u does not exist", variant);
	w->default_variant = variant;
	return 0;
}

static struct variant *get_variant(struct om_writer *w, uint32_t variant)
{
	if (variant >= w->num_variants) {
		fail(w, -EINVAL, "variant %u does not exist (%u added)",
		     variant, w->num_variants);
		return NULL;
	}
	return &w->variants[variant];
}

int om_writer_set_variant_shape(struct om_writer *w, uint32_t variant,
				enum om_io_kind kind, uint32_t index,
				const uint64_t *dims)
{
	struct variant *v = get_variant(w, variant);
	uint32_t i = kind == OM_IO_INPUT ? index : w->num_inputs + index;
	const struct om_tensor_info *g;

	if (!v)
		return -EINVAL;
	if ((kind == OM_IO_INPUT && index >= w->num_inputs) ||
	    (kind == OM_IO_OUTPUT && index >= w->num_outputs))
		return fail(w, -EINVAL, "no %s %u", kind ? "output" : "input",
			    index);
	g = &w->io[i].info;
	for (uint32_t k = 0; k < g->rank; k++) {
		if (dims[k] == OM_DIM_DYNAMIC ||
		    (g->dims[k] != OM_DIM_DYNAMIC && g->dims[k] != dims[k]))
			return fail(w, -EINVAL, "variant %u, \"%s\" dim %u: %llu "
				    "does not fit the declared dim", variant,
				    g->name, k, (unsigned long long)dims[k]);
		v->dims[i][k] = dims[k];
	}
	v->dims_set[i] = true;
	return 0;
}

int om_writer_set_plan(struct om_writer *w, uint32_t variant,
		       uint64_t workspace_size, uint64_t lower_bound)
{
	struct variant *v = get_variant(w, variant);

	if (!v)
		return -EINVAL;
	if (lower_bound > workspace_size)
		return fail(w, -EINVAL, "plan lower bound %llu above workspace "
			    "size %llu", (unsigned long long)lower_bound,
			    (unsigned long long)workspace_size);
	v->workspace_size = workspace_size;
	v->lower_bound = lower_bound;
	v->plan_set = true;
	return 0;
}

/* Output @output's declaration: the (num_inputs + output)-th I/O added. */
static const struct io_decl *output_decl(const struct om_writer *w,
					 uint32_t output)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < w->num_inputs + w->num_outputs; i++)
		if (w->io[i].kind == OM_IO_OUTPUT && k++ == output)
			return &w->io[i];
	return NULL;
}

int om_writer_add_count(struct om_writer *w, uint32_t variant,
			uint32_t output, uint32_t dim, uint64_t offset)
{
	const struct io_decl *d;
	struct om_count_desc *last;
	uint64_t cap;

	if (!get_variant(w, variant))
		return -EINVAL;
	d = output_decl(w, output);
	if (!d || dim >= d->info.rank)
		return fail(w, -EINVAL, "count of output %u dim %u: no such "
			    "output dim (%u outputs)", output, dim,
			    w->num_outputs);
	if (offset % 8)
		return fail(w, -EINVAL, "count of output %u at workspace "
			    "offset %llu: not 8-aligned", output,
			    (unsigned long long)offset);
	last = w->num_counts ? &w->counts[w->num_counts - 1] : NULL;
	if (last && (last->variant > variant ||
		     (last->variant == variant && last->output >= output)))
		return fail(w, -EINVAL, "counts must be added in (variant, "
			    "output) order, once each");
	cap = w->cap_counts;
	if (grow(&w->counts, &cap, (uint64_t)w->num_counts + 1,
		 sizeof(*w->counts)))
		return fail(w, -ENOMEM, "out of memory");
	w->cap_counts = (uint32_t)cap;
	w->counts[w->num_counts++] = (struct om_count_desc){
		.variant = variant, .output = output, .dim = dim,
		.offset = offset };
	return 0;
}

int om_writer_add_placement(struct om_writer *w, uint32_t variant,
			    const char *name, uint64_t offset, uint64_t size,
			    uint32_t first_task, uint32_t last_task)
{
	struct variant *v = get_variant(w, variant);
	struct om_placement_desc *p;
	uint32_t cap;

	if (!v)
		return -EINVAL;
	if (!v->plan_set)
		return fail(w, -EINVAL, "set the plan of variant %u before its "
			    "placements", variant);
	if (offset + size < offset || offset + size > v->workspace_size)
		return fail(w, -EINVAL, "placement \"%s\" [%llu, +%llu) outside "
			    "the %llu-byte workspace", name ? name : "",
			    (unsigned long long)offset,
			    (unsigned long long)size,
			    (unsigned long long)v->workspace_size);
	if (name && !om_name_ok(name))
		return fail(w, -EINVAL, "placement name must be printable");
	cap = v->cap_placements;
	if (grow32(&v->placements, &v->cap_placements, v->num_placements + 1,
		   sizeof(*v->placements)) ||
	    grow32(&v->pnames, &cap, v->num_placements + 1,
		   sizeof(*v->pnames)))
		return fail(w, -ENOMEM, "out of memory");
	v->pnames[v->num_placements] = strdup(name ? name : "");
	if (!v->pnames[v->num_placements])
		return fail(w, -ENOMEM, "out of memory");
	p = &v->placements[v->num_placements++];
	memset(p, 0, sizeof(*p));
	p->offset = offset;
	p->size = size;
	p->first_task = first_task;
	p->last_task = last_task;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Weights, semaphores, programs                                            */
/* ---------------------------------------------------------------------- */

static uint32_t wmap_home(const struct om_writer *w, uint32_t crc)
{
	return w->wmap_cap ? (crc * 2654435761u) & (w->wmap_cap - 1) : 0;
}

static void wmap_put(struct om_writer *w, uint32_t idx)
{
	uint32_t h = wmap_home(w, w->wrefs[idx].crc);

	while (w->wmap[h])
		h = (h + 1) & (w->wmap_cap - 1);
	w->wmap[h] = idx + 1;
}

/* Room for @n entries at load <= 1/2 (rebuilt in wref order). */
static int wmap_reserve(struct om_writer *w, uint32_t n)
{
	uint32_t cap = w->wmap_cap ? w->wmap_cap : 64;

	if ((uint64_t)n * 2 <= w->wmap_cap)
		return 0;
	while ((uint64_t)n * 2 > cap) {
		if (cap >= 1u << 30)
			return -ENOMEM;
		cap *= 2;
	}
	free(w->wmap);
	w->wmap = calloc(cap, sizeof(*w->wmap));
	if (!w->wmap) {
		w->wmap_cap = 0;
		return -ENOMEM;
	}
	w->wmap_cap = cap;
	for (uint32_t i = 0; i < w->num_wrefs; i++)
		wmap_put(w, i);
	return 0;
}

/*
 * Room for @need bytes of weights. The first buffer reserves 64 MiB of
 * address space (malloc() maps a block that large, and pages never
 * touched cost nothing), so that up to that size the weights never move,
 * and beyond it realloc() of the mapped block moves pages (mremap), not
 * bytes. om_writer_serialize() then grows the same block by the file's
 * tables and hands it out as the image: the weights land in fresh memory
 * once, not twice (om_bigbuf.h).
 */
#define OM_WEIGHTS_RESERVE	((size_t)64 << 20)

/*
 * Huge pages for the whole block (om_bigbuf.h), from the page it starts
 * in to the page it ends in: the block is one mapping, and advice on a
 * part of it would split it in two, which mremap() refuses to move
 * (EFAULT) - realloc() would then copy it.
 */
static void weights_advise(uint8_t *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;

	if (n >= OM_BIGBUF_MIN)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
}

static int weights_grow(struct om_writer *w, size_t need)
{
	size_t n = w->weights_cap ? w->weights_cap : OM_WEIGHTS_RESERVE;
	uint8_t *q;

	if (need <= w->weights_cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (n == w->weights_cap)
		return 0;
	q = realloc(w->weights, n);
	if (!q)
		return -ENOMEM;
	weights_advise(q, n);
	w->weights = q;
	w->weights_cap = n;
	return 0;
}

/*
 * A block for @bytes of weights and the file's tables after them, made
 * once: a block that has to grow is moved by mremap(), and on a VM with
 * shadow page tables the first touch of every moved page then costs a
 * trap (resnet50's 94 MB took 80-100 ms to read once after a move, 5 ms
 * when not moved).
 */
int om_writer_reserve_weights(struct om_writer *w, uint64_t bytes)
{
	uint64_t n = bytes + bytes / 64 + ((uint64_t)1 << 20);

	if (w->weights || w->weights_taken)
		return 0;		/* a hint: too late is no error */
	if (bytes > SIZE_MAX / 2 || n > SIZE_MAX)
		return fail(w, -ENOMEM, "reserve_weights: %llu bytes",
			    (unsigned long long)bytes);
	w->weights = malloc((size_t)n);
	if (!w->weights)
		return fail(w, -ENOMEM, "out of memory for %llu bytes of weights",
			    (unsigned long long)n);
	weights_advise(w->weights, (size_t)n);
	w->weights_cap = (size_t)n;
	return 0;
}

int om_writer_add_weights(struct om_writer *w, const void *data,
			  uint64_t size, uint64_t align, uint64_t *offset)
{
	uint32_t crc;
	uint64_t off;

	if (!offset || (!data && size))
		return fail(w, -EINVAL, "add_weights: bad arguments");
	if (w->weights_taken)
		return fail(w, -EINVAL, "add_weights: the writer was serialized and its weights are in that image; create a new writer for another model");
	if (align < OM_WEIGHT_ALIGN_MIN)
		align = OM_WEIGHT_ALIGN_MIN;
	if (align & (align - 1) || align > OM_WEIGHTS_ALIGN)
		return fail(w, -EINVAL, "weight alignment %llu is not a power "
			    "of two <= %u", (unsigned long long)align,
			    OM_WEIGHTS_ALIGN);
	if (!size) {
		/* An empty constant occupies nothing; offset 0 is in range. */
		*offset = 0;
		return 0;
	}
	crc = om_crc32c(0, data, size);
	/* Deduplicate: the earlier blobs of the same crc, in order. */
	for (uint32_t h = wmap_home(w, crc); w->wmap_cap && w->wmap[h];
	     h = (h + 1) & (w->wmap_cap - 1)) {
		const struct weight_ref *r = &w->wrefs[w->wmap[h] - 1];

		if (r->crc == crc && r->size == size && !(r->offset % align) &&
		    !memcmp(w->weights + r->offset, data, size)) {
			*offset = r->offset;
			return 0;
		}
	}
	if (wmap_reserve(w, w->num_wrefs + 1))
		return fail(w, -ENOMEM, "out of memory for the weight index");
	off = (w->weights_size + align - 1) & ~(align - 1);
	if (off < w->weights_size || off + size < off)
		return fail(w, -EOVERFLOW, "weights exceed 2^64 bytes");
	if (off + size > SIZE_MAX || weights_grow(w, (size_t)(off + size)) ||
	    grow32(&w->wrefs, &w->cap_wrefs, w->num_wrefs + 1,
		   sizeof(*w->wrefs)))
		return fail(w, -ENOMEM, "out of memory for %llu bytes of "
			    "weights", (unsigned long long)(off + size));
	memset(w->weights + w->weights_size, 0, off - w->weights_size);
	if (size)
		memcpy(w->weights + off, data, size);
	w->weights_size = off + size;
	w->wrefs[w->num_wrefs++] = (struct weight_ref){ crc, off, size };
	wmap_put(w, w->num_wrefs - 1);
	*offset = off;
	return 0;
}

int om_writer_set_semaphores(struct om_writer *w, uint32_t count,
			     const uint64_t *increments)
{
	uint64_t *incr;

	if (count > DRM_NPU_MAX_SEM_POINTS)
		return fail(w, -E2BIG, "%u semaphores; at most %u", count,
			    DRM_NPU_MAX_SEM_POINTS);
	incr = calloc(count ? count : 1, sizeof(*incr));
	if (!incr)
		return fail(w, -ENOMEM, "out of memory");
	for (uint32_t i = 0; increments && i < count; i++) {
		if (!increments[i]) {
			free(incr);
			return fail(w, -EINVAL, "semaphore %u: increment 0", i);
		}
		incr[i] = increments[i];
	}
	free(w->sem_incr);
	w->sem_incr = incr;
	w->num_sems = count;
	w->sems_set = true;
	w->sems_derive = !increments;
	return 0;
}

static char *dup_opt(const char *s, bool *bad)
{
	char *d;

	if (!s)
		return NULL;
	if (!om_name_ok(s))
		*bad = true;
	d = strdup(s);
	if (!d)
		*bad = true;
	return d;
}

int om_writer_add_program(struct om_writer *w, uint32_t variant,
			  uint32_t stream, const struct drm_npu_task *tasks,
			  uint32_t num_tasks,
			  const struct om_debug_info *debug)
{
	struct variant *v = get_variant(w, variant);
	uint32_t cap = w->cap_tasks, n = w->num_tasks;

	if (!v)
		return -EINVAL;
	if (!tasks || !num_tasks || num_tasks > DRM_NPU_MAX_TASKS)
		return fail(w, -EINVAL, "a program has 1..%u tasks (got %u)",
			    DRM_NPU_MAX_TASKS, num_tasks);
	if (stream >= DRM_NPU_MAX_SEM_POINTS)
		return fail(w, -EINVAL, "stream %u; at most %u streams", stream,
			    DRM_NPU_MAX_SEM_POINTS);
	if (stream < v->num_streams && v->programs[stream].set)
		return fail(w, -EEXIST, "variant %u already has a program for "
			    "stream %u", variant, stream);
	if (stream >= v->num_streams) {
		struct program *p = realloc(v->programs,
					    (stream + 1) * sizeof(*p));

		if (!p)
			return fail(w, -ENOMEM, "out of memory");
		memset(p + v->num_streams, 0,
		       (stream + 1 - v->num_streams) * sizeof(*p));
		v->programs = p;
		v->num_streams = stream + 1;
	}
	if ((uint64_t)n + num_tasks > UINT32_MAX / 2)
		return fail(w, -E2BIG, "too many tasks");
	if (grow32(&w->tasks, &w->cap_tasks, n + num_tasks,
		   sizeof(*w->tasks)) ||
	    grow32(&w->debug, &cap, n + num_tasks, sizeof(*w->debug)))
		return fail(w, -ENOMEM, "out of memory for %u tasks",
			    n + num_tasks);
	memcpy(w->tasks + n, tasks, num_tasks * sizeof(*tasks));
	memset(w->debug + n, 0, num_tasks * sizeof(*w->debug));
	for (uint32_t i = 0; debug && i < num_tasks; i++) {
		bool bad = false;

		w->debug[n + i].op = dup_opt(debug[i].op, &bad);
		w->debug[n + i].node = dup_opt(debug[i].node, &bad);
		w->debug[n + i].node_index = debug[i].node_index;
		if (bad) {
			for (uint32_t j = 0; j <= i; j++) {
				free((char *)w->debug[n + j].op);
				free((char *)w->debug[n + j].node);
			}
			return fail(w, -EINVAL, "task %u debug info: names must "
				    "be printable", i);
		}
		w->any_debug = true;
	}
	for (uint32_t i = 0; !debug && i < num_tasks; i++)
		w->debug[n + i].node_index = UINT32_MAX;
	w->num_tasks += num_tasks;
	v->programs[stream] = (struct program){ true, n, num_tasks };
	return 0;
}

uint32_t om_writer_num_tasks(const struct om_writer *w)
{
	return w->num_tasks;
}

int om_writer_set_task_origin(struct om_writer *w, uint32_t task,
			      const char *const *nodes, uint32_t num_nodes)
{
	struct worigin *o;
	char **copy;

	if (task >= w->num_tasks)
		return fail(w, -EINVAL, "origin of task %u; %u tasks added",
			    task, w->num_tasks);
	if (num_nodes && !nodes)
		return fail(w, -EINVAL, "origin of task %u: no names", task);
	for (uint32_t k = 0; k < num_nodes; k++)
		if (!nodes[k] || !*nodes[k] || !om_name_ok(nodes[k]))
			return fail(w, -EINVAL, "origin of task %u: node names "
				    "must be non-empty and printable", task);
	if (w->cap_origins <= task) {
		uint32_t old = w->cap_origins;

		if (grow32(&w->origins, &w->cap_origins, w->num_tasks,
			   sizeof(*w->origins)))
			return fail(w, -ENOMEM, "out of memory");
		memset(w->origins + old, 0,
		       (w->cap_origins - old) * sizeof(*w->origins));
	}
	copy = calloc(num_nodes + 1, sizeof(*copy));
	if (!copy)
		return fail(w, -ENOMEM, "out of memory");
	for (uint32_t k = 0; k < num_nodes; k++) {
		copy[k] = strdup(nodes[k]);
		if (!copy[k]) {
			while (k--)
				free(copy[k]);
			free(copy);
			return fail(w, -ENOMEM, "out of memory");
		}
	}
	o = &w->origins[task];
	w->num_origin_names -= o->num_nodes;
	for (uint32_t k = 0; k < o->num_nodes; k++)
		free(o->nodes[k]);
	free(o->nodes);
	o->nodes = copy;
	o->num_nodes = num_nodes;
	w->num_origin_names += num_nodes;
	return 0;
}

int om_writer_add_tensor_origin(struct om_writer *w,
				const struct om_tensor_origin_info *info)
{
	struct om_tensor_origin_info *t;
	int ok = 1;

	if (!info || !info->name || !*info->name || !om_name_ok(info->name))
		return fail(w, -EINVAL, "a tensor origin needs a printable "
			    "name");
	if (info->task >= w->num_tasks)
		return fail(w, -EINVAL, "tensor \"%s\": task %u; %u tasks "
			    "added", info->name, info->task, w->num_tasks);
	if (info->slot >= OM_SLOT_IO_BASE + w->num_inputs + w->num_outputs ||
	    info->slot == OM_SLOT_WEIGHTS || !om_dtype_size(info->dtype) ||
	    info->layout >= DRM_NPU_LAYOUT_COUNT || info->rank > OM_MAX_RANK)
		return fail(w, -EINVAL, "tensor \"%s\": slot %u dtype %u layout "
			    "%u rank %u", info->name, info->slot, info->dtype,
			    info->layout, info->rank);
	om_storage_bytes(info->dtype, info->layout, info->rank, info->dims,
			 &ok);
	if (!ok)
		return fail(w, -EINVAL, "tensor \"%s\": its shape has no "
			    "size in layout %s", info->name,
			    om_layout_name(info->layout));
	if (grow32(&w->torigins, &w->cap_torigins, w->num_torigins + 1ull,
		   sizeof(*w->torigins)))
		return fail(w, -ENOMEM, "out of memory");
	t = &w->torigins[w->num_torigins];
	*t = *info;
	t->name = strdup(info->name);
	if (!t->name)
		return fail(w, -ENOMEM, "out of memory");
	w->num_torigins++;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Serialize                                                                */
/* ---------------------------------------------------------------------- */

static void strtab_free(struct strtab *t)
{
	free(t->buf);
	free(t->slots);
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int strtab_rehash(struct strtab *t, uint32_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nslots; i++) {
		uint32_t off = t->slots[i], j;

		if (!off)
			continue;
		j = str_hash(t->buf + off - 1) & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = off;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

/* Offset of @s in the table, adding it once; 0 for NULL or "". */
static int strtab_add(struct strtab *t, const char *s, uint32_t *off)
{
	uint32_t len, j;
	uint64_t cap = t->cap;

	*off = 0;
	if (!s || !*s)
		return 0;
	if (t->used * 2 + 2 > t->nslots &&
	    strtab_rehash(t, t->nslots ? t->nslots * 2 : 64))
		return -ENOMEM;
	j = str_hash(s) & (t->nslots - 1);
	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		if (!strcmp(t->buf + t->slots[j] - 1, s)) {
			*off = t->slots[j] - 1;
			return 0;
		}
	}
	len = (uint32_t)strlen(s) + 1;
	if ((uint64_t)t->len + len >= UINT32_MAX ||
	    grow(&t->buf, &cap, (uint64_t)t->len + len, 1))
		return -ENOMEM;
	t->cap = (uint32_t)cap;
	memcpy(t->buf + t->len, s, len);
	*off = t->len;
	t->slots[j] = t->len + 1;
	t->len += len;
	t->used++;
	return 0;
}

/* Derives increments and checks the SEM tasks' indices. */
static int prepare_semaphores(struct om_writer *w)
{
	uint32_t need = 0;

	for (uint32_t t = 0; t < w->num_tasks; t++) {
		const struct drm_npu_task *k = &w->tasks[t];

		if (k->opcode == DRM_NPU_OP_SEM_SIGNAL ||
		    k->opcode == DRM_NPU_OP_SEM_WAIT)
			if (k->params.sem.index + 1 > need)
				need = k->params.sem.index + 1;
	}
	if (!w->sems_set || w->sems_derive) {
		uint32_t count = w->sems_set ? w->num_sems : need;
		uint64_t *incr;

		if (count < need)
			return fail(w, -EINVAL, "tasks use semaphore %u; the "
				    "model declares %u", need - 1, count);
		if (count > DRM_NPU_MAX_SEM_POINTS)
			return fail(w, -E2BIG, "tasks use %u semaphores; at "
				    "most %u", count, DRM_NPU_MAX_SEM_POINTS);
		incr = calloc(count ? count : 1, sizeof(*incr));
		if (!incr)
			return fail(w, -ENOMEM, "out of memory");
		for (uint32_t i = 0; i < count; i++)
			incr[i] = 1;
		for (uint32_t t = 0; t < w->num_tasks; t++) {
			const struct drm_npu_task *k = &w->tasks[t];

			if ((k->opcode == DRM_NPU_OP_SEM_SIGNAL ||
			     k->opcode == DRM_NPU_OP_SEM_WAIT) &&
			    k->params.sem.value > incr[k->params.sem.index])
				incr[k->params.sem.index] = k->params.sem.value;
		}
		free(w->sem_incr);
		w->sem_incr = incr;
		w->num_sems = count;
	}
	return 0;
}

struct layout {
	uint64_t off, size;
	uint32_t count, entry, type;
	const void *data;
};

static int check_model(struct om_writer *w)
{
	uint32_t nio = w->num_inputs + w->num_outputs;

	if (!w->num_outputs)
		return fail(w, -EINVAL, "the model declares no outputs");
	if (!w->num_variants)
		return fail(w, -EINVAL, "the model has no variant (call "
			    "om_writer_add_variant)");
	for (uint32_t v = 0; v < w->num_variants; v++) {
		struct variant *vr = &w->variants[v];

		if (!vr->plan_set)
			return fail(w, -EINVAL, "variant %u (%s) has no memory "
				    "plan (om_writer_set_plan)", v, vr->name);
		if (!vr->num_streams)
			return fail(w, -EINVAL, "variant %u (%s) has no program",
				    v, vr->name);
		for (uint32_t s = 0; s < vr->num_streams; s++)
			if (!vr->programs[s].set)
				return fail(w, -EINVAL, "variant %u (%s) has "
					    "programs for streams up to %u but "
					    "none for stream %u", v, vr->name,
					    vr->num_streams - 1, s);
		for (uint32_t i = 0; i < nio; i++)
			for (uint32_t k = 0; k < w->io[i].info.rank; k++)
				if (vr->dims[i][k] == OM_DIM_DYNAMIC)
					return fail(w, -EINVAL, "variant %u (%s) "
						    "gives no value to dim %u of "
						    "\"%s\"", v, vr->name, k,
						    w->io[i].info.name);
	}
	return prepare_semaphores(w);
}

static void fill_tensor(struct om_tensor_desc *d, const struct io_decl *io,
			uint32_t i, uint32_t ni, const uint64_t *dims,
			const uint32_t *dim_names, uint32_t name)
{
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->dtype = (uint8_t)io->info.dtype;
	d->layout = (uint8_t)io->info.layout;
	d->rank = (uint8_t)io->info.rank;
	d->kind = (uint8_t)io->kind;
	d->slot = (uint16_t)(OM_SLOT_IO_BASE + i);
	d->index = (uint16_t)(io->kind == OM_IO_INPUT ? i : i - ni);
	for (uint32_t k = 0; k < io->info.rank; k++) {
		d->dims[k] = dims[k];
		d->dim_names[k] = dim_names[k];
	}
	d->size_bytes = om_shape_bytes(io->info.dtype, io->info.rank, d->dims,
				       NULL);
}

struct tables {
	struct strtab st;
	struct om_model_desc model;
	struct om_tensor_desc *tensors;
	struct om_variant_desc *variants;
	struct om_program_desc *programs;
	struct om_plan_desc *plans;
	struct om_placement_desc *placements;
	struct om_sem_desc *sems;
	struct om_task_debug *debug;
	uint32_t num_tensors, num_programs, num_placements;
	bool prov;				/* provenance sections */
	struct om_task_origin *origins;
	uint32_t *onames;
	uint32_t num_onames;
	struct om_debug_tensor *dtensors;
	struct om_host_task *hosts;
};

static void tables_free(struct tables *t)
{
	strtab_free(&t->st);
	free(t->tensors);
	free(t->variants);
	free(t->programs);
	free(t->plans);
	free(t->placements);
	free(t->sems);
	free(t->debug);
	free(t->origins);
	free(t->onames);
	free(t->dtensors);
	free(t->hosts);
}

static int cmp_torigin(const void *a, const void *b)
{
	const struct om_tensor_origin_info *x = *(const void *const *)a;
	const struct om_tensor_origin_info *y = *(const void *const *)b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x < y ? -1 : x > y;	/* stable: in the order added */
}

/* ORIGINS, ORIGIN_NAMES and DEBUG_TENSORS, when any was recorded. */
static int build_provenance(struct om_writer *w, struct tables *t)
{
	const struct om_tensor_origin_info **order;
	uint32_t k = 0;

	t->prov = w->num_origin_names || w->num_torigins;
	if (!t->prov)
		return 0;
	if (w->num_origin_names > UINT32_MAX / 2)
		return -ENOMEM;
	t->origins = calloc(w->num_tasks, sizeof(*t->origins));
	t->onames = calloc(w->num_origin_names + 1, sizeof(*t->onames));
	t->dtensors = calloc(w->num_torigins + 1ull, sizeof(*t->dtensors));
	order = calloc(w->num_torigins + 1ull, sizeof(*order));
	if (!t->origins || !t->onames || !t->dtensors || !order) {
		free(order);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < w->num_tasks; i++) {
		const struct worigin *o = i < w->cap_origins ?
					  &w->origins[i] : NULL;

		t->origins[i].first_node = t->num_onames;
		for (uint32_t n = 0; o && n < o->num_nodes; n++)
			if (strtab_add(&t->st, o->nodes[n],
				       &t->onames[t->num_onames++])) {
				free(order);
				return -ENOMEM;
			}
		t->origins[i].num_nodes = t->num_onames -
					  t->origins[i].first_node;
	}
	for (uint32_t i = 0; i < w->num_torigins; i++)
		order[i] = &w->torigins[i];
	qsort(order, w->num_torigins, sizeof(*order), cmp_torigin);
	for (uint32_t i = 0; i < w->num_tasks; i++) {
		t->origins[i].first_tensor = k;
		for (; k < w->num_torigins && order[k]->task == i; k++) {
			const struct om_tensor_origin_info *in = order[k];
			struct om_debug_tensor *d = &t->dtensors[k];

			if (strtab_add(&t->st, in->name, &d->name)) {
				free(order);
				return -ENOMEM;
			}
			d->task = in->task;
			d->slot = (uint16_t)in->slot;
			d->dtype = (uint8_t)in->dtype;
			d->layout = (uint8_t)in->layout;
			d->rank = (uint8_t)in->rank;
			d->offset = in->offset;
			for (uint32_t r = 0; r < in->rank; r++)
				d->dims[r] = in->dims[r];
			d->size_bytes = om_storage_bytes(in->dtype, in->layout,
							 in->rank, in->dims,
							 NULL);
		}
		t->origins[i].num_tensors = k - t->origins[i].first_tensor;
	}
	free(order);
	return 0;
}

static int build_tables(struct om_writer *w, struct tables *t)
{
	uint32_t nio = w->num_inputs + w->num_outputs, tmp;
	uint32_t (*dn)[OM_MAX_RANK] = NULL;
	uint32_t *io_names = NULL;
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	/* Offset 0 is the empty string. */
	t->st.buf = calloc(1, 64);
	if (!t->st.buf)
		return -ENOMEM;
	t->st.cap = 64;
	t->st.len = 1;
	for (uint32_t v = 0; v < w->num_variants; v++) {
		t->num_programs += w->variants[v].num_streams;
		t->num_placements += w->variants[v].num_placements;
	}
	t->num_tensors = nio * (w->num_variants + 1);
	t->tensors = calloc(t->num_tensors, sizeof(*t->tensors));
	t->variants = calloc(w->num_variants, sizeof(*t->variants));
	t->programs = calloc(t->num_programs, sizeof(*t->programs));
	t->plans = calloc(w->num_variants, sizeof(*t->plans));
	t->placements = calloc(t->num_placements + 1, sizeof(*t->placements));
	t->sems = calloc(w->num_sems + 1, sizeof(*t->sems));
	t->debug = calloc(w->num_tasks, sizeof(*t->debug));
	dn = calloc(nio, sizeof(*dn));
	io_names = calloc(nio, sizeof(*io_names));
	if (!t->tensors || !t->variants || !t->programs || !t->plans ||
	    !t->placements || !t->sems || !t->debug || !dn || !io_names)
		goto out;
	if (strtab_add(&t->st, w->name, &t->model.name))
		goto out;
	for (uint32_t i = 0; i < nio; i++) {
		if (strtab_add(&t->st, w->io[i].info.name, &io_names[i]))
			goto out;
		for (uint32_t k = 0; k < w->io[i].info.rank; k++)
			if (strtab_add(&t->st, w->io[i].info.dim_names[k],
				       &dn[i][k]))
				goto out;
		fill_tensor(&t->tensors[i], &w->io[i], i, w->num_inputs,
			    w->io[i].info.dims, dn[i], io_names[i]);
	}
	for (uint32_t i = 0; i < nio; i++)
		for (uint32_t k = 0; k < w->io[i].info.rank; k++)
			if (w->io[i].info.dims[k] == OM_DIM_DYNAMIC)
				t->model.flags |= OM_MODELF_DYNAMIC;

	uint32_t prog = 0, place = 0, max_streams = 0;

	for (uint32_t v = 0; v < w->num_variants; v++) {
		struct variant *vr = &w->variants[v];
		struct om_variant_desc *vd = &t->variants[v];
		struct om_plan_desc *pd = &t->plans[v];

		if (strtab_add(&t->st, vr->name, &vd->name))
			goto out;
		vd->first_tensor = nio * (v + 1);
		vd->first_program = prog;
		vd->num_programs = vr->num_streams;
		if (vr->num_streams > max_streams)
			max_streams = vr->num_streams;
		for (uint32_t i = 0; i < nio; i++)
			fill_tensor(&t->tensors[vd->first_tensor + i], &w->io[i],
				    i, w->num_inputs, vr->dims[i], dn[i],
				    io_names[i]);
		for (uint32_t s = 0; s < vr->num_streams; s++, prog++) {
			t->programs[prog].variant = v;
			t->programs[prog].stream = s;
			t->programs[prog].first_task = vr->programs[s].first_task;
			t->programs[prog].num_tasks = vr->programs[s].num_tasks;
		}
		pd->workspace_size = vr->workspace_size;
		pd->lower_bound = vr->lower_bound;
		pd->first_placement = place;
		pd->num_placements = vr->num_placements;
		for (uint32_t i = 0; i < vr->num_placements; i++, place++) {
			t->placements[place] = vr->placements[i];
			if (strtab_add(&t->st, vr->pnames[i],
				       &t->placements[place].name))
				goto out;
		}
	}
	for (uint32_t i = 0; i < w->num_sems; i++)
		t->sems[i].increment = w->sem_incr[i];
	for (uint32_t i = 0; i < w->num_tasks; i++) {
		if (strtab_add(&t->st, w->debug[i].op, &t->debug[i].op) ||
		    strtab_add(&t->st, w->debug[i].node, &tmp))
			goto out;
		t->debug[i].node = tmp;
		t->debug[i].node_index = w->debug[i].node_index;
	}
	if (build_provenance(w, t))
		goto out;
	/* The table ends with a NUL (it always does: each string has one). */
	t->model.num_inputs = w->num_inputs;
	t->model.num_outputs = w->num_outputs;
	t->model.num_variants = w->num_variants;
	t->model.default_variant = w->default_variant;
	t->model.num_semaphores = w->num_sems;
	t->model.max_streams = max_streams;
	t->model.weights_size = w->weights_size;
	ret = 0;
out:
	free(dn);
	free(io_names);
	if (ret)
		fail(w, ret, "out of memory building the model tables");
	return ret;
}

int om_writer_add_host_task(struct om_writer *w,
			    const struct om_host_task_info *info,
			    const struct om_host_operand *operands)
{
	const char *src[7] = { info->op, info->domain, info->node,
			       info->plugin, info->plugin_version,
			       info->plugin_digest, info->attrs };
	uint32_t n = info->num_inputs + info->num_outputs;
	uint64_t cap;
	struct whost *h;

	if (info->num_inputs > 16 || !info->num_outputs ||
	    info->num_outputs > 16 || !info->op || !info->plugin)
		return fail(w, -EINVAL, "host task: bad operand counts or "
			    "names");
	cap = w->cap_hosts;
	if (grow(&w->hosts, &cap, (uint64_t)w->num_hosts + 1,
		 sizeof(*w->hosts)))
		return fail(w, -ENOMEM, "out of memory");
	w->cap_hosts = (uint32_t)cap;
	cap = w->cap_hops;
	if (grow(&w->hops, &cap, (uint64_t)w->num_hops + n,
		 sizeof(*w->hops)))
		return fail(w, -ENOMEM, "out of memory");
	w->cap_hops = (uint32_t)cap;
	h = &w->hosts[w->num_hosts];
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < 7; i++) {
		h->str[i] = strdup(src[i] ? src[i] : "");
		if (!h->str[i]) {
			for (int k = 0; k < i; k++)
				free(h->str[k]);
			return fail(w, -ENOMEM, "out of memory");
		}
	}
	h->t.variant = info->variant;
	h->t.stream = info->stream;
	h->t.signal_task = info->signal_task;
	h->t.sem = info->sem;
	h->t.first_operand = w->num_hops;
	h->t.num_inputs = (uint16_t)info->num_inputs;
	h->t.num_outputs = (uint16_t)info->num_outputs;
	memcpy(&w->hops[w->num_hops], operands, n * sizeof(*operands));
	w->num_hops += n;
	w->num_hosts++;
	return 0;
}

static int build_hosts(struct om_writer *w, struct tables *t)
{
	if (!w->num_hosts)
		return 0;
	t->hosts = calloc(w->num_hosts, sizeof(*t->hosts));
	if (!t->hosts)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->num_hosts; i++) {
		struct whost *h = &w->hosts[i];
		uint32_t off[7];

		for (int k = 0; k < 7; k++)
			if (strtab_add(&t->st, h->str[k], &off[k]))
				return -ENOMEM;
		t->hosts[i] = h->t;
		t->hosts[i].op = off[0];
		t->hosts[i].domain = off[1];
		t->hosts[i].node = off[2];
		t->hosts[i].plugin = off[3];
		t->hosts[i].plugin_version = off[4];
		t->hosts[i].plugin_digest = off[5];
		t->hosts[i].attrs = off[6];
	}
	return 0;
}

/*
 * The image of @size bytes whose weights section starts at @woff (0: no
 * weights): the weights' own buffer grown by the tables in front and the
 * weights moved up into place (a move within memory already touched, not
 * a copy into fresh memory), which the writer then no longer owns.
 */
static uint8_t *image_buffer(struct om_writer *w, uint64_t woff,
			     uint64_t size)
{
	uint8_t *buf;

	if (size > SIZE_MAX)
		return NULL;
	if (!woff || !w->weights_size)
		return om_bigbuf_alloc((size_t)size);
	if (weights_grow(w, (size_t)size))
		return NULL;
	buf = w->weights;
	memmove(buf + woff, buf, (size_t)w->weights_size);
	w->weights = NULL;
	w->weights_cap = 0;
	w->weights_taken = true;
	return buf;
}

int om_writer_serialize(struct om_writer *w, void **data, size_t *size)
{
	struct layout sec[OM_SEC_COUNT];
	struct om_section table[OM_SEC_COUNT];
	struct om_header h;
	struct tables t;
	char err[OM_ERR_MAX];
	uint32_t n = 0;
	uint64_t off, at = 0;
	uint8_t *buf;
	int ret;

	*data = NULL;
	*size = 0;
	ret = check_model(w);
	if (ret)
		return ret;
	ret = build_tables(w, &t);
	if (!ret && build_hosts(w, &t))
		ret = fail(w, -ENOMEM, "out of memory");
	if (ret) {
		tables_free(&t);
		return ret;
	}
#define ADD(ty, ptr, cnt, esz) \
	sec[n++] = (struct layout){ 0, (uint64_t)(cnt) * (esz), (cnt), (esz), \
				    (ty), (ptr) }
	ADD(OM_SEC_STRINGS, t.st.buf, t.st.len, 1);
	ADD(OM_SEC_MODEL, &t.model, 1, sizeof(t.model));
	ADD(OM_SEC_TENSORS, t.tensors, t.num_tensors, sizeof(*t.tensors));
	ADD(OM_SEC_VARIANTS, t.variants, w->num_variants, sizeof(*t.variants));
	ADD(OM_SEC_PROGRAMS, t.programs, t.num_programs, sizeof(*t.programs));
	ADD(OM_SEC_TASKS, w->tasks, w->num_tasks, sizeof(*w->tasks));
	ADD(OM_SEC_PLANS, t.plans, w->num_variants, sizeof(*t.plans));
	if (t.num_placements)
		ADD(OM_SEC_PLACEMENTS, t.placements, t.num_placements,
		    sizeof(*t.placements));
	if (w->num_sems)
		ADD(OM_SEC_SEMAPHORES, t.sems, w->num_sems, sizeof(*t.sems));
	if (w->any_debug)
		ADD(OM_SEC_DEBUG, t.debug, w->num_tasks, sizeof(*t.debug));
	if (t.prov) {
		ADD(OM_SEC_ORIGINS, t.origins, w->num_tasks,
		    sizeof(*t.origins));
		ADD(OM_SEC_ORIGIN_NAMES, t.onames, t.num_onames,
		    sizeof(*t.onames));
		ADD(OM_SEC_DEBUG_TENSORS, t.dtensors, w->num_torigins,
		    sizeof(*t.dtensors));
	}
	if (w->num_hosts) {
		ADD(OM_SEC_HOST_TASKS, t.hosts, w->num_hosts,
		    sizeof(*t.hosts));
		ADD(OM_SEC_HOST_OPERANDS, w->hops, w->num_hops,
		    sizeof(*w->hops));
	}
	if (w->num_counts)
		ADD(OM_SEC_COUNTS, w->counts, w->num_counts,
		    sizeof(*w->counts));
	if (w->weights_size > UINT32_MAX) {
		tables_free(&t);
		return fail(w, -E2BIG, "weights of %llu bytes exceed the 4 GiB "
			    "a WEIGHTS section can count",
			    (unsigned long long)w->weights_size);
	}
	/* Weights last: the small tables stay together at the front. */
	if (w->weights_size)
		ADD(OM_SEC_WEIGHTS, w->weights, (uint32_t)w->weights_size, 1);
#undef ADD
	off = sizeof(h) + (uint64_t)n * sizeof(struct om_section);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = sec[i].type == OM_SEC_WEIGHTS ? OM_WEIGHTS_ALIGN :
							    OM_SECTION_ALIGN;

		if (sec[i].size > UINT64_MAX / 2 ||
		    (sec[i].type != OM_SEC_WEIGHTS &&
		     sec[i].type != OM_SEC_STRINGS &&
		     sec[i].count > UINT32_MAX)) {
			tables_free(&t);
			return fail(w, -E2BIG, "section too large");
		}
		off = (off + a - 1) & ~(a - 1);
		sec[i].off = off;
		off += sec[i].size;
	}
	if (w->weights_taken) {
		tables_free(&t);
		return fail(w, -EINVAL, "the writer was serialized once and its weights are in that image; keep that image, or build the model again in a new writer");
	}
	buf = image_buffer(w, sec[n - 1].type == OM_SEC_WEIGHTS ?
			   sec[n - 1].off : 0, off);
	if (!buf) {
		tables_free(&t);
		return fail(w, -ENOMEM, "out of memory for a %llu-byte file",
			    (unsigned long long)off);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, OM_MAGIC, OM_MAGIC_SIZE);
	h.format_major = OM_FORMAT_MAJOR;
	h.format_minor = OM_FORMAT_MINOR;
	h.header_size = sizeof(h);
	h.file_size = off;
	h.checksum_kind = OM_CHECKSUM_CRC32C;
	h.compiler_version = w->compiler_version;
	h.min_runtime_version = w->min_runtime_version;
	h.target_model = w->device_model;
	h.target_uapi_version = DRM_NPU_UAPI_VERSION;
	h.target_features = w->features;
	h.section_table_offset = sizeof(h);
	h.num_sections = n;
	h.section_entry_size = sizeof(struct om_section);
	h.task_size = sizeof(struct drm_npu_task);
	for (uint32_t i = 0; i < n; i++) {
		memset(&table[i], 0, sizeof(table[i]));
		table[i].type = sec[i].type;
		table[i].offset = sec[i].off;
		table[i].size = sec[i].size;
		table[i].count = sec[i].count;
		table[i].entry_size = sec[i].entry;
		/* readers of format 1.0 skip the provenance */
		if (sec[i].type >= OM_SEC_ORIGINS &&
		    sec[i].type <= OM_SEC_DEBUG_TENSORS)
			table[i].flags = OM_SECF_OPTIONAL;
		/* the gaps zeroed, the sections copied: each byte once */
		memset(buf + at, 0, (size_t)(sec[i].off - at));
		if (sec[i].size && sec[i].type != OM_SEC_WEIGHTS)
			memcpy(buf + sec[i].off, sec[i].data, sec[i].size);
		at = sec[i].off + sec[i].size;
	}
	memset(buf + at, 0, (size_t)(off - at));
	memcpy(buf + sizeof(h), table, n * sizeof(table[0]));
	memcpy(buf, &h, sizeof(h));
	h.checksum = om_crc32c(0, buf, (size_t)off);
	memcpy(buf + offsetof(struct om_header, checksum), &h.checksum,
	       sizeof(h.checksum));
	tables_free(&t);

	/*
	 * What we write, the reader must accept: check it the same way, in
	 * place (the buffer is ours) and without the checksum we just took.
	 */
	ret = om_check_memory(buf, (size_t)off, OM_OPEN_SKIP_CHECKSUM, err);
	if (ret) {
		free(buf);
		return fail(w, ret, "the model is inconsistent: %s", err);
	}
	if (w->weights_taken) {
		/* the block's slack back (mremap for a mapped block) */
		uint8_t *q = realloc(buf, (size_t)off);

		buf = q ? q : buf;
	}
	*data = buf;
	*size = (size_t)off;
	return 0;
}

int om_writer_write_file(struct om_writer *w, const char *path)
{
	size_t size, done = 0, plen = strlen(path);
	char *tmp = malloc(plen + 16);
	void *data;
	int fd, ret;

	if (!tmp)
		return fail(w, -ENOMEM, "out of memory");
	ret = om_writer_serialize(w, &data, &size);
	if (ret) {
		free(tmp);
		return ret;
	}
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		fail(w, ret, "cannot create a file next to %s: %s", path,
		     strerror(errno));
		goto out;
	}
	/* mkstemp makes 0600; a model is a shareable artefact. */
	if (fchmod(fd, 0644))
		ret = 0;
	while (done < size) {
		ssize_t k = write(fd, (uint8_t *)data + done, size - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ret = k ? -errno : -EIO;
			fail(w, ret, "cannot write %s: %s", tmp,
			     strerror(-ret));
			break;
		}
		done += (size_t)k;
	}
	if (!ret && fsync(fd)) {
		ret = -errno;
		fail(w, ret, "cannot sync %s: %s", tmp, strerror(errno));
	}
	if (close(fd) && !ret) {
		ret = -errno;
		fail(w, ret, "cannot close %s: %s", tmp, strerror(errno));
	}
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		fail(w, ret, "cannot rename %s to %s: %s", tmp, path,
		     strerror(errno));
	}
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	free(data);
	return ret;
}
