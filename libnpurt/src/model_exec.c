// SPDX-License-Identifier: MIT
/*
 * model_exec.c - one execution of a loaded model.
 *
 * Slots (Documentation/om-format.rst): 0 weights, 1 workspace, 2 + i input
 * i, 2 + num_inputs + j output j. A caller's device block is bound directly
 * (its programs re-registered once with the block's offset when it is not
 * at offset 0 of its segment); host memory goes through the model's staging
 * buffers, copied in stream order by the stream's host worker.
 *
 * Execution n of a model on stream S:
 *   [host copies in]   wait done >= n - 1 (staging and workspace free)
 *   model stream k>0   on the model's queue k: wait S's timeline (all work
 *                      before) and done >= n - 1; set aux[k] = n at the end
 *   model stream 0     on S's queue, next timeline value, waits the same
 *   join (NOP)         on S's queue: waits aux[k] >= n; sets done = n
 *   [host copies out]  then done = n is set by the last copy instead
 * Model semaphore k is bound with base (n - 1) * increment[k], so the same
 * registered programs run again and again on a growing timeline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

npurt_status rt_progset_create(npurt_model *m, uint32_t variant,
			       const uint64_t *io_offsets,
			       struct rt_progset *ps, const char *func);

/* Programs for these I/O offsets: cached, LRU-replaced (model lock held). */
static npurt_status get_progset(npurt_model *m, uint32_t v,
				const uint64_t *offs, struct rt_progset **out,
				const char *func)
{
	struct rt_variant *rv = &m->variants[v];
	struct rt_progset *victim = NULL;
	npurt_status st;

	for (uint32_t i = 0; i < rv->num_sets; i++)
		if (!memcmp(rv->sets[i].io_offsets, offs,
			    m->nio * sizeof(*offs))) {
			rv->sets[i].last_use = ++m->use_counter;
			*out = &rv->sets[i];
			return NPURT_OK;
		}
	if (rv->num_sets < RT_PROG_CACHE) {
		victim = &rv->sets[rv->num_sets];
	} else {
		/* Never evict set 0 (offsets 0); wait for the model first. */
		struct drm_npu_program_destroy pd;

		victim = &rv->sets[1];
		for (uint32_t i = 2; i < rv->num_sets; i++)
			if (rv->sets[i].last_use < victim->last_use)
				victim = &rv->sets[i];
		rt_sem_wait(m->ctx, m->done_sem, m->exec_count);
		for (uint32_t s = 0; s < rv->num_streams; s++) {
			memset(&pd, 0, sizeof(pd));
			pd.handle = victim->handles[s];
			npu_dev_ioctl(m->ctx->nd, DRM_IOCTL_NPU_PROGRAM_DESTROY,
				      &pd);
			free(victim->slot_need[s]);
		}
		free(victim->io_offsets);
		rv->num_sets--;
		*victim = rv->sets[rv->num_sets];
		victim = &rv->sets[rv->num_sets];
	}
	st = rt_progset_create(m, v, offs, victim, func);
	if (st)
		return st;
	rv->num_sets++;
	*out = victim;
	return NPURT_OK;
}

static npurt_status check_io(npurt_model *m, uint32_t v, const npurt_io *io,
			     uint32_t n, enum om_io_kind kind,
			     const char *func)
{
	uint32_t want = kind == OM_IO_INPUT ? m->nin : m->nout;
	const char *what = kind == OM_IO_INPUT ? "input" : "output";

	if (n != want || (n && !io))
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass one npurt_io per model I/O (npurt_model_"
			       "get_info)", "%u %ss given; model \"%s\" has %u",
			       n, what, m->name, want);
	for (uint32_t i = 0; i < n; i++) {
		const struct om_tensor_desc *t = om_get_io(m->om, v, kind, i);
		char shape[128] = "";
		size_t used = 0;

		for (uint32_t k = 0; k < t->rank && used < sizeof(shape); k++)
			used += (size_t)snprintf(shape + used,
						 sizeof(shape) - used, "%s%llu",
						 k ? "," : "",
						 (unsigned long long)t->dims[k]);
		if (!io[i].mem && !io[i].host)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "set .mem (device) or .host",
				       "%s %u (\"%s\") has no buffer", what, i,
				       om_string(m->om, t->name));
		if (io[i].size < t->size_bytes)
			return rt_fail(NPURT_ERR_SHAPE, func,
				       "pass a buffer of the tensor's size, or "
				       "select the variant of your shape",
				       "%s \"%s\": %zu bytes given; expected "
				       "%llu (%s [%s] in variant \"%s\")", what,
				       om_string(m->om, t->name), io[i].size,
				       (unsigned long long)t->size_bytes,
				       om_dtype_name(t->dtype), shape,
				       om_string(m->om,
						 om_get_variant(m->om, v)->name));
		if (io[i].mem &&
		    (io[i].offset > io[i].mem->block->requested ||
		     io[i].size > io[i].mem->block->requested - io[i].offset))
			return rt_fail(NPURT_ERR_INVALID, func,
				       "keep the I/O range inside its block",
				       "%s \"%s\": [%zu, +%zu) outside the "
				       "%llu-byte device block", what,
				       om_string(m->om, t->name), io[i].offset,
				       io[i].size,
				       (unsigned long long)
					       io[i].mem->block->requested);
		if (io[i].mem && io[i].mem->ctx != m->ctx)
			return rt_fail(NPURT_ERR_INVALID, func,
				       "use blocks of the model's context",
				       "%s \"%s\": block of another context",
				       what, om_string(m->om, t->name));
	}
	return NPURT_OK;
}

struct exec_plan {
	uint32_t v, streams;
	uint64_t n;
	struct rt_progset *ps;
	uint32_t bos[DRM_NPU_MAX_SLOTS];
	struct drm_npu_sem_point bind[DRM_NPU_MAX_SEM_POINTS];
	bool host_out;
};

static npurt_status queue_host_copy(npurt_stream *s, void *dst,
				    const void *src, size_t size,
				    uint32_t wait_sem, uint64_t wait_value,
				    uint32_t post_sem, uint64_t post_value,
				    const char *func)
{
	struct rt_host_op *op = calloc(1, sizeof(*op));

	if (!op)
		return rt_fail(NPURT_ERR_NOMEM, func, "free host memory",
			       "out of memory");
	op->dst = dst;
	op->src = src;
	op->size = size;
	op->fill = -1;
	op->extra_sem = wait_sem;
	op->extra_value = wait_value;
	op->post_sem = post_sem;
	op->post_value = post_value;
	return rt_stream_host_op_locked(s, op);
}

/*
 * The model's streams merged onto fewer lanes (model.c build_schedule()):
 * the segments in their global order, each on its lane's queue - lane 0 on
 * S's queue with the timeline, lane k > 0 on the model's queue k, its first
 * segment waiting like an aux stream's job and its last setting aux[k].
 * Model stream lock and stream lock held.
 */
static npurt_status submit_lanes_locked(npurt_model *m, struct exec_plan *p,
					npurt_stream *s, const char *func)
{
	const struct rt_variant *rv = &m->variants[p->v];
	uint32_t first[RT_MAX_STREAMS], last[RT_MAX_STREAMS];
	uint64_t before = s->seq;
	bool aux_used = false;
	npurt_status st;
	struct rt_submit j;

	for (uint32_t l = 0; l < m->num_lanes; l++)
		first[l] = last[l] = UINT32_MAX;
	for (uint32_t i = 0; i < rv->num_pieces; i++) {
		uint32_t l = rv->pieces[i].lane;

		if (first[l] == UINT32_MAX)
			first[l] = i;
		last[l] = i;
		aux_used |= l > 0;
	}
	for (uint32_t i = 0; i < rv->num_pieces; i++) {
		const struct rt_piece *g = &rv->pieces[i];

		memset(&j, 0, sizeof(j));
		j.program = p->ps->handles[g->stream];
		j.first_task = g->first;
		j.num_tasks = g->count;
		j.bos = p->bos;
		j.num_bos = p->ps->num_slots[g->stream];
		j.bindings = p->bind;
		j.num_bindings = m->num_sems;
		if (m->profiling) {
			j.profile_bo = m->profile_bo[g->stream];
			j.profile_offset = (uint64_t)g->first *
				sizeof(struct drm_npu_task_profile);
		}
		j.model = m;
		j.model_stream = g->stream;
		j.variant = p->v;
		j.exec = p->n;
		if (g->lane == 0) {
			j.timeline = true;
			if (i == first[0]) {
				j.waits[j.num_waits++] = (struct drm_npu_sem_point){
					m->done_sem, 0, p->n - 1 };
				j.take_event_waits = true;
			}
			if (i == last[0] && !aux_used && !p->host_out)
				j.signals[j.num_signals++] =
					(struct drm_npu_sem_point){
						m->done_sem, 0, p->n };
		} else {
			j.queue = m->aux_queue[g->lane];
			if (i == first[g->lane]) {
				j.waits[j.num_waits++] = (struct drm_npu_sem_point){
					s->sem, 0, before };
				j.waits[j.num_waits++] = (struct drm_npu_sem_point){
					m->done_sem, 0, p->n - 1 };
				for (uint32_t w = 0; w < s->num_waits; w++)
					j.waits[j.num_waits++] = s->waits[w];
			}
			if (i == last[g->lane])
				j.signals[j.num_signals++] =
					(struct drm_npu_sem_point){
						m->aux_sem[g->lane], 0, p->n };
		}
		st = rt_stream_submit_locked(s, &j, NULL);
		if (st)
			return st;
	}
	if (!aux_used)
		return NPURT_OK;
	memset(&j, 0, sizeof(j));
	j.program = m->ctx->nop_prog;
	for (uint32_t l = 1; l < m->num_lanes; l++)
		if (first[l] != UINT32_MAX)
			j.waits[j.num_waits++] = (struct drm_npu_sem_point){
				m->aux_sem[l], 0, p->n };
	if (!p->host_out) {
		j.signals[0] = (struct drm_npu_sem_point){ m->done_sem, 0,
							   p->n };
		j.num_signals = 1;
	}
	j.timeline = true;
	(void)func;
	return rt_stream_submit_locked(s, &j, NULL);
}

/* Model lock and stream lock held. */
static npurt_status submit_locked(npurt_model *m, struct exec_plan *p,
				  const npurt_io *in, const npurt_io *out,
				  npurt_stream *s, const char *func)
{
	uint64_t before, last_out = UINT32_MAX;
	npurt_status st;
	struct rt_submit j;

	for (uint32_t i = 0; i < m->nin; i++) {
		if (in[i].mem)
			continue;
		size_t size = om_get_io(m->om, p->v, OM_IO_INPUT,
					i)->size_bytes;

		st = queue_host_copy(s, m->stage_map[i], in[i].host, size,
				     m->done_sem, p->n - 1, 0, 0, func);
		if (st)
			return st;
		rt_count_copy(m->ctx, true, size);
	}
	if (m->variants[p->v].pieces) {
		st = submit_lanes_locked(m, p, s, func);
		if (st)
			return st;
		goto copies_out;
	}
	before = s->seq;
	for (uint32_t k = 1; k < p->streams; k++) {
		memset(&j, 0, sizeof(j));
		j.queue = m->aux_queue[k];
		j.program = p->ps->handles[k];
		j.bos = p->bos;
		j.num_bos = p->ps->num_slots[k];
		j.waits[0] = (struct drm_npu_sem_point){ s->sem, 0, before };
		j.waits[1] = (struct drm_npu_sem_point){ m->done_sem, 0,
							 p->n - 1 };
		j.num_waits = 2;
		for (uint32_t w = 0; w < s->num_waits; w++)
			j.waits[j.num_waits++] = s->waits[w];
		j.signals[0] = (struct drm_npu_sem_point){ m->aux_sem[k], 0,
							   p->n };
		j.num_signals = 1;
		j.bindings = p->bind;
		j.num_bindings = m->num_sems;
		j.profile_bo = m->profiling ? m->profile_bo[k] : 0;
		j.model = m;
		j.model_stream = k;
		j.variant = p->v;
		j.exec = p->n;
		st = rt_stream_submit_locked(s, &j, NULL);
		if (st)
			return st;
	}
	memset(&j, 0, sizeof(j));
	j.program = p->ps->handles[0];
	j.bos = p->bos;
	j.num_bos = p->ps->num_slots[0];
	j.waits[0] = (struct drm_npu_sem_point){ m->done_sem, 0, p->n - 1 };
	j.num_waits = 1;
	if (p->streams == 1 && !p->host_out) {
		j.signals[0] = (struct drm_npu_sem_point){ m->done_sem, 0,
							   p->n };
		j.num_signals = 1;
	}
	j.bindings = p->bind;
	j.num_bindings = m->num_sems;
	j.profile_bo = m->profiling ? m->profile_bo[0] : 0;
	j.timeline = true;
	j.take_event_waits = true;
	j.model = m;
	j.variant = p->v;
	j.exec = p->n;
	st = rt_stream_submit_locked(s, &j, NULL);
	if (st)
		return st;
	if (p->streams > 1) {
		memset(&j, 0, sizeof(j));
		j.program = m->ctx->nop_prog;
		for (uint32_t k = 1; k < p->streams; k++)
			j.waits[j.num_waits++] = (struct drm_npu_sem_point){
				m->aux_sem[k], 0, p->n };
		if (!p->host_out) {
			j.signals[0] = (struct drm_npu_sem_point){
				m->done_sem, 0, p->n };
			j.num_signals = 1;
		}
		j.timeline = true;
		st = rt_stream_submit_locked(s, &j, NULL);
		if (st)
			return st;
	}
copies_out:
	for (uint32_t i = 0; i < m->nout; i++)
		if (!out[i].mem)
			last_out = i;
	for (uint32_t i = 0; i < m->nout; i++) {
		if (out[i].mem)
			continue;
		size_t size = om_get_io(m->om, p->v, OM_IO_OUTPUT,
					i)->size_bytes;

		st = queue_host_copy(s, out[i].host, m->stage_map[m->nin + i],
				     size, 0, 0, i == last_out ? m->done_sem : 0,
				     p->n, func);
		if (st)
			return st;
		rt_count_copy(m->ctx, false, size);
	}
	return NPURT_OK;
}

npurt_status rt_model_execute(npurt_model *m, const npurt_io *in,
			      uint32_t nin, const npurt_io *out, uint32_t nout,
			      npurt_stream *s, const char *func)
{
	if (m && s && m->online)
		return rt_online_execute(m, in, nin, out, nout, s, func);
	return rt_model_execute_plain(m, in, nin, out, nout, s, func);
}

npurt_status rt_model_execute_plain(npurt_model *m, const npurt_io *in,
				    uint32_t nin, const npurt_io *out,
				    uint32_t nout, npurt_stream *s,
				    const char *func)
{
	struct exec_plan p;
	uint64_t offs[DRM_NPU_MAX_SLOTS];
	npurt_status st;

	if (!m || !s)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "pass a model and a stream", "bad arguments");
	if (s->ctx != m->ctx)
		return rt_fail(NPURT_ERR_INVALID, func,
			       "use a stream of the model's context",
			       "stream and model of different contexts");
	st = rt_stream_check_fault(s, func);
	if (st)
		return st;
	memset(&p, 0, sizeof(p));
	pthread_mutex_lock(&m->lock);
	p.v = m->current_variant;
	p.streams = m->variants[p.v].num_streams;
	st = check_io(m, p.v, in, nin, OM_IO_INPUT, func);
	if (!st)
		st = check_io(m, p.v, out, nout, OM_IO_OUTPUT, func);
	if (st)
		goto out;
	p.bos[OM_SLOT_WEIGHTS] = m->weights_bo;
	p.bos[OM_SLOT_WORKSPACE] = m->workspace_bo;
	for (uint32_t i = 0; i < m->nio; i++) {
		const npurt_io *io = i < m->nin ? &in[i] : &out[i - m->nin];

		offs[i] = io->mem ? io->mem->block->offset + io->offset : 0;
		p.bos[OM_SLOT_IO_BASE + i] = io->mem ?
			(uint32_t)io->mem->block->seg : m->stage_bo[i];
		p.host_out |= i >= m->nin && !io->mem;
	}
	st = get_progset(m, p.v, offs, &p.ps, func);
	if (st)
		goto out;
	p.n = m->exec_count + 1;
	for (uint32_t k = 0; k < m->num_sems; k++) {
		p.bind[k].handle = m->sems[k];
		p.bind[k].value = (p.n - 1) *
				  om_get_semaphore(m->om, k)->increment;
	}
	/* Device blocks are in use by this stream until it gets here. */
	pthread_mutex_lock(&m->ctx->lock);
	for (uint32_t i = 0; i < m->nio; i++) {
		const npurt_io *io = i < m->nin ? &in[i] : &out[i - m->nin];

		if (io->mem)
			rt_mem_record_stream(m->ctx, io->mem, s->id);
	}
	pthread_mutex_unlock(&m->ctx->lock);
	/* Host tasks first: a dump waits for pieces that include them. */
	st = rt_host_engine_queue(m, p.v, p.n, in, out, s, func);
	if (st)
		goto out;
	if (m->dump) {
		st = rt_dump_execute(m, p.v, p.n, p.ps, p.bos, p.bind, in, out,
				     s, func);
	} else {
		pthread_mutex_lock(&s->lock);
		st = submit_locked(m, &p, in, out, s, func);
		pthread_mutex_unlock(&s->lock);
	}
	if (st)
		rt_host_engine_cancel(m, p.n);
	if (!st) {
		m->exec_count = p.n;
		m->profiled_variant = p.v;
		m->profile_valid = m->profiling;
	}
out:
	pthread_mutex_unlock(&m->lock);
	if (!st && rt_launch_blocking())
		st = rt_stream_sync(s, func);
	return st;
}

NPURT_API npurt_status npurt_model_execute_async(npurt_model *model,
						 const npurt_io *inputs,
						 uint32_t num_inputs,
						 const npurt_io *outputs,
						 uint32_t num_outputs,
						 npurt_stream *stream)
{
	if (model && rt_pad_active(model))
		return RT_FAIL(NPURT_ERR_UNSUPPORTED,
			       "use npurt_model_execute, or select a gear's exact shape",
			       "model \"%s\": the selected shape is padded to a gear, and the crop of its outputs needs a synchronous execution",
			       model->name);
	return rt_model_execute(model, inputs, num_inputs, outputs,
				num_outputs, stream, __func__);
}
