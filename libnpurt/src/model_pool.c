// SPDX-License-Identifier: MIT
/*
 * model_pool.c - several executions of one loaded model at once.
 *
 * An execution context is a model of its own for everything an execution
 * writes - workspace, I/O staging, the "done" and model semaphores, the
 * queues of its streams, its registered programs, its stream and its
 * selected variant - that borrows its model's .om (host bytes) and
 * weights (device memory): the weights are uploaded once, whatever the
 * number of contexts. Contexts share nothing an execution modifies, so
 * their executions run at once on the device's AI cores without locks
 * between them.
 *
 * npurt_model_execute() takes a context from the model's pool: the model
 * itself when it is free, else an idle context, else a new one while the
 * pool is below its size (npurt_model_set_max_executions(), default the
 * device's AI cores or $NPURT_MODEL_EXECUTIONS), else it waits for one.
 * npurt_exec_create() gives the caller a context of its own (one per
 * server thread), with its own variant selection.
 * Documentation/runtime.rst ("Concurrent executions").
 */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

void rt_model_pool_free(npurt_model *m)
{
	struct npurt_exec *e, *next;

	pthread_mutex_lock(&m->pool_lock);
	e = m->execs;
	m->execs = NULL;
	pthread_mutex_unlock(&m->pool_lock);
	for (; e; e = next) {
		next = e->next;
		npurt_model_unload(e->m);
		free(e);
	}
	for (uint32_t i = 0; i < m->pool_count; i++)
		npurt_model_unload(m->pool[i]);
	m->pool_count = 0;
}

/* npurt_model_execute() on one context, on its own stream. */
static npurt_status execute_sync(npurt_model *m, const npurt_io *in,
				 uint32_t nin, const npurt_io *out,
				 uint32_t nout, const char *func)
{
	npurt_status st;

	/* The model's own stream, created on first use. */
	pthread_mutex_lock(&m->lock);
	st = NPURT_OK;
	if (!m->stream) {
		st = rt_stream_create(m->ctx, NPURT_PRIORITY_NORMAL,
				      &m->stream);
		if (!st)
			m->held_sems++;
	}
	pthread_mutex_unlock(&m->lock);
	if (st)
		return st;
	st = rt_model_execute(m, in, nin, out, nout, m->stream, func);
	if (!st)
		st = rt_stream_sync(m->stream, func);
	if (st == NPURT_ERR_DEVICE_FAULT)
		/* The caller has no handle on the internal stream. */
		npurt_stream_clear_error(m->stream);
	return st;
}

/*
 * A free context of @model (pool lock not held): the model itself, an
 * idle one, a new one, or the first to become idle. *slot: -1 for the
 * model, else the pool index.
 */
static npurt_model *pool_get(npurt_model *model, int *slot,
			     const char *func)
{
	npurt_model *c;
	npurt_status st;

	pthread_mutex_lock(&model->pool_lock);
	for (;;) {
		if (!model->self_busy) {
			model->self_busy = true;
			*slot = -1;
			c = model;
			break;
		}
		c = NULL;
		for (uint32_t i = 0; i < model->pool_count &&
				     i + 1 < model->pool_max; i++)
			if (!model->pool_busy[i]) {
				model->pool_busy[i] = true;
				*slot = (int)i;
				c = model->pool[i];
				break;
			}
		if (c)
			break;
		if (!model->pool_growing &&
		    model->pool_count + 1 < model->pool_max) {
			model->pool_growing = true;
			pthread_mutex_unlock(&model->pool_lock);
			st = rt_model_clone(model, &c, func);
			pthread_mutex_lock(&model->pool_lock);
			model->pool_growing = false;
			if (!st) {
				*slot = (int)model->pool_count;
				model->pool[model->pool_count] = c;
				model->pool_busy[model->pool_count++] = true;
				break;
			}
			/* Out of device memory, queues or semaphores: the
			 * contexts there are serve everyone. */
			rt_log("model \"%s\": %u execution contexts (%s)",
			       model->name, model->pool_count + 1,
			       npurt_last_error()->reason);
			npurt_clear_error();
			model->pool_max = model->pool_count + 1;
			pthread_cond_broadcast(&model->pool_cond);
			continue;
		}
		pthread_cond_wait(&model->pool_cond, &model->pool_lock);
	}
	pthread_mutex_unlock(&model->pool_lock);
	return c;
}

static void pool_put(npurt_model *model, int slot)
{
	pthread_mutex_lock(&model->pool_lock);
	if (slot < 0)
		model->self_busy = false;
	else
		model->pool_busy[slot] = false;
	pthread_cond_signal(&model->pool_cond);
	pthread_mutex_unlock(&model->pool_lock);
}

/*
 * An execution in @v, or in the current selection (@v == UINT32_MAX), on a
 * context of the pool.
 */
static npurt_status execute_pooled(npurt_model *model, uint32_t v,
				   const npurt_io *inputs,
				   uint32_t num_inputs,
				   const npurt_io *outputs,
				   uint32_t num_outputs, const char *func)
{
	npurt_model *c;
	npurt_status st;
	int slot;

	/*
	 * One execution at a time where the state is the model's: shapes
	 * compiled online, dumps, profiles (their records are the model's),
	 * the caches' models, and outputs whose extent the data decides (the
	 * extent is read from the model's own workspace).
	 */
	if (model->online || model->dump || model->profiling ||
	    model->internal || model->pool_max <= 1 ||
	    om_num_counts(model->om))
		return execute_sync(model, inputs, num_inputs, outputs,
				    num_outputs, func);
	c = pool_get(model, &slot, func);
	if (c != model) {
		if (v == UINT32_MAX) {
			pthread_mutex_lock(&model->lock);
			v = model->current_variant;
			pthread_mutex_unlock(&model->lock);
		}
		pthread_mutex_lock(&c->lock);
		c->current_variant = v;
		pthread_mutex_unlock(&c->lock);
	}
	st = execute_sync(c, inputs, num_inputs, outputs, num_outputs, func);
	pool_put(model, slot);
	return st;
}

NPURT_API npurt_status npurt_model_execute(npurt_model *model,
					   const npurt_io *inputs,
					   uint32_t num_inputs,
					   const npurt_io *outputs,
					   uint32_t num_outputs)
{
	if (!model)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model",
			       "model is NULL");
	if (rt_pad_active(model))
		return rt_pad_execute(model, inputs, num_inputs, outputs,
				      num_outputs, execute_pooled, __func__);
	return execute_pooled(model, UINT32_MAX, inputs, num_inputs, outputs,
			      num_outputs, __func__);
}

NPURT_API npurt_status npurt_model_set_max_executions(npurt_model *model,
						      uint32_t max)
{
	if (!model || !max || max > RT_MAX_POOL)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a model and 1 <= max <= 64",
			       "model %p, max %u", (void *)model, max);
	if (model->parent || model->internal)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a loaded model",
			       "an internal model or execution context");
	pthread_mutex_lock(&model->pool_lock);
	/* Contexts beyond @max stay loaded but are no longer handed out. */
	model->pool_max = max;
	pthread_cond_broadcast(&model->pool_cond);
	pthread_mutex_unlock(&model->pool_lock);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_exec_create(npurt_model *model,
					 npurt_exec **exec)
{
	struct npurt_exec *e;
	npurt_status st;

	if (!model || !exec)
		return RT_FAIL(NPURT_ERR_INVALID,
			       "pass a model and a pointer", "bad arguments");
	*exec = NULL;
	if (model->parent || model->internal)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a loaded model",
			       "an internal model or execution context");
	if (model->online)
		return RT_FAIL(NPURT_ERR_UNSUPPORTED,
			       "compile the model with npuc and load the .om "
			       "for concurrent executions",
			       "model \"%s\" was loaded from ONNX: its shapes "
			       "compiled online are the model's state",
			       model->name);
	e = calloc(1, sizeof(*e));
	if (!e)
		return RT_FAIL(NPURT_ERR_NOMEM, "free host memory",
			       "out of memory");
	st = rt_model_clone(model, &e->m, __func__);
	if (st) {
		free(e);
		return st;
	}
	e->parent = model;
	pthread_mutex_lock(&model->pool_lock);
	e->next = model->execs;
	model->execs = e;
	pthread_mutex_unlock(&model->pool_lock);
	*exec = e;
	return NPURT_OK;
}

NPURT_API npurt_status npurt_exec_destroy(npurt_exec *exec)
{
	struct npurt_exec **pp;
	npurt_model *model;

	if (!exec)
		return NPURT_OK;
	model = exec->parent;
	pthread_mutex_lock(&model->pool_lock);
	for (pp = &model->execs; *pp && *pp != exec; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = exec->next;
	pthread_mutex_unlock(&model->pool_lock);
	npurt_model_unload(exec->m);
	free(exec);
	return NPURT_OK;
}

NPURT_API npurt_status npurt_exec_run(npurt_exec *exec,
				      const npurt_io *inputs,
				      uint32_t num_inputs,
				      const npurt_io *outputs,
				      uint32_t num_outputs)
{
	if (!exec)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an execution context",
			       "exec is NULL");
	return execute_sync(exec->m, inputs, num_inputs, outputs,
			    num_outputs, __func__);
}

NPURT_API npurt_status npurt_exec_run_async(npurt_exec *exec,
					    const npurt_io *inputs,
					    uint32_t num_inputs,
					    const npurt_io *outputs,
					    uint32_t num_outputs,
					    npurt_stream *stream)
{
	if (!exec)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an execution context",
			       "exec is NULL");
	return rt_model_execute(exec->m, inputs, num_inputs, outputs,
				num_outputs, stream, __func__);
}

NPURT_API npurt_status npurt_exec_select_variant(npurt_exec *exec,
						 uint32_t index)
{
	if (!exec)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an execution context",
			       "exec is NULL");
	return npurt_model_select_variant(exec->m, index);
}

NPURT_API npurt_status npurt_exec_select_shapes(npurt_exec *exec,
						const uint64_t *const *shapes)
{
	if (!exec)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an execution context",
			       "exec is NULL");
	return npurt_model_select_shapes(exec->m, shapes);
}

NPURT_API npurt_status npurt_exec_get_input(npurt_exec *exec, uint32_t index,
					    npurt_tensor_desc *desc)
{
	if (!exec)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an execution context",
			       "exec is NULL");
	return npurt_model_get_input(exec->m, index, 0, desc);
}

NPURT_API npurt_status npurt_exec_get_output(npurt_exec *exec,
					     uint32_t index,
					     npurt_tensor_desc *desc)
{
	if (!exec)
		return RT_FAIL(NPURT_ERR_INVALID, "pass an execution context",
			       "exec is NULL");
	return npurt_model_get_output(exec->m, index, 0, desc);
}

NPURT_API npurt_status npurt_model_get_executions(npurt_model *model,
						  uint32_t *contexts,
						  uint32_t *max)
{
	if (!model)
		return RT_FAIL(NPURT_ERR_INVALID, "pass a model",
			       "model is NULL");
	pthread_mutex_lock(&model->pool_lock);
	if (contexts)
		*contexts = model->pool_count + 1;
	if (max)
		*max = model->pool_max;
	pthread_mutex_unlock(&model->pool_lock);
	return NPURT_OK;
}
