// SPDX-License-Identifier: MIT
/*
 * pad_gear.c - run a shape no gear has exactly in the smallest gear that
 * covers it (npurt_model_set_pad_to_gear, npu-run --pad-to-gear).
 *
 * A dynamic model is compiled for a few gears (batch 1, 4, 8; sequence 32,
 * 64, 128). With padding on, selecting a shape that is no gear picks the
 * gear whose every input dim is at least the shape's and whose inputs hold
 * the fewest elements; an execution then copies each input into a
 * zero-filled buffer of the gear's shape (the data at the start of every
 * dim), runs the gear, and copies back the part of each output that the
 * request's values of the padded symbols select. Which output dims to
 * crop comes from the model's symbolic dim names: an output dim named
 * "batch" is cut to the request's batch. A selection is refused when an
 * output has a symbolic dim that no input names (the runtime could not
 * tell how much of it is real), or a padded input is not in a plain
 * layout.
 *
 * Whether zero padding leaves the real rows' results unchanged is the
 * model's property: true along a batch dim, and along a sequence with
 * an attention mask whose padded positions are 0 (masked); not for a
 * model that mixes positions without a mask. Documentation/online.rst.
 *
 * Executions with a padded selection run through npurt_model_execute()
 * (synchronous): the crop needs the results on the host. Device blocks
 * are copied through the host (the pad and the crop are host copies).
 */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

struct rt_pad {
	bool enabled;
	bool active;		/* the selection is padded into @variant */
	uint32_t variant;
	/* requested dims of every input, then every output (cropped) */
	uint64_t dims[];
};

static uint64_t *pad_dims(struct rt_pad *p, uint32_t io)
{
	return &p->dims[(size_t)io * NPURT_MAX_RANK];
}

void rt_pad_free(npurt_model *m)
{
	free(m->pad);
	m->pad = NULL;
}

NPURT_API npurt_status npurt_model_set_pad_to_gear(npurt_model *m,
						   int enable)
{
	if (!m)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model",
			       "model is NULL");
	pthread_mutex_lock(&m->lock);
	if (!m->pad && enable) {
		m->pad = calloc(1, sizeof(*m->pad) + (size_t)m->nio *
				NPURT_MAX_RANK * sizeof(uint64_t));
		if (!m->pad) {
			pthread_mutex_unlock(&m->lock);
			return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
				       "out of memory");
		}
	}
	if (m->pad) {
		m->pad->enabled = enable != 0;
		m->pad->active = false;
	}
	pthread_mutex_unlock(&m->lock);
	return NPURT_OK;
}

/* Another selection was made: the padded one is over. */
void rt_pad_clear(npurt_model *m)
{
	pthread_mutex_lock(&m->lock);
	if (m->pad)
		m->pad->active = false;
	pthread_mutex_unlock(&m->lock);
}

bool rt_pad_active(npurt_model *m)
{
	bool on;

	pthread_mutex_lock(&m->lock);
	on = m->pad && m->pad->active;
	pthread_mutex_unlock(&m->lock);
	return on;
}

/* Elements of gear @v's inputs if it covers @shapes, else 0. */
static uint64_t gear_cover(npurt_model *m, uint32_t v,
			   const uint64_t *const *shapes)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < m->nin; i++) {
		const struct om_tensor_desc *t =
			om_get_io(m->om, v, OM_IO_INPUT, i);
		uint64_t n = 1;

		for (uint32_t d = 0; d < t->rank; d++) {
			if (t->dims[d] < shapes[i][d])
				return 0;
			n *= t->dims[d];	/* dims validated by the reader */
		}
		total += n;
	}
	return total ? total : 1;
}

/* The value the request gives symbol @name; false if no input has it. */
static bool symbol_value(npurt_model *m, const char *name,
			 const uint64_t *const *shapes, uint64_t *val)
{
	for (uint32_t i = 0; i < m->nin; i++) {
		const struct om_tensor_desc *g =
			om_get_io(m->om, OM_VARIANT_GENERIC, OM_IO_INPUT, i);

		for (uint32_t d = 0; d < g->rank; d++)
			if (g->dim_names[d] &&
			    !strcmp(om_string(m->om, g->dim_names[d]), name)) {
				*val = shapes[i][d];
				return true;
			}
	}
	return false;
}

/* Fill p->dims for gear @v; refuse what padding cannot express. */
static npurt_status plan_crop(npurt_model *m, struct rt_pad *p, uint32_t v,
			      const uint64_t *const *shapes, const char *func)
{
	for (uint32_t io = 0; io < m->nio; io++) {
		bool in = io < m->nin;
		uint32_t k = in ? io : io - m->nin;
		enum om_io_kind kind = in ? OM_IO_INPUT : OM_IO_OUTPUT;
		const struct om_tensor_desc *t = om_get_io(m->om, v, kind, k);
		const struct om_tensor_desc *g =
			om_get_io(m->om, OM_VARIANT_GENERIC, kind, k);
		uint64_t *dims = pad_dims(p, io);
		bool padded = false;

		if (!in && om_get_count(m->om, v, k))
			return rt_fail(NPURT_ERR_UNSUPPORTED, func,
				       "compile a gear for the shape (npuc --dynamic-dims) or load the ONNX",
				       "model \"%s\": output \"%s\" has an extent the data decides; padding the inputs would change it",
				       m->name, om_string(m->om, t->name));

		for (uint32_t d = 0; d < t->rank; d++) {
			const char *sym = g->dim_names[d] ?
				om_string(m->om, g->dim_names[d]) : NULL;
			uint64_t val = in ? shapes[k][d] : t->dims[d];

			if (!in && sym && !symbol_value(m, sym, shapes, &val))
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "compile a gear for the shape (npuc --dynamic-dims) or load the ONNX",
					       "model \"%s\": output \"%s\" dim %u is \"%s\", which no input names; padding cannot tell how much of it to keep",
					       m->name,
					       om_string(m->om, t->name), d,
					       sym);
			if (!in && sym && val > t->dims[d])
				return rt_fail(NPURT_ERR_SHAPE, func,
					       "compile a gear for the shape (npuc --dynamic-dims) or load the ONNX",
					       "model \"%s\": output \"%s\" dim %u (\"%s\") would be %llu, more than the %llu of gear %u",
					       m->name,
					       om_string(m->om, t->name), d,
					       sym, (unsigned long long)val,
					       (unsigned long long)t->dims[d], v);
			dims[d] = val;
			padded |= val != t->dims[d];
		}
		if (padded && t->layout != DRM_NPU_LAYOUT_ND &&
		    t->layout != DRM_NPU_LAYOUT_NCHW)
			return rt_fail(NPURT_ERR_UNSUPPORTED, func,
				       "pad the input yourself",
				       "model \"%s\": %s \"%s\" is in layout %s; padding takes plain (ND, NCHW) I/O",
				       m->name, in ? "input" : "output",
				       om_string(m->om, t->name),
				       om_layout_name(t->layout));
	}
	return NPURT_OK;
}

npurt_status rt_pad_select(npurt_model *m, const uint64_t *const *shapes,
			   const char *func)
{
	uint64_t best = 0;
	uint32_t v = 0;
	npurt_status st;

	pthread_mutex_lock(&m->lock);
	if (!m->pad || !m->pad->enabled) {
		pthread_mutex_unlock(&m->lock);
		return NPURT_ERR_NOT_FOUND;
	}
	for (uint32_t k = 0; k < m->num_variants; k++) {
		uint64_t n = gear_cover(m, k, shapes);

		if (n && (!best || n < best)) {
			best = n;
			v = k;
		}
	}
	if (!best) {
		pthread_mutex_unlock(&m->lock);
		return NPURT_ERR_NOT_FOUND;
	}
	st = plan_crop(m, m->pad, v, shapes, func);
	if (!st) {
		m->pad->active = true;
		m->pad->variant = v;
		m->current_variant = v;
	}
	pthread_mutex_unlock(&m->lock);
	return st;
}

void rt_pad_describe(npurt_model *m, bool input, uint32_t index,
		     npurt_tensor_desc *desc)
{
	uint64_t n = desc->rank ? 1 : 0, es;

	pthread_mutex_lock(&m->lock);
	if (m->pad && m->pad->active) {
		const uint64_t *dims =
			pad_dims(m->pad, input ? index : m->nin + index);

		es = om_dtype_size(desc->dtype);
		n = es;
		for (uint32_t d = 0; d < desc->rank; d++) {
			desc->dims[d] = dims[d];
			n *= dims[d];
		}
		desc->size = (size_t)n;
	}
	pthread_mutex_unlock(&m->lock);
}

/*
 * Copy the box @inner (dims) of a dense tensor between a buffer of those
 * dims and one of dims @outer, element size @es: to_outer pads, else
 * crops. Row by row along the last dim; 64-bit counters.
 */
static void box_copy(uint8_t *outer_buf, uint8_t *inner_buf,
		     const uint64_t *outer, const uint64_t *inner,
		     uint32_t rank, uint64_t es, bool to_outer)
{
	uint64_t idx[NPURT_MAX_RANK] = { 0 };
	uint64_t row, rows = 1;

	if (!rank) {
		if (to_outer)
			memcpy(outer_buf, inner_buf, es);
		else
			memcpy(inner_buf, outer_buf, es);
		return;
	}
	row = inner[rank - 1] * es;
	for (uint32_t d = 0; d + 1 < rank; d++)
		rows *= inner[d];
	for (uint64_t r = 0; r < rows; r++) {
		uint64_t off = 0;

		for (uint32_t d = 0; d + 1 < rank; d++)
			off = off * outer[d] + idx[d];
		off = off * outer[rank - 1] * es;
		if (to_outer)
			memcpy(outer_buf + off, inner_buf + r * row, row);
		else
			memcpy(inner_buf + r * row, outer_buf + off, row);
		for (int d = (int)rank - 2; d >= 0; d--) {
			if (++idx[d] < inner[d])
				break;
			idx[d] = 0;
		}
	}
}

static uint64_t dense_bytes(const uint64_t *dims, uint32_t rank, uint64_t es)
{
	for (uint32_t d = 0; d < rank; d++)
		es *= dims[d];
	return es;
}

/* The snapshot an execution pads with (the selection may change). */
struct pad_job {
	uint32_t variant;
	uint64_t *dims;
	npurt_io *io;
	uint8_t **buf;		/* the gear's shape */
	uint8_t **user;		/* the request's, for a device block */
	uint64_t *want;		/* bytes of the request's shape */
};

static void job_free(struct pad_job *j, uint32_t nio)
{
	for (uint32_t i = 0; j->buf && i < nio; i++)
		free(j->buf[i]);
	for (uint32_t i = 0; j->user && i < nio; i++)
		free(j->user[i]);
	free(j->buf);
	free(j->user);
	free(j->want);
	free(j->io);
	free(j->dims);
}

static npurt_status job_prepare(npurt_model *m, struct pad_job *j,
				const npurt_io *in, const npurt_io *out,
				const char *func)
{
	size_t dsz = (size_t)m->nio * NPURT_MAX_RANK * sizeof(uint64_t);

	j->dims = malloc(dsz ? dsz : 1);
	j->io = calloc(m->nio ? m->nio : 1, sizeof(*j->io));
	j->buf = calloc(m->nio ? m->nio : 1, sizeof(*j->buf));
	j->user = calloc(m->nio ? m->nio : 1, sizeof(*j->user));
	j->want = calloc(m->nio ? m->nio : 1, sizeof(*j->want));
	if (!j->dims || !j->io || !j->buf || !j->user || !j->want)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	pthread_mutex_lock(&m->lock);
	j->variant = m->pad->variant;
	memcpy(j->dims, m->pad->dims, dsz);
	pthread_mutex_unlock(&m->lock);
	for (uint32_t i = 0; i < m->nio; i++) {
		bool is_in = i < m->nin;
		const npurt_io *u = is_in ? &in[i] : &out[i - m->nin];
		const struct om_tensor_desc *t =
			om_get_io(m->om, j->variant,
				  is_in ? OM_IO_INPUT : OM_IO_OUTPUT,
				  is_in ? i : i - m->nin);
		uint64_t es = om_dtype_size(t->dtype);
		uint64_t want = dense_bytes(&j->dims[(size_t)i *
						     NPURT_MAX_RANK],
					    t->rank, es);

		uint8_t *src;
		npurt_status st;

		j->want[i] = want;
		if (!u->mem && !u->host)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "pass a host buffer or a device block",
				       "model \"%s\": %s %u has neither",
				       m->name, is_in ? "input" : "output",
				       is_in ? i : i - m->nin);
		if (u->size < want)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "pass a buffer of the selected shape's size",
				       "model \"%s\": %s \"%s\" needs %llu bytes, %zu given",
				       m->name, is_in ? "input" : "output",
				       om_string(m->om, t->name),
				       (unsigned long long)want, u->size);
		j->buf[i] = calloc(1, t->size_bytes ? t->size_bytes : 1);
		if (!j->buf[i])
			return rt_fail(NPURT_ERR_NOMEM, func,
				       "free host memory",
				       "out of memory for %llu bytes",
				       (unsigned long long)t->size_bytes);
		j->io[i].host = j->buf[i];
		j->io[i].size = t->size_bytes;
		src = u->host;
		if (u->mem) {
			j->user[i] = malloc(want ? want : 1);
			if (!j->user[i])
				return rt_fail(NPURT_ERR_NOMEM, func,
					       "free host memory",
					       "out of memory for %llu bytes",
					       (unsigned long long)want);
			src = j->user[i];
		}
		if (!is_in)
			continue;
		if (u->mem) {
			st = npurt_memcpy_d2h(src, u->mem, u->offset, want);
			if (st)
				return st;
		}
		box_copy(j->buf[i], src, t->dims,
			 &j->dims[(size_t)i * NPURT_MAX_RANK], t->rank, es,
			 true);
	}
	return NPURT_OK;
}

npurt_status rt_pad_execute(npurt_model *m, const npurt_io *in,
			    uint32_t nin, const npurt_io *out, uint32_t nout,
			    rt_exec_fn run, const char *func)
{
	struct pad_job j = { 0 };
	npurt_status st;

	if (nin != m->nin || nout != m->nout || (nin && !in) ||
	    (nout && !out))
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass every input and output",
			       "model \"%s\" takes %u inputs and %u outputs; %u and %u given",
			       m->name, m->nin, m->nout, nin, nout);
	st = job_prepare(m, &j, in, out, func);
	if (!st)
		st = run(m, j.variant, j.io, nin, j.io + m->nin, nout, func);
	for (uint32_t i = m->nin; !st && i < m->nio; i++) {
		const struct om_tensor_desc *t =
			om_get_io(m->om, j.variant, OM_IO_OUTPUT, i - m->nin);
		const npurt_io *u = &out[i - m->nin];

		box_copy(j.buf[i], u->mem ? j.user[i] : u->host, t->dims,
			 &j.dims[(size_t)i * NPURT_MAX_RANK], t->rank,
			 om_dtype_size(t->dtype), false);
		if (u->mem)
			st = npurt_memcpy_h2d(u->mem, u->offset, j.user[i],
					      j.want[i]);
	}
	job_free(&j, m->nio);
	return st;
}
