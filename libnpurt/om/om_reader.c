// SPDX-License-Identifier: MIT
/*
 * om_reader.c - opens and validates a .om file.
 *
 * Nothing in the file is trusted: every offset, size, count and index is
 * checked (with overflow-safe arithmetic) before it is used, and every task's
 * operands are checked against the buffers their slots will be bound to. A
 * refusal says what was found and what was expected. The validated bytes are
 * a private copy, so the caller's buffer may change afterwards without
 * effect (no time-of-check/time-of-use gap).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "om_bigbuf.h"
#include "om_internal.h"
#include "ops/npu_ops.h"

struct om_model {
	uint8_t *bytes;
	size_t size;
	bool borrowed;		/* om_check_memory(): @bytes are the caller's */
	bool weights_dropped;	/* om_drop_weights() */
	const struct om_header *hdr;
	const struct om_section *secs;
	const struct om_section *by_type[OM_SEC_COUNT];
	const char *strings;
	uint32_t strings_size;
	const struct om_model_desc *model;
	const struct om_tensor_desc *tensors;
	const struct om_variant_desc *variants;
	const struct om_program_desc *programs;
	uint32_t num_programs;
	const struct drm_npu_task *tasks;
	uint32_t num_tasks;
	const uint8_t *weights;
	uint64_t weights_size;
	const struct om_plan_desc *plans;
	const struct om_placement_desc *placements;
	uint32_t num_placements;
	const struct om_sem_desc *sems;
	const struct om_task_debug *debug;
	uint32_t nio;
	/* provenance (format 1.1, optional) */
	const struct om_task_origin *origins;
	const uint32_t *onames;
	uint32_t num_onames;
	const struct om_debug_tensor *dtensors;
	uint32_t num_dtensors;
	uint32_t *task_variant;		/* per task, when provenance */
	/* host tasks (format 1.2) */
	const struct om_host_task *hosts;
	uint32_t num_hosts;
	const struct om_host_operand *hops;
	uint32_t num_hops;
	/* data-dependent extents (format 1.3) */
	const struct om_count_desc *counts;
	uint32_t num_counts;
};

struct sec_rule {
	uint32_t entry_size;
	bool required;
};

static const struct sec_rule sec_rules[OM_SEC_COUNT] = {
	[OM_SEC_STRINGS] = { 1, true },
	[OM_SEC_MODEL] = { sizeof(struct om_model_desc), true },
	[OM_SEC_TENSORS] = { sizeof(struct om_tensor_desc), true },
	[OM_SEC_VARIANTS] = { sizeof(struct om_variant_desc), true },
	[OM_SEC_PROGRAMS] = { sizeof(struct om_program_desc), true },
	[OM_SEC_TASKS] = { sizeof(struct drm_npu_task), true },
	[OM_SEC_WEIGHTS] = { 1, false },
	[OM_SEC_PLANS] = { sizeof(struct om_plan_desc), true },
	[OM_SEC_PLACEMENTS] = { sizeof(struct om_placement_desc), false },
	[OM_SEC_SEMAPHORES] = { sizeof(struct om_sem_desc), false },
	[OM_SEC_DEBUG] = { sizeof(struct om_task_debug), false },
	[OM_SEC_ORIGINS] = { sizeof(struct om_task_origin), false },
	[OM_SEC_ORIGIN_NAMES] = { sizeof(uint32_t), false },
	[OM_SEC_DEBUG_TENSORS] = { sizeof(struct om_debug_tensor), false },
	[OM_SEC_HOST_TASKS] = { sizeof(struct om_host_task), false },
	[OM_SEC_HOST_OPERANDS] = { sizeof(struct om_host_operand), false },
	[OM_SEC_COUNTS] = { sizeof(struct om_count_desc), false },
};

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static int bad(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(char *err, const char *fmt, ...)
{
	char msg[OM_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	om_seterr(err, "invalid .om file: %s", msg);
	return -EINVAL;
}

/* ---------------------------------------------------------------------- */
/* Header and partition table                                              */
/* ---------------------------------------------------------------------- */

static int check_header(const uint8_t *b, size_t size, unsigned int flags,
			char *err)
{
	struct om_header h;
	uint64_t table_end;
	uint32_t crc, zero = 0;

	if (size < sizeof(h))
		return bad(err, "%zu bytes, shorter than the %zu-byte header",
			   size, sizeof(h));
	memcpy(&h, b, sizeof(h));
	if (memcmp(h.magic, OM_MAGIC, OM_MAGIC_SIZE))
		return bad(err, "magic %02x %02x %02x %02x %02x %02x %02x %02x; "
			   "expected 89 4e 50 55 4f 4d 0d 0a (\"\\x89NPUOM\\r\\n\")",
			   h.magic[0], h.magic[1], h.magic[2], h.magic[3],
			   h.magic[4], h.magic[5], h.magic[6], h.magic[7]);
	if (h.format_major != OM_FORMAT_MAJOR)
		return bad(err, "format version %u.%u; this reader reads %u.x "
			   "(recompile the model with a matching npuc)",
			   h.format_major, h.format_minor, OM_FORMAT_MAJOR);
	if (h.header_size != sizeof(h))
		return bad(err, "header size %u; expected %zu", h.header_size,
			   sizeof(h));
	if (h.file_size != size)
		return bad(err, "header says %llu bytes, the file has %zu "
			   "(truncated or extended)",
			   (unsigned long long)h.file_size, size);
	if (h.checksum_kind != OM_CHECKSUM_CRC32C)
		return bad(err, "checksum kind %u; expected %u (CRC32C)",
			   h.checksum_kind, OM_CHECKSUM_CRC32C);
	if (!(flags & OM_OPEN_SKIP_CHECKSUM)) {
		size_t off = offsetof(struct om_header, checksum);

		crc = om_crc32c(0, b, off);
		crc = om_crc32c(crc, &zero, sizeof(zero));
		crc = om_crc32c(crc, b + off + 4, size - off - 4);
		if (crc != h.checksum)
			return bad(err, "checksum 0x%08x, computed 0x%08x over "
				   "the file: the file is corrupt",
				   h.checksum, crc);
	}
	if (h.flags || !all_zero(h.reserved, sizeof(h.reserved)))
		return bad(err, "header flags 0x%x or reserved bytes set; "
			   "expected zero", h.flags);
	if (h.section_entry_size != sizeof(struct om_section))
		return bad(err, "section entry size %u; expected %zu",
			   h.section_entry_size, sizeof(struct om_section));
	if (h.task_size != sizeof(struct drm_npu_task))
		return bad(err, "task size %u; this runtime's uapi has %zu",
			   h.task_size, sizeof(struct drm_npu_task));
	if (h.num_sections < 1 || h.num_sections > OM_MAX_SECTIONS)
		return bad(err, "%u sections; expected 1..%u", h.num_sections,
			   OM_MAX_SECTIONS);
	if (h.section_table_offset < sizeof(h) ||
	    h.section_table_offset % 8)
		return bad(err, "section table at offset %llu; expected an "
			   "8-aligned offset after the header",
			   (unsigned long long)h.section_table_offset);
	table_end = h.section_table_offset +
		    (uint64_t)h.num_sections * sizeof(struct om_section);
	if (table_end < h.section_table_offset || table_end > size)
		return bad(err, "section table [%llu, +%u entries) ends past "
			   "the end of the file (%zu bytes)",
			   (unsigned long long)h.section_table_offset,
			   h.num_sections, size);
	return 0;
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int check_sections(struct om_model *m, char *err)
{
	const struct om_header *h = m->hdr;
	uint64_t ranges[OM_MAX_SECTIONS + 2][2];
	uint32_t n = 0;

	ranges[n][0] = 0;
	ranges[n++][1] = sizeof(*h);
	ranges[n][0] = h->section_table_offset;
	ranges[n++][1] = h->section_table_offset +
			 (uint64_t)h->num_sections * sizeof(struct om_section);
	for (uint32_t i = 0; i < h->num_sections; i++) {
		const struct om_section *s = &m->secs[i];
		const char *tn = om_section_type_name(s->type);
		uint64_t end, want, align;

		if (s->type == OM_SEC_NONE)
			return bad(err, "section %u has type 0 (none)", i);
		if (s->flags & ~OM_SECF_OPTIONAL)
			return bad(err, "section %u (%s) flags 0x%x; known "
				   "flags are 0x%x", i, tn, s->flags,
				   OM_SECF_OPTIONAL);
		align = s->type == OM_SEC_WEIGHTS ? OM_WEIGHTS_ALIGN :
						    OM_SECTION_ALIGN;
		if (s->offset % align)
			return bad(err, "section %u (%s) at offset %llu; "
				   "expected a multiple of %llu", i, tn,
				   (unsigned long long)s->offset,
				   (unsigned long long)align);
		end = s->offset + s->size;
		if (end < s->offset || end > m->size)
			return bad(err, "section %u (%s) [%llu, +%llu) ends past "
				   "the end of the file (%zu bytes)", i, tn,
				   (unsigned long long)s->offset,
				   (unsigned long long)s->size, m->size);
		if (s->type >= OM_SEC_COUNT) {
			if (!(s->flags & OM_SECF_OPTIONAL))
				return bad(err, "section %u has type %u, unknown "
					   "to this reader (format %u.%u) and "
					   "not optional; upgrade the runtime",
					   i, s->type, OM_FORMAT_MAJOR,
					   OM_FORMAT_MINOR);
		} else {
			if (m->by_type[s->type])
				return bad(err, "section type %s appears twice",
					   tn);
			m->by_type[s->type] = s;
			if (s->entry_size != sec_rules[s->type].entry_size)
				return bad(err, "section %s entry size %u; "
					   "expected %u", tn, s->entry_size,
					   sec_rules[s->type].entry_size);
			want = (uint64_t)s->count * s->entry_size;
			if (want != s->size)
				return bad(err, "section %s has %u entries of "
					   "%u bytes = %llu, but size %llu", tn,
					   s->count, s->entry_size,
					   (unsigned long long)want,
					   (unsigned long long)s->size);
		}
		ranges[n][0] = s->offset;
		ranges[n++][1] = end;
	}
	qsort(ranges, n, sizeof(ranges[0]), cmp_u64_pair);
	for (uint32_t i = 1; i < n; i++)
		if (ranges[i][0] < ranges[i - 1][1])
			return bad(err, "byte ranges [%llu, %llu) and [%llu, "
				   "%llu) overlap (header, section table and "
				   "sections must be disjoint)",
				   (unsigned long long)ranges[i - 1][0],
				   (unsigned long long)ranges[i - 1][1],
				   (unsigned long long)ranges[i][0],
				   (unsigned long long)ranges[i][1]);
	/* Every byte belongs to something: gaps (alignment) must be zero. */
	for (uint32_t i = 0; i <= n; i++) {
		uint64_t from = i ? ranges[i - 1][1] : 0;
		uint64_t to = i < n ? ranges[i][0] : m->size;

		if (from < to && !all_zero(m->bytes + from, to - from))
			return bad(err, "padding bytes [%llu, %llu) between "
				   "sections are not zero",
				   (unsigned long long)from,
				   (unsigned long long)to);
	}
	for (uint32_t t = 1; t < OM_SEC_COUNT; t++)
		if (sec_rules[t].required && !m->by_type[t])
			return bad(err, "required section %s is missing",
				   om_section_type_name(t));
	return 0;
}

static const void *sec_data(const struct om_model *m, uint32_t type,
			    uint32_t *count)
{
	const struct om_section *s = m->by_type[type];

	*count = s ? s->count : 0;
	return s ? m->bytes + s->offset : NULL;
}

/* ---------------------------------------------------------------------- */
/* Strings and descriptors                                                 */
/* ---------------------------------------------------------------------- */

static int check_str(const struct om_model *m, uint32_t off, bool nonempty,
		     const char *what, char *err)
{
	if (off >= m->strings_size)
		return bad(err, "%s: string offset %u; the string table has %u "
			   "bytes", what, off, m->strings_size);
	if (nonempty && !m->strings[off])
		return bad(err, "%s: empty name", what);
	if (!om_name_ok(m->strings + off))
		return bad(err, "%s: name contains control characters", what);
	return 0;
}

static int check_strings(struct om_model *m, char *err)
{
	uint32_t n;

	m->strings = sec_data(m, OM_SEC_STRINGS, &n);
	m->strings_size = n;
	if (n < 1 || m->strings[0] || m->strings[n - 1])
		return bad(err, "string table of %u bytes must start and end "
			   "with a NUL byte", n);
	return 0;
}

static int check_model_desc(struct om_model *m, char *err)
{
	const struct om_model_desc *d;
	uint32_t n;
	int ret;

	d = sec_data(m, OM_SEC_MODEL, &n);
	if (n != 1)
		return bad(err, "MODEL section has %u entries; expected 1", n);
	m->model = d;
	ret = check_str(m, d->name, false, "model name", err);
	if (ret)
		return ret;
	if (!all_zero(d->reserved, sizeof(d->reserved)) ||
	    (d->flags & ~OM_MODELF_DYNAMIC))
		return bad(err, "MODEL flags 0x%x or reserved bytes set; known "
			   "flags are 0x%x", d->flags, OM_MODELF_DYNAMIC);
	if ((uint64_t)OM_SLOT_IO_BASE + d->num_inputs + d->num_outputs >
	    DRM_NPU_MAX_SLOTS)
		return bad(err, "%u inputs and %u outputs need %llu slots; the "
			   "device has %u", d->num_inputs, d->num_outputs,
			   (unsigned long long)OM_SLOT_IO_BASE +
				   d->num_inputs + d->num_outputs,
			   DRM_NPU_MAX_SLOTS);
	if (d->num_outputs < 1)
		return bad(err, "the model has no outputs; expected at least 1");
	m->nio = d->num_inputs + d->num_outputs;
	if (d->num_variants < 1 || d->num_variants > 65536)
		return bad(err, "%u shape variants; expected 1..65536",
			   d->num_variants);
	if (d->default_variant >= d->num_variants)
		return bad(err, "default variant %u; the model has %u",
			   d->default_variant, d->num_variants);
	if (d->num_semaphores > DRM_NPU_MAX_SEM_POINTS)
		return bad(err, "%u semaphores; at most %u can be bound to a "
			   "submission", d->num_semaphores,
			   DRM_NPU_MAX_SEM_POINTS);
	if (d->max_streams < 1 || d->max_streams > DRM_NPU_MAX_SEM_POINTS)
		return bad(err, "max streams %u; expected 1..%u",
			   d->max_streams, DRM_NPU_MAX_SEM_POINTS);
	return 0;
}

static int check_dims(const struct om_model *m, const struct om_tensor_desc *t,
		      bool generic, const char *what, char *err)
{
	uint64_t bytes;
	int ok, ret;

	for (uint32_t i = 0; i < OM_MAX_RANK; i++) {
		bool dyn = t->dims[i] == OM_DIM_DYNAMIC;

		if (i >= t->rank) {
			if (t->dims[i] || t->dim_names[i])
				return bad(err, "%s: dim %u beyond rank %u is "
					   "set", what, i, t->rank);
			continue;
		}
		if (dyn && !generic)
			return bad(err, "%s: dim %u is symbolic in a shape "
				   "variant; expected a concrete value", what,
				   i);
		if (dyn != (t->dim_names[i] != 0) && generic)
			return bad(err, "%s: dim %u %s; a dim has a name iff "
				   "it is symbolic", what, i,
				   dyn ? "is symbolic without a name" :
					 "is fixed but named");
		ret = check_str(m, t->dim_names[i], false, what, err);
		if (ret)
			return ret;
	}
	bytes = om_shape_bytes(t->dtype, t->rank, t->dims, &ok);
	if (!ok)
		return bad(err, "%s: shape byte size overflows", what);
	if (bytes != t->size_bytes)
		return bad(err, "%s: size %llu bytes; its shape gives %llu",
			   what, (unsigned long long)t->size_bytes,
			   (unsigned long long)bytes);
	return 0;
}

static int check_generic_io(struct om_model *m, char *err)
{
	const struct om_model_desc *d = m->model;
	bool dynamic = false;
	char what[96];
	int ret;

	for (uint32_t i = 0; i < m->nio; i++) {
		const struct om_tensor_desc *t = &m->tensors[i];
		uint32_t kind = i < d->num_inputs ? OM_IO_INPUT : OM_IO_OUTPUT;
		uint32_t index = kind ? i - d->num_inputs : i;

		snprintf(what, sizeof(what), "%s %u", kind ? "output" : "input",
			 index);
		if (t->kind != kind || t->index != index ||
		    t->slot != OM_SLOT_IO_BASE + i)
			return bad(err, "%s: kind %u index %u slot %u; expected "
				   "kind %u index %u slot %u", what, t->kind,
				   t->index, t->slot, kind, index,
				   OM_SLOT_IO_BASE + i);
		if (t->flags)
			return bad(err, "%s: flags 0x%x; expected 0", what,
				   t->flags);
		ret = check_str(m, t->name, true, what, err);
		if (ret)
			return ret;
		if (!om_dtype_size(t->dtype) ||
		    t->layout >= DRM_NPU_LAYOUT_COUNT || t->rank > OM_MAX_RANK)
			return bad(err, "%s (%s): dtype %u layout %u rank %u; "
				   "expected dtype 1..%u, layout < %u, rank "
				   "<= %u", what, om_string(m, t->name),
				   t->dtype, t->layout, t->rank,
				   DRM_NPU_DTYPE_COUNT - 1,
				   DRM_NPU_LAYOUT_COUNT, OM_MAX_RANK);
		ret = check_dims(m, t, true, what, err);
		if (ret)
			return ret;
		for (uint32_t k = 0; k < t->rank; k++)
			dynamic |= t->dims[k] == OM_DIM_DYNAMIC;
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(om_string(m, t->name),
				    om_string(m, m->tensors[j].name)))
				return bad(err, "I/O name \"%s\" used twice",
					   om_string(m, t->name));
	}
	if (dynamic != !!(d->flags & OM_MODELF_DYNAMIC))
		return bad(err, "MODEL flag DYNAMIC is %s but the I/O %s "
			   "symbolic dims", dynamic ? "clear" : "set",
			   dynamic ? "has" : "has no");
	return 0;
}

/* A variant's I/O: the generic descriptor with every dim concrete. */
static int check_variant_io(struct om_model *m, uint32_t v, char *err)
{
	const struct om_tensor_desc *g = m->tensors;
	const struct om_tensor_desc *t = m->tensors + (uint64_t)m->nio * (v + 1);
	char what[96];
	int ret;

	for (uint32_t i = 0; i < m->nio; i++) {
		snprintf(what, sizeof(what), "variant %u %s \"%s\"", v,
			 g[i].kind ? "output" : "input",
			 om_string(m, g[i].name));
		if (t[i].name != g[i].name || t[i].dtype != g[i].dtype ||
		    t[i].layout != g[i].layout || t[i].rank != g[i].rank ||
		    t[i].kind != g[i].kind || t[i].slot != g[i].slot ||
		    t[i].index != g[i].index || t[i].flags ||
		    memcmp(t[i].dim_names, g[i].dim_names,
			   sizeof(g[i].dim_names)))
			return bad(err, "%s differs from the model's I/O in name, "
				   "dtype, layout, rank or slot", what);
		ret = check_dims(m, &t[i], false, what, err);
		if (ret)
			return ret;
		for (uint32_t k = 0; k < g[i].rank; k++) {
			if (g[i].dims[k] != OM_DIM_DYNAMIC &&
			    g[i].dims[k] != t[i].dims[k])
				return bad(err, "%s: dim %u is %llu; the model "
					   "fixes it to %llu", what, k,
					   (unsigned long long)t[i].dims[k],
					   (unsigned long long)g[i].dims[k]);
			/* One symbol has one value within a variant. */
			for (uint32_t j = 0; j <= i && g[i].dim_names[k]; j++)
				for (uint32_t l = 0; l < g[j].rank; l++)
					if (g[j].dim_names[l] ==
						    g[i].dim_names[k] &&
					    t[j].dims[l] != t[i].dims[k])
						return bad(err, "%s: symbol \"%s\" "
							   "is %llu here and "
							   "%llu elsewhere",
							   what,
							   om_string(m, g[i].dim_names[k]),
							   (unsigned long long)t[i].dims[k],
							   (unsigned long long)t[j].dims[l]);
		}
	}
	return 0;
}

static int check_tables(struct om_model *m, char *err)
{
	const struct om_model_desc *d = m->model;
	uint32_t n, next_prog = 0, max_streams = 0;
	uint64_t want;
	int ret;

	m->tensors = sec_data(m, OM_SEC_TENSORS, &n);
	want = (uint64_t)m->nio * (d->num_variants + 1ull);
	if (n != want)
		return bad(err, "TENSORS has %u entries; %u I/O for the model "
			   "and each of %u variants need %llu", n, m->nio,
			   d->num_variants, (unsigned long long)want);
	ret = check_generic_io(m, err);
	if (ret)
		return ret;

	m->variants = sec_data(m, OM_SEC_VARIANTS, &n);
	if (n != d->num_variants)
		return bad(err, "VARIANTS has %u entries; MODEL says %u", n,
			   d->num_variants);
	m->programs = sec_data(m, OM_SEC_PROGRAMS, &m->num_programs);
	m->tasks = sec_data(m, OM_SEC_TASKS, &m->num_tasks);
	if (m->num_tasks < 1)
		return bad(err, "TASKS is empty; expected at least one task");
	m->plans = sec_data(m, OM_SEC_PLANS, &n);
	if (n != d->num_variants)
		return bad(err, "PLANS has %u entries; expected one per "
			   "variant (%u)", n, d->num_variants);
	m->placements = sec_data(m, OM_SEC_PLACEMENTS, &m->num_placements);
	m->sems = sec_data(m, OM_SEC_SEMAPHORES, &n);
	if (n != d->num_semaphores)
		return bad(err, "SEMAPHORES has %u entries; MODEL says %u", n,
			   d->num_semaphores);
	m->weights = sec_data(m, OM_SEC_WEIGHTS, &n);
	m->weights_size = n;
	if (m->weights_size != d->weights_size)
		return bad(err, "WEIGHTS has %llu bytes; MODEL says %llu",
			   (unsigned long long)m->weights_size,
			   (unsigned long long)d->weights_size);
	m->debug = sec_data(m, OM_SEC_DEBUG, &n);
	if (m->debug && n != m->num_tasks)
		return bad(err, "DEBUG has %u entries; expected one per task "
			   "(%u)", n, m->num_tasks);

	for (uint32_t v = 0; v < d->num_variants; v++) {
		const struct om_variant_desc *vd = &m->variants[v];
		char what[48];

		snprintf(what, sizeof(what), "variant %u", v);
		ret = check_str(m, vd->name, false, what, err);
		if (ret)
			return ret;
		if (vd->flags || vd->pad || vd->reserved)
			return bad(err, "%s: flags or reserved bytes set", what);
		if ((uint64_t)vd->first_tensor != (uint64_t)m->nio * (v + 1))
			return bad(err, "%s: first tensor %u; expected %llu",
				   what, vd->first_tensor,
				   (unsigned long long)m->nio * (v + 1));
		if (vd->first_program != next_prog || vd->num_programs < 1 ||
		    vd->num_programs > d->max_streams)
			return bad(err, "%s: programs [%u, +%u); expected to "
				   "start at %u with 1..%u streams", what,
				   vd->first_program, vd->num_programs,
				   next_prog, d->max_streams);
		next_prog += vd->num_programs;
		if (vd->num_programs > max_streams)
			max_streams = vd->num_programs;
		for (uint32_t j = 0; j < v; j++)
			if (!strcmp(om_string(m, vd->name),
				    om_string(m, m->variants[j].name)))
				return bad(err, "variant name \"%s\" used "
					   "twice", om_string(m, vd->name));
		ret = check_variant_io(m, v, err);
		if (ret)
			return ret;
	}
	if (next_prog != m->num_programs)
		return bad(err, "PROGRAMS has %u entries; the variants use %u",
			   m->num_programs, next_prog);
	if (max_streams != d->max_streams)
		return bad(err, "MODEL max streams %u; the variants use at most "
			   "%u", d->max_streams, max_streams);
	return 0;
}

static int check_plans(struct om_model *m, char *err)
{
	for (uint32_t v = 0; v < m->model->num_variants; v++) {
		const struct om_plan_desc *p = &m->plans[v];
		uint64_t end = (uint64_t)p->first_placement + p->num_placements;

		if (p->flags || p->pad)
			return bad(err, "plan %u: flags or pad set", v);
		if (p->lower_bound > p->workspace_size)
			return bad(err, "plan %u: lower bound %llu above the "
				   "workspace size %llu", v,
				   (unsigned long long)p->lower_bound,
				   (unsigned long long)p->workspace_size);
		if (end > m->num_placements)
			return bad(err, "plan %u: placements [%u, +%u) past the "
				   "%u in PLACEMENTS", v, p->first_placement,
				   p->num_placements, m->num_placements);
		for (uint64_t i = p->first_placement; i < end; i++) {
			const struct om_placement_desc *pl = &m->placements[i];
			uint64_t pend = pl->offset + pl->size;
			char what[48];
			int ret;

			snprintf(what, sizeof(what), "placement %llu",
				 (unsigned long long)i);
			ret = check_str(m, pl->name, false, what, err);
			if (ret)
				return ret;
			if (pl->flags || pend < pl->offset ||
			    pend > p->workspace_size)
				return bad(err, "%s (%s): [%llu, +%llu) outside "
					   "the %llu-byte workspace of plan %u",
					   what, om_string(m, pl->name),
					   (unsigned long long)pl->offset,
					   (unsigned long long)pl->size,
					   (unsigned long long)p->workspace_size,
					   v);
			if ((pl->first_task != OM_NO_TASK &&
			     pl->first_task >= m->num_tasks) ||
			    (pl->last_task != OM_NO_TASK &&
			     pl->last_task >= m->num_tasks))
				return bad(err, "%s: task range %u..%u; the file "
					   "has %u tasks", what, pl->first_task,
					   pl->last_task, m->num_tasks);
		}
	}
	for (uint32_t s = 0; s < m->model->num_semaphores; s++) {
		int ret = check_str(m, m->sems[s].name, false, "semaphore",
				    err);

		if (ret)
			return ret;
		if (m->sems[s].flags || m->sems[s].increment < 1)
			return bad(err, "semaphore %u: increment %llu flags 0x%x;"
				   " expected increment >= 1, flags 0", s,
				   (unsigned long long)m->sems[s].increment,
				   m->sems[s].flags);
	}
	if (m->debug) {
		for (uint32_t t = 0; t < m->num_tasks; t++) {
			int ret = check_str(m, m->debug[t].op, false,
					    "task debug op", err);

			if (!ret)
				ret = check_str(m, m->debug[t].node, false,
						"task debug node", err);
			if (ret)
				return ret;
			if (m->debug[t].flags)
				return bad(err, "task %u debug flags set", t);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Tasks                                                                    */
/* ---------------------------------------------------------------------- */

/* Size of the buffer bound to @slot when @variant runs. */
static uint64_t slot_size(const struct om_model *m, uint32_t variant,
			  uint32_t slot)
{
	if (slot == OM_SLOT_WEIGHTS)
		return m->weights_size;
	if (slot == OM_SLOT_WORKSPACE)
		return m->plans[variant].workspace_size;
	return m->tensors[(uint64_t)m->nio * (variant + 1) + slot -
			  OM_SLOT_IO_BASE].size_bytes;
}

static int check_operand(const struct om_model *m, uint32_t variant,
			 uint32_t t, uint32_t k,
			 const struct drm_npu_operand *op, char *err)
{
	uint64_t extent, end, have;

	if (op->slot >= OM_SLOT_IO_BASE + m->nio)
		return bad(err, "task %u operand %u: slot %u; expected < %u "
			   "(weights, workspace, %u inputs, %u outputs)", t, k,
			   op->slot, OM_SLOT_IO_BASE + m->nio,
			   m->model->num_inputs, m->model->num_outputs);
	/* I4 (packed) only in tasks; npu_op_check_why() says where */
	if ((!om_dtype_size(op->dtype) && op->dtype != DRM_NPU_DTYPE_I4) ||
	    op->layout >= DRM_NPU_LAYOUT_COUNT ||
	    op->rank > DRM_NPU_MAX_RANK || op->flags || op->pad)
		return bad(err, "task %u operand %u: dtype %u layout %u rank "
			   "%u flags 0x%x; expected a known dtype and layout, "
			   "rank <= %u, flags 0", t, k, op->dtype, op->layout,
			   op->rank, op->flags, DRM_NPU_MAX_RANK);
	for (uint32_t i = op->rank; i < DRM_NPU_MAX_RANK; i++)
		if (op->shape[i] || op->strides[i])
			return bad(err, "task %u operand %u: dim %u beyond rank "
				   "%u is set", t, k, i, op->rank);
	if (npu_operand_end(op, &end))
		return bad(err, "task %u operand %u: byte extent overflows", t,
			   k);
	extent = end - op->offset;
	have = slot_size(m, variant, op->slot);
	if (extent && end > have)
		return bad(err, "task %u operand %u: bytes [%llu, +%llu) of "
			   "slot %u; its buffer has %llu bytes", t, k,
			   (unsigned long long)op->offset,
			   (unsigned long long)extent, op->slot,
			   (unsigned long long)have);
	return 0;
}

/*
 * Opcode, params and how the operands' shapes fit together: the device's
 * own rules (npu_op_check_why() of the op kernels, shared code), so a
 * hostile model file is refused here, naming the task and the operand,
 * rather than by the device at load.
 */
static int check_task_semantics(const struct drm_npu_task *task, uint32_t t,
				char *err)
{
	const char *why = NULL;
	uint32_t operand;

	if (!npu_op_check_why(task, &operand, &why))
		return 0;
	if (operand == ~0u)
		return bad(err, "task %u (%s): %s", t,
			   om_opcode_name(task->opcode), why ? why : "malformed");
	return bad(err, "task %u (%s) operand %u: %s", t,
		   om_opcode_name(task->opcode), operand,
		   why ? why : "malformed");
}

static int check_task(const struct om_model *m, uint32_t variant, uint32_t t,
		      char *err)
{
	const struct drm_npu_task *task = &m->tasks[t];
	int ret;

	if (task->opcode >= DRM_NPU_OP_COUNT)
		return bad(err, "task %u: opcode %u; known opcodes are 0..%u",
			   t, task->opcode, DRM_NPU_OP_COUNT - 1);
	if (task->flags || task->reserved || task->pad[0] || task->pad[1] ||
	    task->pad[2] || task->num_operands > DRM_NPU_MAX_OPERANDS)
		return bad(err, "task %u (%s): flags, reserved or pad set, or "
			   "%u operands (at most %u)", t,
			   om_opcode_name(task->opcode), task->num_operands,
			   DRM_NPU_MAX_OPERANDS);
	if (task->opcode == DRM_NPU_OP_SEM_SIGNAL ||
	    task->opcode == DRM_NPU_OP_SEM_WAIT) {
		const struct drm_npu_sem_params *s = &task->params.sem;

		if (task->num_operands ||
		    !all_zero(task->params.raw + sizeof(*s),
			      sizeof(task->params.raw) - sizeof(*s)) || s->pad)
			return bad(err, "task %u (%s): operands or unused "
				   "params set", t, om_opcode_name(task->opcode));
		if (s->index >= m->model->num_semaphores)
			return bad(err, "task %u (%s): semaphore %u; the model "
				   "has %u", t, om_opcode_name(task->opcode),
				   s->index, m->model->num_semaphores);
		if (s->value < 1 || s->value > m->sems[s->index].increment)
			return bad(err, "task %u (%s): value %llu; expected "
				   "1..%llu (the semaphore's per-execution "
				   "increment)", t, om_opcode_name(task->opcode),
				   (unsigned long long)s->value,
				   (unsigned long long)m->sems[s->index].increment);
	}
	ret = check_task_semantics(task, t, err);
	if (ret)
		return ret;
	for (uint32_t k = 0; k < DRM_NPU_MAX_OPERANDS; k++) {
		if (k >= task->num_operands) {
			if (!all_zero(&task->operands[k],
				      sizeof(task->operands[k])))
				return bad(err, "task %u: unused operand %u is "
					   "not zero", t, k);
			continue;
		}
		ret = check_operand(m, variant, t, k, &task->operands[k], err);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_programs(struct om_model *m, char *err)
{
	uint8_t *owned = calloc(m->num_tasks, 1);
	int ret = 0;

	if (!owned) {
		om_seterr(err, "out of memory validating %u tasks",
			  m->num_tasks);
		return -ENOMEM;
	}
	for (uint32_t v = 0; v < m->model->num_variants && !ret; v++) {
		const struct om_variant_desc *vd = &m->variants[v];

		for (uint32_t s = 0; s < vd->num_programs && !ret; s++) {
			const struct om_program_desc *p =
				&m->programs[vd->first_program + s];
			uint64_t end = (uint64_t)p->first_task + p->num_tasks;

			if (p->variant != v || p->stream != s || p->flags ||
			    p->pad || p->reserved) {
				ret = bad(err, "program %u: variant %u stream %u; "
					  "expected variant %u stream %u, no "
					  "flags", vd->first_program + s,
					  p->variant, p->stream, v, s);
				break;
			}
			if (p->num_tasks < 1 || p->num_tasks > DRM_NPU_MAX_TASKS ||
			    end > m->num_tasks) {
				ret = bad(err, "program %u: tasks [%u, +%u); "
					  "TASKS has %u (1..%u per program)",
					  vd->first_program + s, p->first_task,
					  p->num_tasks, m->num_tasks,
					  DRM_NPU_MAX_TASKS);
				break;
			}
			for (uint64_t t = p->first_task; t < end && !ret; t++) {
				if (owned[t]) {
					ret = bad(err, "task %llu belongs to two "
						  "programs",
						  (unsigned long long)t);
					break;
				}
				owned[t] = 1;
				ret = check_task(m, v, (uint32_t)t, err);
			}
		}
	}
	for (uint32_t t = 0; t < m->num_tasks && !ret; t++)
		if (!owned[t])
			ret = bad(err, "task %u belongs to no program", t);
	free(owned);
	return ret;
}

/*
 * Counts: in strictly increasing (variant, output) order; each names an
 * output dim of its variant and an 8-aligned int64 inside the variant's
 * workspace, which the runtime reads after an execution.
 */
static int check_counts(struct om_model *m, char *err)
{
	m->counts = sec_data(m, OM_SEC_COUNTS, &m->num_counts);
	for (uint32_t i = 0; i < m->num_counts; i++) {
		const struct om_count_desc *c = &m->counts[i];
		const struct om_count_desc *p = i ? &m->counts[i - 1] : NULL;
		const struct om_tensor_desc *t;
		uint64_t ws;

		if (c->variant >= m->model->num_variants ||
		    c->output >= m->model->num_outputs || c->flags)
			return bad(err, "count %u: variant %u output %u flags "
				   "0x%x; the model has %u variants and %u "
				   "outputs, flags must be 0", i, c->variant,
				   c->output, c->flags, m->model->num_variants,
				   m->model->num_outputs);
		if (p && (p->variant > c->variant ||
			  (p->variant == c->variant &&
			   p->output >= c->output)))
			return bad(err, "count %u: not in (variant, output) "
				   "order, or a second count of one output", i);
		t = om_get_io(m, c->variant, OM_IO_OUTPUT, c->output);
		ws = m->plans[c->variant].workspace_size;
		if (c->dim >= t->rank || c->offset % 8 || ws < 8 ||
		    c->offset > ws - 8)
			return bad(err, "count %u: dim %u of a rank-%u output, "
				   "at workspace offset %llu of %llu bytes; "
				   "expected a dim below the rank and an "
				   "8-aligned int64 inside the workspace", i,
				   c->dim, t->rank,
				   (unsigned long long)c->offset,
				   (unsigned long long)ws);
	}
	return 0;
}

/*
 * Host tasks: each names its op and plugin, lives in a program of its
 * variant whose task @signal_task is SEM_SIGNAL(sem, 1) followed by
 * SEM_WAIT(sem, 2); no other task and no other host task uses @sem; every
 * operand is dense and inside the slot's need as far as the file says
 * (weights and workspace: their sizes; I/O: the variant's descriptors).
 */
static int check_hosts(struct om_model *m, char *err)
{
	uint32_t next = 0;

	m->hosts = sec_data(m, OM_SEC_HOST_TASKS, &m->num_hosts);
	m->hops = sec_data(m, OM_SEC_HOST_OPERANDS, &m->num_hops);
	if (!m->hosts && !m->hops)
		return 0;
	if (!m->hosts || !m->hops)
		return bad(err, "HOST_TASKS and HOST_OPERANDS come together");
	for (uint32_t i = 0; i < m->num_hosts; i++) {
		const struct om_host_task *h = &m->hosts[i];
		const struct om_variant_desc *v;
		const struct om_program_desc *p;
		const struct drm_npu_task *a, *b;
		uint32_t n = (uint32_t)h->num_inputs + h->num_outputs;
		int ret = 0;

		ret = check_str(m, h->op, true, "host task op", err);
		if (!ret)
			ret = check_str(m, h->plugin, true, "host task plugin",
					err);
		if (!ret)
			ret = check_str(m, h->domain, false, "host task domain",
					err);
		if (!ret)
			ret = check_str(m, h->node, false, "host task node", err);
		if (!ret)
			ret = check_str(m, h->plugin_version, false,
					"host task plugin version", err);
		if (!ret)
			ret = check_str(m, h->plugin_digest, false,
					"host task plugin digest", err);
		if (!ret)
			ret = check_str(m, h->attrs, false, "host task attrs",
					err);
		if (ret)
			return ret;
		if (h->flags || h->reserved || h->num_inputs > 16 ||
		    !h->num_outputs || h->num_outputs > 16 ||
		    h->first_operand != next ||
		    (uint64_t)h->first_operand + n > m->num_hops)
			return bad(err, "host task %u (%s): flags, operand counts "
				   "or range [%u, +%u) of %u", i,
				   om_string(m, h->op), h->first_operand, n,
				   m->num_hops);
		next += n;
		if (h->variant >= m->model->num_variants ||
		    h->sem >= m->model->num_semaphores ||
		    m->sems[h->sem].increment != 2)
			return bad(err, "host task %u (%s): variant %u or "
				   "semaphore %u out of range or not of "
				   "increment 2", i, om_string(m, h->op),
				   h->variant, h->sem);
		v = &m->variants[h->variant];
		if (h->stream >= v->num_programs)
			return bad(err, "host task %u (%s): stream %u; the "
				   "variant has %u", i, om_string(m, h->op),
				   h->stream, v->num_programs);
		p = &m->programs[v->first_program + h->stream];
		if (h->signal_task < p->first_task ||
		    h->signal_task + 1 >= p->first_task + p->num_tasks)
			return bad(err, "host task %u (%s): task %u outside "
				   "its program", i, om_string(m, h->op),
				   h->signal_task);
		a = &m->tasks[h->signal_task];
		b = &m->tasks[h->signal_task + 1];
		if (a->opcode != DRM_NPU_OP_SEM_SIGNAL ||
		    a->params.sem.index != h->sem || a->params.sem.value != 1 ||
		    b->opcode != DRM_NPU_OP_SEM_WAIT ||
		    b->params.sem.index != h->sem || b->params.sem.value != 2)
			return bad(err, "host task %u (%s): tasks %u, %u are not "
				   "SEM_SIGNAL(%u, 1), SEM_WAIT(%u, 2)", i,
				   om_string(m, h->op), h->signal_task,
				   h->signal_task + 1, h->sem, h->sem);
		/* other tasks of its variant (variants never run at once) */
		for (uint32_t q = 0; q < v->num_programs; q++) {
			const struct om_program_desc *pq =
				&m->programs[v->first_program + q];

			for (uint32_t t = pq->first_task;
			     t < pq->first_task + pq->num_tasks; t++) {
				const struct drm_npu_task *x = &m->tasks[t];

				if (t != h->signal_task &&
				    t != h->signal_task + 1 &&
				    (x->opcode == DRM_NPU_OP_SEM_SIGNAL ||
				     x->opcode == DRM_NPU_OP_SEM_WAIT) &&
				    x->params.sem.index == h->sem)
					return bad(err, "host task %u (%s): task "
						   "%u uses its semaphore %u "
						   "too", i, om_string(m, h->op),
						   t, h->sem);
			}
		}
		for (uint32_t k = 0; k < n; k++) {
			const struct om_host_operand *o =
				&m->hops[h->first_operand + k];
			uint64_t bytes = om_dtype_size(o->dtype), limit = 0;
			bool absent = o->flags & OM_HOSTOP_ABSENT;

			if ((o->flags & ~OM_HOSTOP_ABSENT) ||
			    (absent && k >= h->num_inputs) ||
			    o->rank > OM_MAX_RANK || (!absent && !bytes))
				return bad(err, "host task %u operand %u: flags "
					   "0x%x, rank %u, dtype %u", i, k,
					   o->flags, o->rank, o->dtype);
			if (absent)
				continue;
			for (uint32_t d = 0; d < o->rank; d++) {
				if (o->dims[d] > (1ull << 40) ||
				    (o->dims[d] &&
				     bytes > UINT64_MAX / o->dims[d]))
					return bad(err, "host task %u operand "
						   "%u: dim %u too large", i,
						   k, d);
				bytes *= o->dims[d];
			}
			if (bytes != o->size_bytes)
				return bad(err, "host task %u operand %u: %llu "
					   "bytes for dims of %llu", i, k,
					   (unsigned long long)o->size_bytes,
					   (unsigned long long)bytes);
			if (o->slot == OM_SLOT_WEIGHTS)
				limit = m->weights_size;
			else if (o->slot == OM_SLOT_WORKSPACE)
				limit = m->plans[h->variant].workspace_size;
			else if (o->slot < OM_SLOT_IO_BASE + m->nio)
				limit = m->tensors[(uint64_t)m->nio *
					(h->variant + 1) + o->slot -
					OM_SLOT_IO_BASE].size_bytes;
			if (o->offset > limit || bytes > limit - o->offset)
				return bad(err, "host task %u operand %u: slot "
					   "%u [%llu, +%llu) past its %llu "
					   "bytes", i, k, o->slot,
					   (unsigned long long)o->offset,
					   (unsigned long long)bytes,
					   (unsigned long long)limit);
		}
	}
	if (next != m->num_hops)
		return bad(err, "HOST_OPERANDS has %u entries; the host tasks "
			   "use %u", m->num_hops, next);
	return 0;
}

/*
 * Provenance: ORIGINS (one per task), ORIGIN_NAMES and DEBUG_TENSORS come
 * together; every range inside its table, every tensor owned by the task
 * whose range holds it, in a buffer of its task's variant.
 */
static int check_provenance(struct om_model *m, char *err)
{
	uint32_t n, next = 0;

	m->origins = sec_data(m, OM_SEC_ORIGINS, &n);
	m->onames = sec_data(m, OM_SEC_ORIGIN_NAMES, &m->num_onames);
	m->dtensors = sec_data(m, OM_SEC_DEBUG_TENSORS, &m->num_dtensors);
	if (!m->origins && !m->onames && !m->dtensors)
		return 0;
	if (!m->origins || !m->by_type[OM_SEC_ORIGIN_NAMES] ||
	    !m->by_type[OM_SEC_DEBUG_TENSORS])
		return bad(err, "ORIGINS, ORIGIN_NAMES and DEBUG_TENSORS come "
			   "together; one is missing");
	if (n != m->num_tasks)
		return bad(err, "ORIGINS has %u entries; expected one per task "
			   "(%u)", n, m->num_tasks);
	m->task_variant = calloc(m->num_tasks, sizeof(*m->task_variant));
	if (!m->task_variant) {
		om_seterr(err, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < m->num_programs; p++)
		for (uint32_t t = 0; t < m->programs[p].num_tasks; t++)
			m->task_variant[m->programs[p].first_task + t] =
				m->programs[p].variant;
	for (uint32_t i = 0; i < m->num_onames; i++) {
		int ret = check_str(m, m->onames[i], true, "origin node name",
				    err);

		if (ret)
			return ret;
	}
	for (uint32_t t = 0; t < m->num_tasks; t++) {
		const struct om_task_origin *o = &m->origins[t];

		if ((uint64_t)o->first_node + o->num_nodes > m->num_onames)
			return bad(err, "task %u origin: nodes [%u, +%u) past "
				   "the %u in ORIGIN_NAMES", t, o->first_node,
				   o->num_nodes, m->num_onames);
		if (o->first_tensor != next ||
		    (uint64_t)o->first_tensor + o->num_tensors >
		    m->num_dtensors)
			return bad(err, "task %u origin: tensors [%u, +%u); "
				   "expected to start at %u, inside the %u of "
				   "DEBUG_TENSORS", t, o->first_tensor,
				   o->num_tensors, next, m->num_dtensors);
		next += o->num_tensors;
		for (uint32_t k = o->first_tensor; k < next; k++) {
			const struct om_debug_tensor *d = &m->dtensors[k];
			uint64_t bytes, end, have;
			int ok = 1, ret;

			ret = check_str(m, d->name, true, "debug tensor", err);
			if (ret)
				return ret;
			if (d->task != t || d->pad[0] || d->pad[1] ||
			    d->pad[2] || d->reserved[0] || d->reserved[1])
				return bad(err, "debug tensor %u (%s): task %u "
					   "in the range of task %u, or pad "
					   "set", k, om_string(m, d->name),
					   d->task, t);
			if (d->slot < OM_SLOT_WORKSPACE ||
			    d->slot >= OM_SLOT_IO_BASE + m->nio ||
			    !om_dtype_size(d->dtype) ||
			    d->layout >= DRM_NPU_LAYOUT_COUNT ||
			    d->rank > OM_MAX_RANK)
				return bad(err, "debug tensor %u (%s): slot %u "
					   "dtype %u layout %u rank %u", k,
					   om_string(m, d->name), d->slot,
					   d->dtype, d->layout, d->rank);
			for (uint32_t r = d->rank; r < OM_MAX_RANK; r++)
				if (d->dims[r])
					return bad(err, "debug tensor %u: dim "
						   "%u beyond rank %u set", k,
						   r, d->rank);
			bytes = om_storage_bytes(d->dtype, d->layout, d->rank,
						 d->dims, &ok);
			if (!ok || bytes != d->size_bytes)
				return bad(err, "debug tensor %u (%s): %llu "
					   "bytes; its shape and layout make "
					   "%llu", k, om_string(m, d->name),
					   (unsigned long long)d->size_bytes,
					   (unsigned long long)bytes);
			end = d->offset + bytes;
			have = slot_size(m, m->task_variant[t], d->slot);
			if (end < d->offset || end > have)
				return bad(err, "debug tensor %u (%s): bytes "
					   "[%llu, +%llu) of slot %u; its "
					   "buffer has %llu", k,
					   om_string(m, d->name),
					   (unsigned long long)d->offset,
					   (unsigned long long)bytes, d->slot,
					   (unsigned long long)have);
		}
	}
	if (next != m->num_dtensors)
		return bad(err, "DEBUG_TENSORS has %u entries; the tasks own "
			   "%u", m->num_dtensors, next);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Open / close                                                             */
/* ---------------------------------------------------------------------- */

/* Validates @bytes (malloc'ed, @size) and takes ownership of them. */
static int open_bytes(uint8_t *bytes, size_t size, unsigned int flags,
		      bool borrowed, struct om_model **out, char *err)
{
	struct om_model *m = calloc(1, sizeof(*m));
	int ret;

	if (!m) {
		if (!borrowed)
			free(bytes);
		om_seterr(err, "out of memory");
		return -ENOMEM;
	}
	m->bytes = bytes;
	m->size = size;
	m->borrowed = borrowed;
	ret = check_header(m->bytes, size, flags, err);
	if (ret) {
		om_close(m);
		return ret;
	}
	m->hdr = (const struct om_header *)m->bytes;
	m->secs = (const struct om_section *)(m->bytes +
					      m->hdr->section_table_offset);
	ret = check_sections(m, err);
	if (!ret)
		ret = check_strings(m, err);
	if (!ret)
		ret = check_model_desc(m, err);
	if (!ret)
		ret = check_tables(m, err);
	if (!ret)
		ret = check_plans(m, err);
	if (!ret)
		ret = check_programs(m, err);
	if (!ret)
		ret = check_provenance(m, err);
	if (!ret)
		ret = check_hosts(m, err);
	if (!ret)
		ret = check_counts(m, err);
	if (ret) {
		om_close(m);
		return ret;
	}
	*out = m;
	return 0;
}

static int open_bytes_owned(uint8_t *bytes, size_t size, unsigned int flags,
			    struct om_model **out, char *err)
{
	return open_bytes(bytes, size, flags, false, out, err);
}

int om_check_memory(const void *data, size_t size, unsigned int flags,
		    char *err)
{
	struct om_model *m;
	int ret;

	om_seterr(err, "no error");
	if ((!data && size) || (flags & ~OM_OPEN_SKIP_CHECKSUM)) {
		om_seterr(err, "om_check_memory: bad arguments");
		return -EINVAL;
	}
	ret = open_bytes((uint8_t *)data, size, flags, true, &m, err);
	if (!ret)
		om_close(m);
	return ret;
}

int om_open_memory_ex(const void *data, size_t size, unsigned int flags,
		      struct om_model **out, char *err)
{
	uint8_t *copy;
	int ret;

	om_seterr(err, "no error");
	if (!out || (!data && size) ||
	    (flags & ~(OM_OPEN_SKIP_CHECKSUM | OM_OPEN_NO_COPY))) {
		om_seterr(err, "om_open_memory: bad arguments");
		return -EINVAL;
	}
	if (flags & OM_OPEN_NO_COPY)
		return open_bytes((uint8_t *)data, size,
				  flags & ~OM_OPEN_NO_COPY, true, out, err);
	*out = NULL;
	/* Cheap checks first (no checksum) before copying a huge buffer. */
	ret = check_header(data, data ? size : 0,
			   flags | OM_OPEN_SKIP_CHECKSUM, err);
	if (ret)
		return ret;
	/* Validate a private copy: @data may change under us. */
	copy = om_bigbuf_alloc(size);
	if (!copy) {
		om_seterr(err, "out of memory copying a %zu-byte model", size);
		return -ENOMEM;
	}
	memcpy(copy, data, size);
	return open_bytes_owned(copy, size, flags, out, err);
}

int om_open_memory(const void *data, size_t size, struct om_model **out,
		   char *err)
{
	return om_open_memory_ex(data, size, 0, out, err);
}

int om_open_file(const char *path, struct om_model **out, char *err)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd, ret;

	if (out)
		*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		om_seterr(err, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		om_seterr(err, "%s is not a regular file", path);
		return -EINVAL;
	}
	buf = om_bigbuf_alloc((size_t)st.st_size);
	if (!buf) {
		close(fd);
		om_seterr(err, "out of memory reading %s (%lld bytes)", path,
			  (long long)st.st_size);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n ? -errno : -EIO;
			om_seterr(err, "cannot read %s: %s", path,
				  n ? strerror(errno) : "file shrank");
			free(buf);
			close(fd);
			return ret;
		}
		got += (size_t)n;
	}
	close(fd);
	if (out)
		*out = NULL;
	if (out) {
		ret = open_bytes_owned(buf, got, 0, out, err);
	} else {
		free(buf);
		ret = -EINVAL;
	}
	if (ret && err) {
		char tmp[OM_ERR_MAX];

		snprintf(tmp, sizeof(tmp), "%s: %s", path, err);
		memcpy(err, tmp, OM_ERR_MAX);
	}
	return ret;
}

void om_close(struct om_model *m)
{
	if (!m)
		return;
	if (!m->borrowed)
		free(m->bytes);
	free(m->task_variant);
	free(m);
}

/* ---------------------------------------------------------------------- */
/* Accessors (all indices checked; the model is immutable)                 */
/* ---------------------------------------------------------------------- */

const void *om_bytes(const struct om_model *m, size_t *size)
{
	*size = m->size;
	return m->bytes;
}

const struct om_header *om_get_header(const struct om_model *m)
{
	return m->hdr;
}

const struct om_model_desc *om_get_model(const struct om_model *m)
{
	return m->model;
}

const char *om_string(const struct om_model *m, uint32_t offset)
{
	return offset < m->strings_size ? m->strings + offset : "";
}

const char *om_model_name(const struct om_model *m)
{
	return om_string(m, m->model->name);
}

uint32_t om_num_sections(const struct om_model *m)
{
	return m->hdr->num_sections;
}

const struct om_section *om_get_section(const struct om_model *m,
					uint32_t index)
{
	return index < m->hdr->num_sections ? &m->secs[index] : NULL;
}

const struct om_tensor_desc *om_get_io(const struct om_model *m,
				       uint32_t variant, enum om_io_kind kind,
				       uint32_t index)
{
	uint64_t base;

	if (kind == OM_IO_INPUT && index >= m->model->num_inputs)
		return NULL;
	if (kind == OM_IO_OUTPUT) {
		if (index >= m->model->num_outputs)
			return NULL;
		index += m->model->num_inputs;
	} else if (kind != OM_IO_INPUT) {
		return NULL;
	}
	if (variant == OM_VARIANT_GENERIC)
		base = 0;
	else if (variant < m->model->num_variants)
		base = (uint64_t)m->nio * (variant + 1);
	else
		return NULL;
	return &m->tensors[base + index];
}

int om_find_io(const struct om_model *m, const char *name,
	       enum om_io_kind *kind, uint32_t *index)
{
	for (uint32_t i = 0; i < m->nio; i++) {
		if (strcmp(om_string(m, m->tensors[i].name), name))
			continue;
		if (kind)
			*kind = m->tensors[i].kind;
		if (index)
			*index = m->tensors[i].index;
		return 0;
	}
	return -ENOENT;
}

uint32_t om_num_counts(const struct om_model *m)
{
	return m->num_counts;
}

const struct om_count_desc *om_get_count(const struct om_model *m,
					 uint32_t variant, uint32_t output)
{
	for (uint32_t i = 0; i < m->num_counts; i++)
		if (m->counts[i].variant == variant &&
		    m->counts[i].output == output)
			return &m->counts[i];
	return NULL;
}

const struct om_variant_desc *om_get_variant(const struct om_model *m,
					     uint32_t variant)
{
	return variant < m->model->num_variants ? &m->variants[variant] : NULL;
}

int om_find_variant(const struct om_model *m, const uint64_t *const *shapes)
{
	for (uint32_t v = 0; v < m->model->num_variants; v++) {
		bool match = true;

		for (uint32_t i = 0; i < m->model->num_inputs && match; i++) {
			const struct om_tensor_desc *t =
				om_get_io(m, v, OM_IO_INPUT, i);

			match = !memcmp(t->dims, shapes[i],
					t->rank * sizeof(uint64_t));
		}
		if (match)
			return (int)v;
	}
	return -ENOENT;
}

int om_find_variant_by_name(const struct om_model *m, const char *name)
{
	for (uint32_t v = 0; v < m->model->num_variants; v++)
		if (!strcmp(om_string(m, m->variants[v].name), name))
			return (int)v;
	return -ENOENT;
}

const struct om_program_desc *om_get_program(const struct om_model *m,
					     uint32_t variant, uint32_t stream)
{
	const struct om_variant_desc *vd = om_get_variant(m, variant);

	if (!vd || stream >= vd->num_programs)
		return NULL;
	return &m->programs[vd->first_program + stream];
}

const struct drm_npu_task *om_get_tasks(const struct om_model *m,
					uint32_t first, uint32_t n)
{
	if ((uint64_t)first + n > m->num_tasks)
		return NULL;
	return &m->tasks[first];
}

uint32_t om_num_tasks(const struct om_model *m)
{
	return m->num_tasks;
}

const struct om_task_debug *om_get_task_debug(const struct om_model *m,
					      uint32_t task)
{
	return m->debug && task < m->num_tasks ? &m->debug[task] : NULL;
}

bool om_has_provenance(const struct om_model *m)
{
	return m->origins != NULL;
}

uint32_t om_task_num_origins(const struct om_model *m, uint32_t task)
{
	return m->origins && task < m->num_tasks ?
	       m->origins[task].num_nodes : 0;
}

const char *om_task_origin(const struct om_model *m, uint32_t task,
			   uint32_t i)
{
	if (i >= om_task_num_origins(m, task))
		return "";
	return om_string(m, m->onames[m->origins[task].first_node + i]);
}

const struct om_debug_tensor *om_task_tensors(const struct om_model *m,
					      uint32_t task, uint32_t *count)
{
	*count = 0;
	if (!m->origins || task >= m->num_tasks ||
	    !m->origins[task].num_tensors)
		return NULL;
	*count = m->origins[task].num_tensors;
	return &m->dtensors[m->origins[task].first_tensor];
}

uint32_t om_num_debug_tensors(const struct om_model *m)
{
	return m->num_dtensors;
}

const struct om_debug_tensor *om_get_debug_tensor(const struct om_model *m,
						  uint32_t index)
{
	return index < m->num_dtensors ? &m->dtensors[index] : NULL;
}

int om_task_owner(const struct om_model *m, uint32_t task,
		  uint32_t *variant, uint32_t *stream)
{
	for (uint32_t p = 0; p < m->num_programs; p++)
		if (task >= m->programs[p].first_task &&
		    task - m->programs[p].first_task <
		    m->programs[p].num_tasks) {
			*variant = m->programs[p].variant;
			*stream = m->programs[p].stream;
			return 0;
		}
	return -ENOENT;
}

const struct om_plan_desc *om_get_plan(const struct om_model *m,
				       uint32_t variant)
{
	return variant < m->model->num_variants ? &m->plans[variant] : NULL;
}

const struct om_placement_desc *om_get_placement(const struct om_model *m,
						 uint32_t index)
{
	return index < m->num_placements ? &m->placements[index] : NULL;
}

const void *om_get_weights(const struct om_model *m, uint64_t *size)
{
	*size = m->weights_dropped ? 0 : m->weights_size;
	return m->weights_dropped ? NULL : m->weights;
}

int om_drop_weights(struct om_model *m)
{
	const long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;

	if (m->borrowed)
		return -EINVAL;
	for (uint32_t i = 0; i < m->num_hops; i++)
		if (m->hops[i].slot == OM_SLOT_WEIGHTS)
			return -EBUSY;
	m->weights_dropped = true;
	if (!m->weights || page <= 0)
		return 0;
	/* whole pages inside the section only: the rest is the image's */
	lo = ((uintptr_t)m->weights + (uintptr_t)page - 1) &
	     ~((uintptr_t)page - 1);
	hi = ((uintptr_t)m->weights + m->weights_size) &
	     ~((uintptr_t)page - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	return 0;
}

uint32_t om_num_host_tasks(const struct om_model *m)
{
	return m->num_hosts;
}

const struct om_host_task *om_get_host_task(const struct om_model *m,
					    uint32_t i)
{
	return i < m->num_hosts ? &m->hosts[i] : NULL;
}

const struct om_host_operand *om_get_host_operands(const struct om_model *m,
						   const struct om_host_task *h)
{
	return &m->hops[h->first_operand];
}

uint32_t om_num_semaphores(const struct om_model *m)
{
	return m->model->num_semaphores;
}

const struct om_sem_desc *om_get_semaphore(const struct om_model *m,
					   uint32_t index)
{
	return index < m->model->num_semaphores ? &m->sems[index] : NULL;
}

int om_check_target(const struct om_model *m, uint32_t device_model,
		    uint64_t device_features, uint32_t device_uapi_version,
		    uint32_t runtime_version, char *err)
{
	const struct om_header *h = m->hdr;
	uint64_t missing = h->target_features & ~device_features;

	if (h->target_model != device_model || missing) {
		char need[160], mis[128];

		om_features_str(missing, mis, sizeof(mis));
		snprintf(need, sizeof(need), "%s%s",
			 h->target_model != device_model ?
				 "a different device model" : "missing ",
			 h->target_model != device_model ? "" : mis);
		om_seterr(err, "model \"%s\" targets device 0x%x with features "
			  "0x%llx; this device is 0x%x with features 0x%llx: "
			  "%s (recompile for this device)", om_model_name(m),
			  h->target_model,
			  (unsigned long long)h->target_features, device_model,
			  (unsigned long long)device_features, need);
		return -ENODEV;
	}
	if ((h->target_uapi_version >> 16) != (device_uapi_version >> 16)) {
		om_seterr(err, "model \"%s\" was built for uapi %u.%u; the "
			  "device driver speaks %u.%u (recompile the model)",
			  om_model_name(m), h->target_uapi_version >> 16,
			  h->target_uapi_version & 0xffff,
			  device_uapi_version >> 16,
			  device_uapi_version & 0xffff);
		return -ENODEV;
	}
	if (h->min_runtime_version > runtime_version) {
		om_seterr(err, "model \"%s\" needs runtime %u.%u.%u or newer; "
			  "this is %u.%u.%u (upgrade libnpurt)",
			  om_model_name(m), h->min_runtime_version >> 16,
			  (h->min_runtime_version >> 8) & 0xff,
			  h->min_runtime_version & 0xff, runtime_version >> 16,
			  (runtime_version >> 8) & 0xff,
			  runtime_version & 0xff);
		return -ENODEV;
	}
	return 0;
}
