// SPDX-License-Identifier: MIT
/*
 * verify.c - the independent checker of memory plans.
 *
 * Deliberately shares nothing with the planners (no prepared context, no
 * footprints): it works from the problem as given, finds the pairs of
 * buffers whose lifetimes intersect by its own sweep, adds the explicit
 * pairs, and checks that the byte ranges [offset, offset + size) of every
 * such pair are disjoint, that offsets are aligned and that the claimed
 * arena holds every buffer.
 *
 * mp_verify_tasks() checks the tasks as lowered (see memplan.h): every
 * read sees the value it means, whatever the planners and the in-place
 * decisions of the lowering did.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan.h"

static const struct mp_buffer *vb;

static int by_lower(const void *pa, const void *pb)
{
	const struct mp_buffer *a = &vb[*(const size_t *)pa];
	const struct mp_buffer *b = &vb[*(const size_t *)pb];

	return (a->lower > b->lower) - (a->lower < b->lower);
}

static bool live(const struct mp_buffer *b)
{
	return b->size > 0 && b->upper > b->lower;
}

static bool space_overlap(const struct mp_buffer *a, int64_t oa,
			  const struct mp_buffer *b, int64_t ob)
{
	return oa < ob + b->size && ob < oa + a->size;
}

static int report(char *err, size_t errlen, const struct mp_problem *p,
		  const int64_t *off, size_t i, size_t j, const char *why)
{
	const struct mp_buffer *a = &p->buffers[i], *b = &p->buffers[j];

	if (err)
		snprintf(err, errlen,
			 "buffers %zu [%lld,%lld) at %lld+%lld and %zu [%lld,%lld) at %lld+%lld overlap in space (%s)",
			 i, (long long)a->lower, (long long)a->upper,
			 (long long)off[i], (long long)a->size, j,
			 (long long)b->lower, (long long)b->upper,
			 (long long)off[j], (long long)b->size, why);
	return -1;
}

int mp_verify(const struct mp_problem *p, const int64_t *offsets,
	      int64_t arena, char *err, size_t errlen)
{
	size_t n = p->num_buffers;
	size_t *order;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct mp_buffer *b = &p->buffers[i];
		int64_t a = b->align > 1 ? b->align : 1;

		if (offsets[i] < 0 || offsets[i] % a) {
			if (err)
				snprintf(err, errlen,
					 "buffer %zu: offset %lld is negative or not a multiple of %lld",
					 i, (long long)offsets[i], (long long)a);
			return -1;
		}
		if (live(b) && offsets[i] + b->size > arena) {
			if (err)
				snprintf(err, errlen,
					 "buffer %zu ends at %lld, beyond the arena of %lld bytes",
					 i, (long long)(offsets[i] + b->size),
					 (long long)arena);
			return -1;
		}
	}
	for (size_t k = 0; k < p->num_pairs; k++) {
		size_t i = p->pairs[k][0], j = p->pairs[k][1];

		if (i >= n || j >= n) {
			if (err)
				snprintf(err, errlen, "pair %zu out of range", k);
			return -1;
		}
		if (i != j && live(&p->buffers[i]) && live(&p->buffers[j]) &&
		    space_overlap(&p->buffers[i], offsets[i], &p->buffers[j],
				  offsets[j]))
			return report(err, errlen, p, offsets, i, j,
				      "they may be live together on different streams");
	}
	order = malloc((n + 1) * sizeof(*order));
	if (!order) {
		if (err)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	vb = p->buffers;
	qsort(order, n, sizeof(*order), by_lower);
	/* Every pair whose lifetimes intersect: for each buffer, those born
	 * after it and before it dies. */
	for (size_t x = 0; x < n && !ret; x++) {
		const struct mp_buffer *a = &p->buffers[order[x]];

		if (!live(a))
			continue;
		for (size_t y = x + 1; y < n; y++) {
			const struct mp_buffer *b = &p->buffers[order[y]];

			if (b->lower >= a->upper)
				break;
			if (!live(b))
				continue;
			if (space_overlap(a, offsets[order[x]], b,
					  offsets[order[y]])) {
				ret = report(err, errlen, p, offsets, order[x],
					     order[y], "their lifetimes intersect");
				break;
			}
		}
	}
	free(order);
	return ret;
}

/* --- task level ------------------------------------------------------------ */

struct tv {
	const struct mp_task_problem *p;
	uint32_t ns;		/* streams */
	uint32_t *pos;		/* per task: position in its stream */
	uint32_t *vc;		/* per task: ns entries, tasks of each stream
				 * that happen before it or are it */
};

/* Does task @a finish before task @b starts? */
static bool tv_hb(const struct tv *v, size_t a, size_t b)
{
	uint32_t s = v->p->tasks[a].stream;

	return a != b && v->vc[b * v->ns + s] >= v->pos[a] + 1;
}

static bool tv_overlap(const struct mp_access *a, const struct mp_access *b)
{
	return a->space == b->space && a->begin < b->end &&
	       b->begin < a->end && a->begin < a->end && b->begin < b->end;
}

/*
 * The signal that satisfies wait @w: of the signals of its semaphore, the
 * one of the smallest value >= the wait's (semaphores only rise, and
 * tv_chains() proves the signals of one semaphore run in value order, so
 * that is the one the wait passes on in every run). SIZE_MAX for a wait
 * of value 0 (satisfied at once); n when no signal can satisfy it.
 */
static size_t tv_satisfier(const struct mp_task_problem *p, size_t w)
{
	const struct mp_task *k = &p->tasks[w];
	size_t best = p->num_tasks;

	if (!k->value)
		return SIZE_MAX;
	for (size_t t = 0; t < p->num_tasks; t++) {
		const struct mp_task *g = &p->tasks[t];

		if (g->kind == MP_TASK_SIGNAL && g->sem == k->sem &&
		    g->value >= k->value &&
		    (best == p->num_tasks || g->value < p->tasks[best].value))
			best = t;
	}
	return best;
}

/* Vector clocks by running the programs; -1 with @err on a deadlock. */
static int tv_clocks(struct tv *v, size_t *bad_task, char *err,
		     size_t errlen)
{
	const struct mp_task_problem *p = v->p;
	size_t n = p->num_tasks, done = 0;
	size_t *next = NULL, *last = NULL, *sat = NULL;
	bool *ran = NULL;
	int ret = -ENOMEM;

	for (size_t t = 0; t < n; t++)
		if (p->tasks[t].stream + 1 > v->ns)
			v->ns = p->tasks[t].stream + 1;
	if (v->ns > 4096) {
		if (err)
			snprintf(err, errlen, "%u streams out of range", v->ns);
		return -1;
	}
	v->pos = calloc(n + 1, sizeof(*v->pos));
	v->vc = calloc(n * v->ns + 1, sizeof(*v->vc));
	next = calloc(v->ns + 1, sizeof(*next));	/* next task to run */
	last = calloc(v->ns + 1, sizeof(*last));	/* ran so far */
	sat = calloc(n + 1, sizeof(*sat));
	ran = calloc(n + 1, sizeof(*ran));
	if (!v->pos || !v->vc || !next || !last || !sat || !ran)
		goto out;
	for (size_t t = 0; t < n; t++)
		if (p->tasks[t].kind == MP_TASK_WAIT)
			sat[t] = tv_satisfier(p, t);
	/* Each stream: a cursor over the task array; run what can run. */
	for (bool progress = true; progress;) {
		progress = false;
		for (uint32_t s = 0; s < v->ns; s++) {
			size_t t;

			for (t = next[s]; t < n; t++) {
				const struct mp_task *k = &p->tasks[t];
				uint32_t *c = &v->vc[t * v->ns];
				bool joins = k->kind == MP_TASK_WAIT &&
					     sat[t] != SIZE_MAX;

				if (k->stream != s)
					continue;
				if (joins && (sat[t] == n || !ran[sat[t]]))
					break;
				if (last[s])
					memcpy(c, &v->vc[(last[s] - 1) * v->ns],
					       v->ns * sizeof(*c));
				if (joins) {
					const uint32_t *o = &v->vc[sat[t] * v->ns];

					for (uint32_t q = 0; q < v->ns; q++)
						if (o[q] > c[q])
							c[q] = o[q];
				}
				v->pos[t] = last[s] ? v->pos[last[s] - 1] + 1 : 0;
				c[s] = v->pos[t] + 1;
				ran[t] = true;
				last[s] = t + 1;
				done++;
				progress = true;
			}
			next[s] = t;
		}
	}
	ret = 0;
	if (done < n) {
		for (uint32_t s = 0; s < v->ns; s++)
			if (next[s] < n) {
				if (bad_task)
					*bad_task = next[s];
				if (err)
					snprintf(err, errlen,
						 "stream %u deadlocks: task %zu waits for semaphore %u to reach %llu, which no runnable task signals",
						 s, next[s], p->tasks[next[s]].sem,
						 (unsigned long long)p->tasks[next[s]].value);
				break;
			}
		ret = -1;
	}
out:
	free(next);
	free(last);
	free(sat);
	free(ran);
	return ret;
}

/*
 * Semaphore reuse is only safe if the signals of one semaphore happen in
 * value order: otherwise a larger value could land first and let a wait
 * for a smaller one pass before its own signal. For each signal, the next
 * larger (or equal) value of its semaphore must happen after it.
 */
static int tv_chains(const struct tv *v, size_t *bad_task, char *err,
		     size_t errlen)
{
	const struct mp_task_problem *p = v->p;
	size_t n = p->num_tasks;

	for (size_t a = 0; a < n; a++) {
		const struct mp_task *x = &p->tasks[a];
		size_t b = n;

		if (x->kind != MP_TASK_SIGNAL)
			continue;
		for (size_t t = 0; t < n; t++) {
			const struct mp_task *y = &p->tasks[t];

			if (t == a || y->kind != MP_TASK_SIGNAL ||
			    y->sem != x->sem || y->value < x->value ||
			    (y->value == x->value && t < a))
				continue;
			if (b == n || y->value < p->tasks[b].value)
				b = t;
		}
		if (b < n && !tv_hb(v, a, b)) {
			if (bad_task)
				*bad_task = b;
			if (err)
				snprintf(err, errlen,
					 "semaphore %u: the signal to %llu (task %zu) is not ordered before the signal to %llu (task %zu): a wait for %llu could pass early",
					 x->sem, (unsigned long long)x->value, a,
					 (unsigned long long)p->tasks[b].value, b,
					 (unsigned long long)x->value);
			return -1;
		}
	}
	return 0;
}

static int tv_fail(size_t *bad_task, size_t task, char *err, size_t errlen,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int tv_fail(size_t *bad_task, size_t task, char *err, size_t errlen,
		   const char *fmt, ...)
{
	va_list ap;

	if (bad_task)
		*bad_task = task;
	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Read @r of value v is clobbered by write @x of another value unless r
 * happens before x, x is r itself writing the same view in place, or x
 * happens before every write of v that r may observe on those bytes.
 */
static int tv_check_pair(const struct tv *v, const struct mp_access *r,
			 const struct mp_access *x, const size_t *vhead,
			 const size_t *vnext, size_t *bad_task, char *err,
			 size_t errlen)
{
	const struct mp_task_problem *p = v->p;
	struct mp_access both = *r;
	bool any = false;

	if (x->task == r->task) {
		if (p->tasks[x->task].inplace_ok && x->view == r->view)
			return 0;
		return tv_fail(bad_task, x->task, err, errlen,
			       "task %u writes value %u over bytes [%llu,%llu) of space %u that it also reads as value %u, and not in place on the same view",
			       x->task, x->value,
			       (unsigned long long)x->begin,
			       (unsigned long long)x->end, x->space, r->value);
	}
	if (tv_hb(v, r->task, x->task))
		return 0;
	both.begin = r->begin > x->begin ? r->begin : x->begin;
	both.end = r->end < x->end ? r->end : x->end;
	for (size_t w = vhead[r->value]; w != SIZE_MAX; w = vnext[w]) {
		const struct mp_access *a = &p->accesses[w];

		if (!tv_overlap(a, &both) || a->task == r->task ||
		    tv_hb(v, r->task, a->task))
			continue;
		any = true;
		if (!tv_hb(v, x->task, a->task))
			return tv_fail(bad_task, x->task, err, errlen,
				       "task %u writes value %u over bytes [%llu,%llu) of space %u after (or unordered with) task %u wrote value %u there, which task %u reads later",
				       x->task, x->value,
				       (unsigned long long)both.begin,
				       (unsigned long long)both.end, x->space,
				       a->task, r->value, r->task);
	}
	if (!any && vhead[r->value] == SIZE_MAX)
		return tv_fail(bad_task, x->task, err, errlen,
			       "task %u writes value %u over bytes [%llu,%llu) of space %u holding value %u (an input or constant), which task %u reads %s",
			       x->task, x->value,
			       (unsigned long long)both.begin,
			       (unsigned long long)both.end, x->space,
			       r->value, r->task,
			       tv_hb(v, x->task, r->task) ? "later" :
			       "unordered with it");
	return 0;
}

/* A write, keyed for the window search: by space, stream, then position. */
struct tv_wkey {
	uint32_t space, stream;
	uint32_t pos;
	size_t acc;
};

static int by_space_stream_pos(const void *pa, const void *pb)
{
	const struct tv_wkey *a = pa, *b = pb;

	if (a->space != b->space)
		return a->space < b->space ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
	return (a->acc > b->acc) - (a->acc < b->acc);
}

/* First key of @ws[0..nw) not below (space, stream, pos). */
static size_t tv_wfind(const struct tv_wkey *ws, size_t nw, uint32_t space,
		       uint32_t stream, uint32_t pos)
{
	struct tv_wkey k = { space, stream, pos, 0 };
	size_t lo = 0, hi = nw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (by_space_stream_pos(&ws[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int mp_verify_tasks(const struct mp_task_problem *p, size_t *bad_task,
		    char *err, size_t errlen)
{
	struct tv v = { .p = p };
	size_t na = p->num_accesses, nv = 0, nw = 0;
	size_t *vhead = NULL, *vnext = NULL, *sidx = NULL, *stasks = NULL;
	struct tv_wkey *ws = NULL;
	uint32_t *lo = NULL, *hi = NULL;
	int ret;

	for (size_t a = 0; a < na; a++) {
		if (p->accesses[a].task >= p->num_tasks)
			return tv_fail(bad_task, 0, err, errlen,
				       "access %zu names task %u of %zu", a,
				       p->accesses[a].task, p->num_tasks);
		if (p->accesses[a].value + (size_t)1 > nv)
			nv = p->accesses[a].value + (size_t)1;
	}
	ret = tv_clocks(&v, bad_task, err, errlen);
	if (!ret)
		ret = tv_chains(&v, bad_task, err, errlen);
	if (ret)
		goto out;
	ret = -ENOMEM;
	vhead = malloc((nv + 1) * sizeof(*vhead));
	vnext = malloc((na + 1) * sizeof(*vnext));
	ws = malloc((na + 1) * sizeof(*ws));
	lo = malloc((v.ns + 1) * sizeof(*lo));
	hi = malloc((v.ns + 1) * sizeof(*hi));
	sidx = calloc(v.ns + 2, sizeof(*sidx));
	stasks = malloc((p->num_tasks + 1) * sizeof(*stasks));
	if (!vhead || !vnext || !ws || !lo || !hi || !sidx || !stasks)
		goto out;
	/* The tasks of each stream in program order (pos is the index). */
	for (size_t t = 0; t < p->num_tasks; t++)
		sidx[p->tasks[t].stream + 1]++;
	for (uint32_t q = 0; q < v.ns; q++)
		sidx[q + 1] += sidx[q];
	for (size_t t = 0; t < p->num_tasks; t++)
		stasks[sidx[p->tasks[t].stream] + v.pos[t]] = t;
	/* The writes of each value. */
	for (size_t k = 0; k <= nv; k++)
		vhead[k] = SIZE_MAX;
	for (size_t a = na; a-- > 0;) {
		const struct mp_access *w = &p->accesses[a];

		if (!w->write || w->begin >= w->end)
			continue;
		vnext[a] = vhead[w->value];
		vhead[w->value] = a;
		ws[nw].space = w->space;
		ws[nw].stream = p->tasks[w->task].stream;
		ws[nw].pos = v.pos[w->task];
		ws[nw].acc = a;
		nw++;
	}
	/*
	 * All writes by space, stream and position. A read r only needs the
	 * writes x of its space that are not ordered after r and not ordered
	 * before every write of r's value that r may observe: per stream a
	 * window of positions [lo, hi), so a read costs the writes in its
	 * window, not every write of the space (which made the check
	 * quadratic in the length of a chain reusing one arena).
	 */
	qsort(ws, nw, sizeof(*ws), by_space_stream_pos);
	ret = 0;
	for (size_t a = 0; a < na && !ret; a++) {
		const struct mp_access *r = &p->accesses[a];
		bool produced = vhead[r->value] == SIZE_MAX;
		uint32_t rs = p->tasks[r->task].stream;
		bool any_w = false;

		if (r->write || r->begin >= r->end)
			continue;
		for (size_t w = vhead[r->value]; w != SIZE_MAX && !produced;
		     w = vnext[w])
			if (tv_overlap(&p->accesses[w], r) &&
			    tv_hb(&v, p->accesses[w].task, r->task))
				produced = true;
		if (!produced) {
			ret = tv_fail(bad_task, r->task, err, errlen,
				      "task %u reads value %u (bytes [%llu,%llu) of space %u) before any task is ordered to write it",
				      r->task, r->value,
				      (unsigned long long)r->begin,
				      (unsigned long long)r->end, r->space);
			break;
		}
		/*
		 * lo[q]: writes of stream q before it happen before every
		 * write of v that overlaps r and is not after r (a superset
		 * of what tv_check_pair() looks at for any x): safe. With no
		 * write of v at all, every earlier write counts.
		 */
		for (uint32_t q = 0; q < v.ns; q++)
			lo[q] = vhead[r->value] == SIZE_MAX ? 0 : UINT32_MAX;
		for (size_t w = vhead[r->value]; w != SIZE_MAX; w = vnext[w]) {
			const struct mp_access *x = &p->accesses[w];

			if (!tv_overlap(x, r) || x->task == r->task ||
			    tv_hb(&v, r->task, x->task))
				continue;
			any_w = true;
			for (uint32_t q = 0; q < v.ns; q++)
				if (v.vc[x->task * v.ns + q] < lo[q])
					lo[q] = v.vc[x->task * v.ns + q];
		}
		if (!any_w && vhead[r->value] != SIZE_MAX)
			for (uint32_t q = 0; q < v.ns; q++)
				lo[q] = 0;	/* only r's own task matters */
		/* hi[q]: the first task of stream q that r happens before */
		for (uint32_t q = 0; q < v.ns; q++) {
			size_t b = sidx[q], e = sidx[q + 1];

			while (b < e) {
				size_t mid = b + (e - b) / 2;

				if (v.vc[stasks[mid] * v.ns + rs] >=
				    v.pos[r->task] + 1)
					e = mid;
				else
					b = mid + 1;
			}
			hi[q] = (uint32_t)(b - sidx[q]);
			if (q == rs && hi[q] <= v.pos[r->task])
				hi[q] = v.pos[r->task] + 1;
		}
		for (uint32_t q = 0; q < v.ns && !ret; q++) {
			uint32_t from = lo[q];

			/* r's own task is always checked (in place or not) */
			if (!any_w && vhead[r->value] != SIZE_MAX)
				from = q == rs ? v.pos[r->task] : hi[q];
			else if (q == rs && from > v.pos[r->task])
				from = v.pos[r->task];
			for (size_t x = tv_wfind(ws, nw, r->space, q, from);
			     x < nw && !ret; x++) {
				const struct mp_access *w =
					&p->accesses[ws[x].acc];

				if (ws[x].space != r->space ||
				    ws[x].stream != q || ws[x].pos >= hi[q])
					break;
				if (w->value == r->value || !tv_overlap(w, r))
					continue;
				ret = tv_check_pair(&v, r, w, vhead, vnext,
						    bad_task, err, errlen);
			}
		}
	}
out:
	if (ret == -ENOMEM && err)
		snprintf(err, errlen, "out of memory");
	free(vhead);
	free(vnext);
	free(ws);
	free(lo);
	free(hi);
	free(sidx);
	free(stasks);
	free(v.pos);
	free(v.vc);
	return ret;
}
