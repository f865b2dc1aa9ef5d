// SPDX-License-Identifier: MIT
/*
 * dump.c - dumping the ONNX tensors of an execution (npurt_model_set_dump).
 *
 * The .om's provenance (om-format.rst: ORIGINS, DEBUG_TENSORS) says which
 * ONNX tensor each task completes and where it lives. A dumping execution
 * runs the model's programs in pieces on the caller's stream: each piece
 * ends after a task that completes a selected tensor (or at a semaphore
 * wait whose signal is in another stream's program, which then runs
 * first). The device runs the piece and signals the stream's timeline
 * semaphore; the host waits for it, copies the tensors out, converts
 * NC1HWC0 back to the ONNX layout and hands them to the caller, and only
 * then submits the next piece. So no later task - a reuse of the memory
 * by the plan, an in-place op - can touch the bytes before they are
 * copied, on any stream. Documentation/diagnosis.rst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/npu_ops.h"
#include "rt_internal.h"

struct rt_dump {
	npurt_dump_config cfg;
	uint8_t *cut;			/* per global task: ends a piece */
	uint8_t *sel;			/* per debug tensor: selected */
	const char **names;		/* per task: its ONNX node names */
	/* during an execution: the last tensor written at (slot, offset) */
	struct rt_dump_loc { uint32_t slot; uint64_t offset;
			     const char *name; } *locs;
	uint32_t num_locs, cap_locs;
	uint8_t *buf;			/* host copy, ONNX layout */
	size_t buf_size;
};

void rt_dump_free(npurt_model *m)
{
	struct rt_dump *d = m->dump;

	if (!d)
		return;
	free(d->cut);
	free(d->sel);
	free(d->names);
	free(d->locs);
	free(d->buf);
	free(d);
	m->dump = NULL;
}

/* The record of debug tensor @dt (data NULL). */
static void describe(const npurt_model *m, const struct om_debug_tensor *dt,
		     npurt_dump_tensor *r, const char **nodes)
{
	const struct om_task_debug *dbg = om_get_task_debug(m->om, dt->task);
	uint32_t v = 0, s = 0;

	memset(r, 0, sizeof(*r));
	r->task = dt->task;
	om_task_owner(m->om, dt->task, &v, &s);
	r->model_stream = s;
	r->stream_task = dt->task - om_get_program(m->om, v, s)->first_task;
	r->op = dbg ? om_string(m->om, dbg->op) : "";
	r->node = dbg ? om_string(m->om, dbg->node) : "";
	r->num_nodes = om_task_num_origins(m->om, dt->task);
	for (uint32_t i = 0; i < r->num_nodes && i < 64; i++)
		nodes[i] = om_task_origin(m->om, dt->task, i);
	if (r->num_nodes > 64)
		r->num_nodes = 64;
	r->nodes = nodes;
	r->name = om_string(m->om, dt->name);
	r->dtype = (npurt_dtype)dt->dtype;
	r->rank = dt->rank;
	for (uint32_t k = 0; k < dt->rank; k++)
		r->dims[k] = dt->dims[k];
	r->stored_layout = om_layout_name(dt->layout);
}

NPURT_API npurt_status npurt_model_set_dump(npurt_model *m,
					    const npurt_dump_config *cfg)
{
	uint32_t nt, ntens;
	struct rt_dump *d;
	const char *nodes[64];
	int ret;

	if (!m || (cfg && !cfg->fn))
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a model and a config with a callback",
			       "bad arguments");
	pthread_mutex_lock(&m->lock);
	rt_dump_free(m);
	if (!cfg) {
		pthread_mutex_unlock(&m->lock);
		return NPURT_OK;
	}
	if (!om_has_provenance(m->om)) {
		pthread_mutex_unlock(&m->lock);
		return RT_FAIL(NPURT_ERR_NOT_FOUND,
			       "recompile the model with this npuc (.om "
			       "format 1.1 records provenance)",
			       "model \"%s\" has no provenance (.om format "
			       "%u.%u)", m->name, om_get_header(m->om)->
			       format_major, om_get_header(m->om)->format_minor);
	}
	ret = rt_map_workspace(m);
	if (ret) {
		pthread_mutex_unlock(&m->lock);
		return RT_ERRNO(ret, "mapping the workspace for a dump");
	}
	nt = om_num_tasks(m->om);
	ntens = om_num_debug_tensors(m->om);
	d = calloc(1, sizeof(*d));
	if (d) {
		d->cut = calloc(nt, 1);
		d->sel = calloc(ntens + 1, 1);
	}
	if (!d || !d->cut || !d->sel) {
		if (d) {
			free(d->cut);
			free(d->sel);
		}
		free(d);
		pthread_mutex_unlock(&m->lock);
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	}
	d->cfg = *cfg;
	for (uint32_t i = 0; i < ntens; i++) {
		const struct om_debug_tensor *dt = om_get_debug_tensor(m->om, i);
		npurt_dump_tensor r;

		describe(m, dt, &r, nodes);
		if (cfg->select && !cfg->select(cfg->user, &r))
			continue;
		d->sel[i] = 1;
		d->cut[dt->task] = 1;
	}
	m->dump = d;
	pthread_mutex_unlock(&m->lock);
	return NPURT_OK;
}

/* CPU address of byte 0 of @slot's buffer in this execution. */
static const uint8_t *slot_base(npurt_model *m, uint32_t slot,
				const npurt_io *in, const npurt_io *out)
{
	const npurt_io *io;
	const uint8_t *p;

	if (slot == OM_SLOT_WORKSPACE)
		return m->workspace_map;
	if (slot < OM_SLOT_IO_BASE || slot - OM_SLOT_IO_BASE >= m->nio)
		return NULL;
	slot -= OM_SLOT_IO_BASE;
	io = slot < m->nin ? &in[slot] : &out[slot - m->nin];
	if (!io->mem)
		return m->stage_map[slot];
	pthread_mutex_lock(&m->ctx->lock);
	p = rt_mem_ptr(io->mem);
	pthread_mutex_unlock(&m->ctx->lock);
	return p ? p + io->offset : NULL;
}

static void note_loc(struct rt_dump *d, uint32_t slot, uint64_t offset,
		     const char *name)
{
	for (uint32_t i = 0; i < d->num_locs; i++)
		if (d->locs[i].slot == slot && d->locs[i].offset == offset) {
			d->locs[i].name = name;
			return;
		}
	if (d->num_locs == d->cap_locs) {
		uint32_t cap = d->cap_locs ? 2 * d->cap_locs : 64;
		void *p = realloc(d->locs, cap * sizeof(*d->locs));

		if (!p)
			return;		/* names stay unknown */
		d->locs = p;
		d->cap_locs = cap;
	}
	d->locs[d->num_locs++] = (struct rt_dump_loc){ slot, offset, name };
}

static const char *loc_name(npurt_model *m, const struct rt_dump *d,
			    uint32_t slot, uint64_t offset)
{
	if (slot == OM_SLOT_WEIGHTS)
		return "(weights)";
	if (slot >= OM_SLOT_IO_BASE && slot - OM_SLOT_IO_BASE < m->nin &&
	    offset == 0)
		return om_string(m->om, om_get_io(m->om, OM_VARIANT_GENERIC,
						  OM_IO_INPUT,
						  slot - OM_SLOT_IO_BASE)->name);
	for (uint32_t i = 0; i < d->num_locs; i++)
		if (d->locs[i].slot == slot && d->locs[i].offset == offset)
			return d->locs[i].name;
	return "";
}

/* Copy out, convert and hand over the selected tensors of global task @t. */
static int dump_task(npurt_model *m, uint32_t t, uint32_t stream,
		     uint32_t local, const npurt_io *in, const npurt_io *out)
{
	struct rt_dump *d = m->dump;
	const struct om_debug_tensor *dt;
	const struct drm_npu_task *task = om_get_tasks(m->om, t, 1);
	uint32_t n, first, outk = npu_op_output(task);
	const char *nodes[64];
	int stop = 0;

	dt = om_task_tensors(m->om, t, &n);
	first = n ? (uint32_t)(dt - om_get_debug_tensor(m->om, 0)) : 0;
	for (uint32_t i = 0; i < n && !stop; i++) {
		const uint8_t *base = slot_base(m, dt[i].slot, in, out);
		uint32_t es = om_dtype_size(dt[i].dtype);
		npurt_dump_tensor r;
		uint64_t bytes;
		int ok = 1;

		if (!d->sel[first + i] || !base)
			continue;
		describe(m, &dt[i], &r, nodes);
		r.model_stream = stream;
		r.stream_task = local;
		bytes = om_shape_bytes(dt[i].dtype, dt[i].rank, dt[i].dims,
				       &ok);
		if (!ok || bytes > SIZE_MAX)
			continue;
		if (bytes > d->buf_size) {
			void *p = realloc(d->buf, (size_t)bytes);

			if (!p)
				return -ENOMEM;
			d->buf = p;
			d->buf_size = (size_t)bytes;
		}
		base += dt[i].offset;
		if (dt[i].layout == DRM_NPU_LAYOUT_NC1HWC0) {
			/* [N, C1, H, W, C0] -> [N, C, H, W] */
			uint64_t N = dt[i].dims[0], C = dt[i].dims[1];
			uint64_t HW = dt[i].dims[2] * dt[i].dims[3];
			uint64_t c0 = om_c0(dt[i].dtype);
			uint64_t c1 = (C + c0 - 1) / c0;

			for (uint64_t a = 0; a < N; a++)
				for (uint64_t c = 0; c < C; c++)
					for (uint64_t x = 0; x < HW; x++)
						memcpy(d->buf + ((a * C + c) *
							HW + x) * es,
						       base + (((a * c1 +
							c / c0) * HW + x) *
							c0 + c % c0) * es, es);
		} else {
			memcpy(d->buf, base, (size_t)bytes);
		}
		r.data = d->buf;
		r.size = (size_t)bytes;
		if (m->profiling && m->profile_map[stream]) {
			const struct drm_npu_task_profile *pr =
				(const void *)m->profile_map[stream];

			if (pr[local].end_ns >= pr[local].start_ns)
				r.device_ns = pr[local].end_ns -
					      pr[local].start_ns;
		}
		for (uint32_t k = 0; k < task->num_operands && r.num_inputs <
		     6; k++)
			if (k != outk)
				r.input_names[r.num_inputs++] =
					loc_name(m, d,
						 task->operands[k].slot,
						 task->operands[k].offset);
		stop = d->cfg.fn(d->cfg.user, &r);
	}
	for (uint32_t i = 0; i < n; i++)
		note_loc(d, dt[i].slot, dt[i].offset,
			 om_string(m->om, dt[i].name));
	return stop;
}

npurt_status rt_dump_execute(npurt_model *m, uint32_t v, uint64_t n,
			     struct rt_progset *ps, uint32_t *bos,
			     struct drm_npu_sem_point *bind,
			     const npurt_io *in, const npurt_io *out,
			     npurt_stream *s, const char *func)
{
	struct rt_dump *d = m->dump;
	uint32_t ns = m->variants[v].num_streams, pos[RT_MAX_STREAMS] = { 0 };
	uint64_t *val = calloc(m->num_sems + 1, sizeof(*val));
	bool first = true, stopped = false, left = true;
	npurt_status st = NPURT_OK;
	struct rt_submit j;
	int ret;

	if (!val)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	d->num_locs = 0;
	/* the stream's earlier work and the model's last execution first */
	st = rt_stream_sync(s, func);
	if (!st && rt_sem_wait(m->ctx, m->done_sem, n - 1))
		st = rt_fail(NPURT_ERR_INTERNAL, func, "retry",
			     "waiting for the model's previous execution");
	for (uint32_t i = 0; !st && i < m->nin; i++)
		if (!in[i].mem)
			memcpy(m->stage_map[i], in[i].host,
			       om_get_io(m->om, v, OM_IO_INPUT, i)->size_bytes);
	while (!st && left) {
		bool moved = false;

		left = false;
		for (uint32_t k = 0; k < ns && !st; k++) {
			const struct om_program_desc *p =
				om_get_program(m->om, v, k);
			const struct drm_npu_task *t =
				om_get_tasks(m->om, p->first_task,
					     p->num_tasks);
			uint32_t from = pos[k];
			bool cut = false;

			while (pos[k] < p->num_tasks && !cut) {
				const struct drm_npu_task *x = &t[pos[k]];
				uint32_t i = x->params.sem.index;

				if (x->opcode == DRM_NPU_OP_SEM_WAIT &&
				    val[i] < x->params.sem.value)
					break;
				if (x->opcode == DRM_NPU_OP_SEM_SIGNAL &&
				    val[i] < x->params.sem.value)
					val[i] = x->params.sem.value;
				if (x->opcode == DRM_NPU_OP_SEM_SIGNAL &&
				    rt_model_is_host_sem(m, v, i))
					val[i] = x->params.sem.value + 1;
				cut = !stopped && d->cut[p->first_task + pos[k]];
				pos[k]++;
			}
			if (pos[k] < p->num_tasks)
				left = true;
			if (pos[k] == from)
				continue;
			moved = true;
			memset(&j, 0, sizeof(j));
			j.program = ps->handles[k];
			j.first_task = from;
			j.num_tasks = pos[k] - from;
			j.bos = bos;
			j.num_bos = ps->num_slots[k];
			j.bindings = bind;
			j.num_bindings = m->num_sems;
			if (m->profiling) {
				j.profile_bo = m->profile_bo[k];
				j.profile_offset = (uint64_t)from *
					sizeof(struct drm_npu_task_profile);
			}
			j.timeline = true;
			j.model = m;
			j.model_stream = k;
			j.variant = v;
			j.exec = n;
			if (first) {
				j.waits[j.num_waits++] =
					(struct drm_npu_sem_point){
						m->done_sem, 0, n - 1 };
				j.take_event_waits = true;
				first = false;
			}
			pthread_mutex_lock(&s->lock);
			st = rt_stream_submit_locked(s, &j, NULL);
			pthread_mutex_unlock(&s->lock);
			if (!st)
				st = rt_stream_sync(s, func);
			/* names of what this piece wrote, for the inputs */
			for (uint32_t q = from; !st && q + 1 < pos[k]; q++) {
				const struct om_debug_tensor *dt;
				uint32_t c;

				dt = om_task_tensors(m->om, p->first_task + q,
						     &c);
				for (uint32_t e = 0; e < c; e++)
					note_loc(d, dt[e].slot, dt[e].offset,
						 om_string(m->om, dt[e].name));
			}
			if (st)
				break;
			ret = stopped ? 0 : dump_task(m, p->first_task +
						      pos[k] - 1, k,
						      pos[k] - 1, in, out);
			if (ret < 0)
				st = rt_fail(NPURT_ERR_NOMEM, func,
					     "free host memory",
					     "out of memory for a dump");
			else if (ret)
				stopped = true;
		}
		if (!st && left && !moved)
			st = rt_fail(NPURT_ERR_BAD_MODEL, func,
				     "recompile the model; if it persists, "
				     "report a compiler bug",
				     "variant %u: its streams wait for each "
				     "other (a semaphore wait no signal meets)",
				     v);
	}
	free(val);
	if (st)
		return st;
	for (uint32_t i = 0; i < m->nout; i++)
		if (!out[i].mem)
			memcpy(out[i].host, m->stage_map[m->nin + i],
			       om_get_io(m->om, v, OM_IO_OUTPUT,
					 i)->size_bytes);
	/* done = n, as a normal execution ends */
	memset(&j, 0, sizeof(j));
	j.program = m->ctx->nop_prog;
	j.signals[0] = (struct drm_npu_sem_point){ m->done_sem, 0, n };
	j.num_signals = 1;
	j.timeline = true;
	pthread_mutex_lock(&s->lock);
	st = rt_stream_submit_locked(s, &j, NULL);
	pthread_mutex_unlock(&s->lock);
	return st ? st : rt_stream_sync(s, func);
}
