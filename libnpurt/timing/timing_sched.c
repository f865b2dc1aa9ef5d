// SPDX-License-Identifier: MIT
/*
 * timing_sched.c - the discrete-event schedule of the timing model: the
 * streams of one variant run over the target's cores and units, ordered by
 * their semaphores, as the device's scheduler runs them (npu_timing.h).
 *
 * A list schedule in start-time order: among the streams whose next task
 * can start (a semaphore wait only once a completed signal has set the
 * value it waits for), the one that can start earliest goes first, on the
 * core whose unit of that kind frees first; ties go to the lower stream
 * and core, so the result is the same on every host. Starts never move
 * backwards, so a signal is always placed before any wait it releases.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "npu_timing.h"
#include "om.h"

/* A completed signal: semaphore value @value from cycle @time on. */
struct sem_set {
	uint64_t time;
	uint64_t value;
};

struct sem_history {
	struct sem_set *v;
	uint32_t n, cap;
};

struct stream_state {
	const struct drm_npu_task *tasks;
	uint32_t first;		/* global index of tasks[0] */
	uint32_t num;
	uint32_t next;
	uint64_t ready;		/* end of its previous task */
};

struct sched {
	const struct npu_timing_params *p;
	struct stream_state *streams;
	uint32_t num_streams;
	struct sem_history *sems;
	uint32_t num_sems;
	uint64_t *unit_free;	/* [core][unit], cycles */
};

/* When semaphore @sem first held at least @value, or false: not yet. */
static int sem_reached(const struct sem_history *h, uint64_t value,
		       uint64_t *time)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->v[i].value >= value) {
			*time = h->v[i].time;
			return 1;
		}
	return 0;
}

static int sem_record(struct sem_history *h, uint64_t time, uint64_t value)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? 2 * h->cap : 8;
		struct sem_set *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = (struct sem_set){ time, value };
	return 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * Where and when stream @s's next task could start: 0, or 1 when it waits
 * for a semaphore value no completed signal has set yet.
 */
static int earliest(const struct sched *sc, uint32_t s,
		    struct npu_timed_task *tt)
{
	const struct stream_state *st = &sc->streams[s];
	const struct drm_npu_task *t = &st->tasks[st->next];
	uint64_t best = UINT64_MAX, at;

	npu_timing_task_cost(t, sc->p, &tt->cost);
	tt->task = st->first + st->next;
	tt->stream = s;
	tt->core = UINT32_MAX;
	tt->start = st->ready;
	if (t->opcode == DRM_NPU_OP_SEM_WAIT) {
		if (!sem_reached(&sc->sems[t->params.sem.index],
				 t->params.sem.value, &at))
			return 1;
		tt->start = max_u64(st->ready, at);
	} else if (tt->cost.unit != NPU_UNIT_SCHED) {
		for (uint32_t c = 0; c < sc->p->cores; c++) {
			at = sc->unit_free[c * NPU_UNIT_COUNT + tt->cost.unit];
			if (at < best) {
				best = at;
				tt->core = c;
			}
		}
		tt->start = max_u64(st->ready, best);
	}
	tt->end = tt->start + tt->cost.cycles;
	return 0;
}

static int commit(struct sched *sc, struct npu_timing_report *r,
		  const struct npu_timed_task *tt)
{
	struct stream_state *st = &sc->streams[tt->stream];
	const struct drm_npu_task *t = &st->tasks[st->next];

	if (tt->core != UINT32_MAX)
		sc->unit_free[tt->core * NPU_UNIT_COUNT + tt->cost.unit] =
			tt->end;
	if (t->opcode == DRM_NPU_OP_SEM_SIGNAL &&
	    sem_record(&sc->sems[t->params.sem.index], tt->end,
		       t->params.sem.value))
		return -ENOMEM;
	st->ready = tt->end;
	st->next++;
	r->tasks[r->num_tasks++] = *tt;
	if (tt->cost.unit != NPU_UNIT_SCHED)
		r->busy[tt->cost.unit] += tt->cost.cycles;
	r->macs += tt->cost.macs;
	r->ops += tt->cost.ops;
	r->bytes += tt->cost.bytes;
	r->latency_cycles = max_u64(r->latency_cycles, tt->end);
	return 0;
}

static int deadlock(const struct sched *sc, char *err, size_t errlen)
{
	for (uint32_t s = 0; s < sc->num_streams; s++) {
		const struct stream_state *st = &sc->streams[s];
		const struct drm_npu_task *t;

		if (st->next == st->num)
			continue;
		t = &st->tasks[st->next];
		snprintf(err, errlen,
			 "stream %u task %u (global %u) waits for semaphore %u to reach %llu, which no task of the variant signals before it",
			 s, st->next, st->first + st->next, t->params.sem.index,
			 (unsigned long long)t->params.sem.value);
		break;
	}
	return -EDEADLK;
}

static int run_schedule(struct sched *sc, struct npu_timing_report *r,
			uint32_t total, char *err, size_t errlen)
{
	while (r->num_tasks < total) {
		struct npu_timed_task best = { 0 }, tt;
		int found = 0;

		for (uint32_t s = 0; s < sc->num_streams; s++) {
			if (sc->streams[s].next == sc->streams[s].num ||
			    earliest(sc, s, &tt))
				continue;
			if (!found || tt.start < best.start) {
				best = tt;
				found = 1;
			}
		}
		if (!found)
			return deadlock(sc, err, errlen);
		if (commit(sc, r, &best))
			return -ENOMEM;
	}
	return 0;
}

/* Cycles with a cube and a vector unit busy at once (a stream runs one
 * task at a time, so those are tasks of different streams). */
struct edge {
	uint64_t time;
	int unit;
	int delta;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->delta - y->delta;	/* ends before starts */
}

static int measure_overlap(struct npu_timing_report *r)
{
	struct edge *e = malloc(2 * (size_t)r->num_tasks * sizeof(*e) + 1);
	uint64_t active[2] = { 0, 0 }, prev = 0;
	size_t n = 0;

	if (!e)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->num_tasks; i++) {
		const struct npu_timed_task *t = &r->tasks[i];

		if (t->cost.unit > NPU_UNIT_VECTOR || t->end == t->start)
			continue;
		e[n++] = (struct edge){ t->start, (int)t->cost.unit, 1 };
		e[n++] = (struct edge){ t->end, (int)t->cost.unit, -1 };
	}
	qsort(e, n, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < n; i++) {
		if (active[0] && active[1])
			r->overlap_cycles += e[i].time - prev;
		prev = e[i].time;
		active[e[i].unit] += (uint64_t)(int64_t)e[i].delta;
	}
	free(e);
	return 0;
}

static int setup(struct sched *sc, const struct om_model *m,
		 uint32_t variant, char *err, size_t errlen, uint32_t *total)
{
	const struct om_variant_desc *v = om_get_variant(m, variant);

	if (!v) {
		snprintf(err, errlen, "the model has no variant %u", variant);
		return -EINVAL;
	}
	sc->num_streams = v->num_programs;
	sc->num_sems = om_num_semaphores(m);
	sc->streams = calloc(sc->num_streams + 1, sizeof(*sc->streams));
	sc->sems = calloc(sc->num_sems + 1, sizeof(*sc->sems));
	sc->unit_free = calloc((size_t)sc->p->cores * NPU_UNIT_COUNT,
			       sizeof(*sc->unit_free));
	if (!sc->streams || !sc->sems || !sc->unit_free)
		return -ENOMEM;
	*total = 0;
	for (uint32_t s = 0; s < sc->num_streams; s++) {
		const struct om_program_desc *pd = om_get_program(m, variant, s);
		struct stream_state *st = &sc->streams[s];

		if (!pd)
			continue;
		st->first = pd->first_task;
		st->num = pd->num_tasks;
		st->tasks = om_get_tasks(m, pd->first_task, pd->num_tasks);
		if (!st->tasks)
			return -EINVAL;
		for (uint32_t i = 0; i < st->num; i++) {
			const struct drm_npu_task *t = &st->tasks[i];

			if ((t->opcode == DRM_NPU_OP_SEM_WAIT ||
			     t->opcode == DRM_NPU_OP_SEM_SIGNAL) &&
			    t->params.sem.index >= sc->num_sems) {
				snprintf(err, errlen,
					 "task %u uses semaphore %u of the model's %u",
					 st->first + i, t->params.sem.index,
					 sc->num_sems);
				return -EINVAL;
			}
		}
		*total += st->num;
	}
	return 0;
}

static void teardown(struct sched *sc)
{
	for (uint32_t i = 0; sc->sems && i < sc->num_sems; i++)
		free(sc->sems[i].v);
	free(sc->sems);
	free(sc->streams);
	free(sc->unit_free);
}

int npu_timing_model(const struct om_model *m, uint32_t variant,
		     const struct npu_timing_params *p,
		     struct npu_timing_report *r, char *err, size_t errlen)
{
	struct sched sc = { .p = p };
	uint32_t total = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	r->params = *p;
	ret = setup(&sc, m, variant, err, errlen, &total);
	if (!ret) {
		r->tasks = calloc((size_t)total + 1, sizeof(*r->tasks));
		ret = r->tasks ? run_schedule(&sc, r, total, err, errlen) :
				 -ENOMEM;
	}
	if (!ret)
		ret = measure_overlap(r);
	teardown(&sc);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory modeling %u tasks", total);
	if (ret)
		npu_timing_report_free(r);
	return ret;
}

void npu_timing_report_free(struct npu_timing_report *r)
{
	free(r->tasks);
	r->tasks = NULL;
	r->num_tasks = 0;
}
