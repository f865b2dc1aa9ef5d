// SPDX-License-Identifier: MIT
/*
 * npucl.c - collectives between NPUs (npucl.h, Documentation/collectives.rst).
 *
 * A collective call queues a host function on the caller's stream
 * (npurt_launch_host_func): it runs once the stream's earlier work is done,
 * and the stream's later work waits for it. The function moves and reduces
 * the data with device work on the communicator's own stream (copies and
 * BINARY tasks, launched with npurt_launch_tasks), and meets the other
 * ranks at barriers between the steps:
 *  - in one process, the ranks' stream workers meet at a condition
 *    variable, and every rank's tasks read the other ranks' staging
 *    buffers directly (shareable memory imported by each peer);
 *  - over MPI, the worker calls MPI on host copies of the data; the
 *    reductions still run on the device.
 * Messages larger than the staging buffer go in pieces.
 *
 * The reductions add (multiply, ...) in rank order on the device, so every
 * algorithm and transport gives the same bits on every rank.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <drm/npu_drm.h>

#ifdef NPUCL_HAVE_MPI
#include <mpi.h>
#endif

#include "npucl.h"

#define NPUCL_API __attribute__((visibility("default")))

/* Staging bytes per rank and buffer ($NPUCL_BUFFSIZE), one-shot limit. */
#define NPUCL_BUFF_DEFAULT	(4ull << 20)
#define NPUCL_ONESHOT_MAX	(64ull << 10)
/* Elements per device task: shapes are 32-bit. */
#define NPUCL_TASK_ELEMS	(1ull << 30)

struct npucl_box {			/* in-process send/recv, per sender */
	bool full;
	uint32_t dst;
	uint64_t bytes;
};

struct npucl_group {			/* the ranks of one process */
	uint32_t n;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t arrived;
	uint64_t gen;
	bool abort;			/* a rank failed: nobody waits */
	uint32_t refs;
	struct npucl_box *box;
	uint64_t timeout_ms;
};

struct npucl_comm {
	uint32_t rank, n;
	npurt_context *ctx;
	npurt_device *own_dev;		/* rank table: opened here */
	bool own_ctx;
	npurt_stream *cs;		/* the communicator's device work */
	npucl_algo algo;
	uint64_t buff;			/* staging bytes */
	npurt_mem *scratch, *result, *p2p;
	npurt_mem **pscratch, **presult, **pp2p;	/* by rank */
	struct npucl_group *g;
	bool mpi;
#ifdef NPUCL_HAVE_MPI
	MPI_Comm mc;
#endif
	uint8_t *ha, *hb;		/* MPI: host staging */
	int *cnt, *dsp, *cnt2, *dsp2;	/* MPI: per-rank counts */
};

enum op_kind { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCE_SCATTER, OP_BROADCAST,
	       OP_SEND, OP_RECV };

struct npucl_opd {
	enum op_kind kind;
	npucl_comm *c;
	npurt_mem *send, *recv;
	uint64_t count;
	npurt_dtype dt;
	npucl_op op;
	uint32_t peer;			/* root, or send/recv peer */
};

static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t dt_size(npurt_dtype dt)
{
	switch (dt) {
	case NPURT_DTYPE_F32: case NPURT_DTYPE_I32: return 4;
	case NPURT_DTYPE_F16: return 2;
	case NPURT_DTYPE_I8: case NPURT_DTYPE_U8: case NPURT_DTYPE_BOOL:
		return 1;
	case NPURT_DTYPE_I64: return 8;
	default: return 0;
	}
}

static uint32_t binary_kind(npucl_op op, npurt_dtype dt)
{
	/* BOOL: or and and, through the device's MAX and MIN */
	if (dt == NPURT_DTYPE_BOOL)
		return op == NPUCL_SUM || op == NPUCL_MAX ?
			DRM_NPU_BINARY_MAX : DRM_NPU_BINARY_MIN;
	switch (op) {
	case NPUCL_SUM: return DRM_NPU_BINARY_ADD;
	case NPUCL_PROD: return DRM_NPU_BINARY_MUL;
	case NPUCL_MAX: return DRM_NPU_BINARY_MAX;
	default: return DRM_NPU_BINARY_MIN;
	}
}

/* ---- device work on the communicator's stream ---- */

static struct drm_npu_operand opnd(uint16_t slot, uint64_t off,
				   npurt_dtype dt, uint64_t n)
{
	struct drm_npu_operand o;

	memset(&o, 0, sizeof(o));
	o.slot = slot;
	o.dtype = (uint8_t)dt;
	o.rank = 1;
	o.shape[0] = (uint32_t)n;
	o.strides[0] = 1;
	o.offset = off;
	return o;
}

/*
 * dst[doff..] = src[0] op src[1] op ... op src[ns - 1] (each at its
 * offset), @m elements, in that order: one BINARY task per source after
 * the first two, per 2^30-element chunk.
 */
static int dev_reduce(npucl_comm *c, npurt_mem *dst, uint64_t doff,
		      npurt_mem *const *src, const uint64_t *soff, uint32_t ns,
		      uint64_t m, npurt_dtype dt, npucl_op op)
{
	uint64_t es = dt_size(dt), nchunks, ntasks, k = 0;
	npurt_mem *mems[1 + 64];
	struct drm_npu_task *t;
	npurt_status st;

	if (!m)
		return 0;
	if (ns > 64)
		return -EINVAL;
	nchunks = (m + NPUCL_TASK_ELEMS - 1) / NPUCL_TASK_ELEMS;
	ntasks = nchunks * (ns > 1 ? ns - 1 : 1);
	t = calloc(ntasks, sizeof(*t));
	if (!t)
		return -ENOMEM;
	mems[0] = dst;
	for (uint32_t i = 0; i < ns; i++)
		mems[1 + i] = src[i];
	for (uint64_t ch = 0; ch < nchunks; ch++) {
		uint64_t e0 = ch * NPUCL_TASK_ELEMS;
		uint64_t len = m - e0 < NPUCL_TASK_ELEMS ? m - e0 :
							   NPUCL_TASK_ELEMS;
		uint64_t d = doff + e0 * es;

		if (ns == 1) {
			t[k].opcode = DRM_NPU_OP_COPY;
			t[k].num_operands = 2;
			t[k].operands[0] = opnd(1, soff[0] + e0 * es, dt, len);
			t[k].operands[1] = opnd(0, d, dt, len);
			k++;
			continue;
		}
		for (uint32_t i = 1; i < ns; i++) {
			t[k].opcode = DRM_NPU_OP_BINARY;
			t[k].num_operands = 3;
			t[k].params.binary.kind = binary_kind(op, dt);
			t[k].operands[0] = i == 1 ?
				opnd(1, soff[0] + e0 * es, dt, len) :
				opnd(0, d, dt, len);
			t[k].operands[1] = opnd((uint16_t)(1 + i),
						soff[i] + e0 * es, dt, len);
			t[k].operands[2] = opnd(0, d, dt, len);
			k++;
		}
	}
	st = npurt_launch_tasks(c->cs, t, (uint32_t)ntasks, mems, 1 + ns);
	free(t);
	return st ? -EIO : 0;
}

static int dev_copy(npucl_comm *c, npurt_mem *dst, uint64_t doff,
		    npurt_mem *src, uint64_t soff, uint64_t bytes)
{
	if (!bytes)
		return 0;
	return npurt_memcpy_d2d_async(dst, doff, src, soff, bytes, c->cs) ?
		-EIO : 0;
}

static int dev_sync(npucl_comm *c)
{
	return npurt_stream_synchronize(c->cs) ? -EIO : 0;
}

/* ---- in-process: barriers and mailboxes ---- */

static void deadline_in(struct timespec *ts, uint64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Wakes everybody on an error, so no rank waits for a failed one. */
static int group_fail(struct npucl_group *g, int err)
{
	pthread_mutex_lock(&g->lock);
	g->abort = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return err;
}

static int group_barrier(struct npucl_group *g)
{
	struct timespec ts;
	uint64_t gen;
	int err = 0;

	deadline_in(&ts, g->timeout_ms);
	pthread_mutex_lock(&g->lock);
	gen = g->gen;
	if (++g->arrived == g->n) {
		g->arrived = 0;
		g->gen++;
		pthread_cond_broadcast(&g->cond);
	}
	while (gen == g->gen && !g->abort && !err)
		err = pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	if (g->abort || (err && gen == g->gen)) {
		err = g->abort ? -ECANCELED : -ETIMEDOUT;
		g->abort = true;
		pthread_cond_broadcast(&g->cond);
	} else {
		err = 0;
	}
	pthread_mutex_unlock(&g->lock);
	return err;
}

/* Waits (group lock held) until @box of @sender is in state @full for
 * @dst. */
static int box_wait(struct npucl_group *g, uint32_t sender, bool full,
		    uint32_t dst)
{
	struct npucl_box *b = &g->box[sender];
	struct timespec ts;
	int err = 0;

	deadline_in(&ts, g->timeout_ms);
	while (!g->abort && !err &&
	       !(b->full == full && (!full || b->dst == dst)))
		err = pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	if (g->abort)
		return -ECANCELED;
	if (err) {
		g->abort = true;
		pthread_cond_broadcast(&g->cond);
		return -ETIMEDOUT;
	}
	return 0;
}

/* ---- in-process collectives ---- */

static int ip_allreduce(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / es, soff[64];
	uint32_t n = c->n, r = c->rank;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;
		bool one = c->algo == NPUCL_ALGO_ONESHOT ||
			(c->algo == NPUCL_ALGO_AUTO &&
			 m * es <= NPUCL_ONESHOT_MAX);

		err = group_barrier(c->g);
		if (!err)
			err = dev_copy(c, c->scratch, 0, o->send, p * es,
				       m * es);
		if (!err)
			err = dev_sync(c);
		if (!err)
			err = group_barrier(c->g);
		if (err)
			break;
		if (one) {
			memset(soff, 0, sizeof(soff));
			err = dev_reduce(c, o->recv, p * es, c->pscratch, soff,
					 n, m, o->dt, o->op);
			if (!err)
				err = dev_sync(c);
			continue;
		}
		{
			uint64_t sl = (m + n - 1) / n;
			uint64_t lo = sl * r < m ? sl * r : m;
			uint64_t hi = lo + sl < m ? lo + sl : m;

			for (uint32_t q = 0; q < n; q++)
				soff[q] = lo * es;
			err = dev_reduce(c, c->result, lo * es, c->pscratch,
					 soff, n, hi - lo, o->dt, o->op);
			if (!err)
				err = dev_sync(c);
			if (!err)
				err = group_barrier(c->g);
			for (uint32_t q = 0; q < n && !err; q++) {
				uint64_t a = sl * q < m ? sl * q : m;
				uint64_t b = a + sl < m ? a + sl : m;

				err = dev_copy(c, o->recv, (p + a) * es,
					       c->presult[q], a * es,
					       (b - a) * es);
			}
			if (!err)
				err = dev_sync(c);
		}
	}
	return err;
}

static int ip_allgather(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		err = group_barrier(c->g);
		if (!err)
			err = dev_copy(c, c->scratch, 0, o->send, p * es,
				       m * es);
		if (!err)
			err = dev_sync(c);
		if (!err)
			err = group_barrier(c->g);
		for (uint32_t q = 0; q < c->n && !err; q++)
			err = dev_copy(c, o->recv, (q * o->count + p) * es,
				       c->pscratch[q], 0, m * es);
		if (!err)
			err = dev_sync(c);
	}
	return err;
}

static int ip_reduce_scatter(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / c->n / es, soff[64];
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		err = group_barrier(c->g);
		for (uint32_t q = 0; q < c->n && !err; q++)
			err = dev_copy(c, c->scratch, q * m * es, o->send,
				       (q * o->count + p) * es, m * es);
		if (!err)
			err = dev_sync(c);
		if (!err)
			err = group_barrier(c->g);
		for (uint32_t q = 0; q < c->n; q++)
			soff[q] = c->rank * m * es;
		if (!err)
			err = dev_reduce(c, o->recv, p * es, c->pscratch, soff,
					 c->n, m, o->dt, o->op);
		if (!err)
			err = dev_sync(c);
	}
	return err;
}

static int ip_broadcast(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		err = group_barrier(c->g);
		if (!err && c->rank == o->peer)
			err = dev_copy(c, c->scratch, 0, o->recv, p * es,
				       m * es);
		if (!err)
			err = dev_sync(c);
		if (!err)
			err = group_barrier(c->g);
		if (!err && c->rank != o->peer)
			err = dev_copy(c, o->recv, p * es, c->pscratch[o->peer],
				       0, m * es);
		if (!err)
			err = dev_sync(c);
	}
	return err;
}

static int ip_send(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	struct npucl_group *g = c->g;
	uint64_t es = dt_size(o->dt), per = c->buff / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		pthread_mutex_lock(&g->lock);
		err = box_wait(g, c->rank, false, 0);	/* read out */
		pthread_mutex_unlock(&g->lock);
		if (!err)
			err = dev_copy(c, c->p2p, 0, o->send, p * es, m * es);
		if (!err)
			err = dev_sync(c);
		if (err)
			break;
		pthread_mutex_lock(&g->lock);
		g->box[c->rank].full = true;
		g->box[c->rank].dst = o->peer;
		g->box[c->rank].bytes = m * es;
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
	}
	return err;
}

static int ip_recv(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	struct npucl_group *g = c->g;
	uint64_t es = dt_size(o->dt), per = c->buff / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		pthread_mutex_lock(&g->lock);
		err = box_wait(g, o->peer, true, c->rank);
		if (!err && g->box[o->peer].bytes != m * es)
			err = -EMSGSIZE;	/* counts do not match */
		pthread_mutex_unlock(&g->lock);
		if (!err)
			err = dev_copy(c, o->recv, p * es, c->pp2p[o->peer], 0,
				       m * es);
		if (!err)
			err = dev_sync(c);
		if (err)
			break;
		pthread_mutex_lock(&g->lock);
		g->box[o->peer].full = false;
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
	}
	return err;
}

/* ---- MPI ---- */

#ifdef NPUCL_HAVE_MPI
static int d2h(void *dst, npurt_mem *src, uint64_t off, uint64_t bytes)
{
	return bytes && npurt_memcpy_d2h(dst, src, off, bytes) ? -EIO : 0;
}

static int h2d(npurt_mem *dst, uint64_t off, const void *src, uint64_t bytes)
{
	return bytes && npurt_memcpy_h2d(dst, off, src, bytes) ? -EIO : 0;
}

static int mpi_ok(int rc)
{
	return rc == MPI_SUCCESS ? 0 : -EIO;
}

/* Slice q of @m elements split over n ranks: [*lo, *hi). */
static void slice(uint64_t m, uint32_t n, uint32_t q, uint64_t *lo,
		  uint64_t *hi)
{
	uint64_t sl = (m + n - 1) / n;

	*lo = sl * q < m ? sl * q : m;
	*hi = *lo + sl < m ? *lo + sl : m;
}

static int mpi_allreduce(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / es, soff[64];
	uint32_t n = c->n, r = c->rank;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;
		uint64_t lo, hi, mine;

		slice(m, n, r, &lo, &hi);
		mine = hi - lo;
		for (uint32_t q = 0; q < n; q++) {
			uint64_t a, b;

			slice(m, n, q, &a, &b);
			c->cnt[q] = (int)((b - a) * es);
			c->dsp[q] = (int)(a * es);
			c->cnt2[q] = (int)(mine * es);
			c->dsp2[q] = (int)(q * mine * es);
		}
		err = d2h(c->ha, o->send, p * es, m * es);
		if (!err)
			err = mpi_ok(MPI_Alltoallv(c->ha, c->cnt, c->dsp,
						   MPI_BYTE, c->hb, c->cnt2,
						   c->dsp2, MPI_BYTE, c->mc));
		if (!err)
			err = h2d(c->scratch, 0, c->hb, n * mine * es);
		for (uint32_t q = 0; q < n; q++)
			soff[q] = q * mine * es;
		for (uint32_t q = 0; q < n; q++)
			c->pscratch[q] = c->scratch;
		if (!err)
			err = dev_reduce(c, c->result, 0, c->pscratch, soff, n,
					 mine, o->dt, o->op);
		if (!err)
			err = dev_sync(c);
		if (!err)
			err = d2h(c->ha, c->result, 0, mine * es);
		if (!err)
			err = mpi_ok(MPI_Allgatherv(c->ha, (int)(mine * es),
						    MPI_BYTE, c->hb, c->cnt,
						    c->dsp, MPI_BYTE, c->mc));
		if (!err)
			err = h2d(o->recv, p * es, c->hb, m * es);
	}
	return err;
}

static int mpi_allgather(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / c->n / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		err = d2h(c->ha, o->send, p * es, m * es);
		if (!err)
			err = mpi_ok(MPI_Allgather(c->ha, (int)(m * es),
						   MPI_BYTE, c->hb,
						   (int)(m * es), MPI_BYTE,
						   c->mc));
		for (uint32_t q = 0; q < c->n && !err; q++)
			err = h2d(o->recv, (q * o->count + p) * es,
				  c->hb + q * m * es, m * es);
	}
	return err;
}

static int mpi_reduce_scatter(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / c->n / es, soff[64];
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		for (uint32_t q = 0; q < c->n && !err; q++)
			err = d2h(c->ha + q * m * es, o->send,
				  (q * o->count + p) * es, m * es);
		if (!err)
			err = mpi_ok(MPI_Alltoall(c->ha, (int)(m * es),
						  MPI_BYTE, c->hb,
						  (int)(m * es), MPI_BYTE,
						  c->mc));
		if (!err)
			err = h2d(c->scratch, 0, c->hb, c->n * m * es);
		for (uint32_t q = 0; q < c->n; q++) {
			soff[q] = q * m * es;
			c->pscratch[q] = c->scratch;
		}
		if (!err)
			err = dev_reduce(c, o->recv, p * es, c->pscratch, soff,
					 c->n, m, o->dt, o->op);
		if (!err)
			err = dev_sync(c);
	}
	return err;
}

static int mpi_broadcast(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		if (c->rank == o->peer)
			err = d2h(c->ha, o->recv, p * es, m * es);
		if (!err)
			err = mpi_ok(MPI_Bcast(c->ha, (int)(m * es), MPI_BYTE,
					       (int)o->peer, c->mc));
		if (!err && c->rank != o->peer)
			err = h2d(o->recv, p * es, c->ha, m * es);
	}
	return err;
}

static int mpi_p2p(struct npucl_opd *o)
{
	npucl_comm *c = o->c;
	uint64_t es = dt_size(o->dt), per = c->buff / es;
	int err = 0;

	for (uint64_t p = 0; p < o->count && !err; p += per) {
		uint64_t m = o->count - p < per ? o->count - p : per;

		if (o->kind == OP_SEND) {
			err = d2h(c->ha, o->send, p * es, m * es);
			if (!err)
				err = mpi_ok(MPI_Send(c->ha, (int)(m * es),
						      MPI_BYTE, (int)o->peer,
						      0, c->mc));
		} else {
			err = mpi_ok(MPI_Recv(c->ha, (int)(m * es), MPI_BYTE,
					      (int)o->peer, 0, c->mc,
					      MPI_STATUS_IGNORE));
			if (!err)
				err = h2d(o->recv, p * es, c->ha, m * es);
		}
	}
	return err;
}

static int run_mpi(struct npucl_opd *o)
{
	int err;

	pthread_mutex_lock(&mpi_lock);
	switch (o->kind) {
	case OP_ALLREDUCE: err = mpi_allreduce(o); break;
	case OP_ALLGATHER: err = mpi_allgather(o); break;
	case OP_REDUCE_SCATTER: err = mpi_reduce_scatter(o); break;
	case OP_BROADCAST: err = mpi_broadcast(o); break;
	default: err = mpi_p2p(o); break;
	}
	pthread_mutex_unlock(&mpi_lock);
	return err;
}
#endif

/* The host function queued on the caller's stream. */
static int run_op(void *user)
{
	struct npucl_opd *o = user;
	int err;

	if (o->c->mpi) {
#ifdef NPUCL_HAVE_MPI
		err = run_mpi(o);
#else
		err = -EOPNOTSUPP;
#endif
	} else {
		switch (o->kind) {
		case OP_ALLREDUCE: err = ip_allreduce(o); break;
		case OP_ALLGATHER: err = ip_allgather(o); break;
		case OP_REDUCE_SCATTER: err = ip_reduce_scatter(o); break;
		case OP_BROADCAST: err = ip_broadcast(o); break;
		case OP_SEND: err = ip_send(o); break;
		default: err = ip_recv(o); break;
		}
		if (err)
			group_fail(o->c->g, err);
	}
	if (err)
		fprintf(stderr, "npucl: rank %u: collective failed: %s\n",
			o->c->rank, strerror(-err));
	free(o);
	return err;
}

/* ---- the calls ---- */

static npurt_status enqueue(enum op_kind kind, npurt_mem *send,
			    npurt_mem *recv, uint64_t count, npurt_dtype dt,
			    npucl_op op, uint32_t peer, npucl_comm *c,
			    npurt_stream *s, uint64_t send_elems,
			    uint64_t recv_elems)
{
	uint64_t es = dt_size(dt);
	struct npucl_opd *o;
	npurt_status st;

	if (!c || !s || !es || (unsigned int)op > NPUCL_MIN)
		return NPURT_ERR_INVALID;
	if ((kind == OP_BROADCAST || kind == OP_SEND || kind == OP_RECV) &&
	    (peer >= c->n ||
	     ((kind == OP_SEND || kind == OP_RECV) && peer == c->rank)))
		return NPURT_ERR_INVALID;
	/* counts are 64-bit and checked against the blocks */
	if ((send_elems && (!send || send_elems > UINT64_MAX / es ||
			    send_elems * es > npurt_mem_size(send))) ||
	    (recv_elems && (!recv || recv_elems > UINT64_MAX / es ||
			    recv_elems * es > npurt_mem_size(recv))))
		return NPURT_ERR_INVALID;
	if (!count)
		return NPURT_OK;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NPURT_ERR_NOMEM;
	*o = (struct npucl_opd){ kind, c, send, recv, count, dt, op, peer };
	st = npurt_launch_host_func(s, run_op, o);
	if (st)
		free(o);
	return st;
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

NPUCL_API npurt_status npucl_allreduce(npurt_mem *send, npurt_mem *recv,
				       uint64_t count, npurt_dtype dtype,
				       npucl_op op, npucl_comm *comm,
				       npurt_stream *stream)
{
	return enqueue(OP_ALLREDUCE, send, recv, count, dtype, op, 0, comm,
		       stream, count, count);
}

NPUCL_API npurt_status npucl_allgather(npurt_mem *send, npurt_mem *recv,
				       uint64_t count, npurt_dtype dtype,
				       npucl_comm *comm, npurt_stream *stream)
{
	uint64_t all;

	if (!comm || !mul_ok(count, comm->n, &all))
		return NPURT_ERR_INVALID;
	return enqueue(OP_ALLGATHER, send, recv, count, dtype, NPUCL_SUM, 0,
		       comm, stream, count, all);
}

NPUCL_API npurt_status npucl_reduce_scatter(npurt_mem *send,
					    npurt_mem *recv, uint64_t count,
					    npurt_dtype dtype, npucl_op op,
					    npucl_comm *comm,
					    npurt_stream *stream)
{
	uint64_t all;

	if (!comm || !mul_ok(count, comm->n, &all))
		return NPURT_ERR_INVALID;
	return enqueue(OP_REDUCE_SCATTER, send, recv, count, dtype, op, 0,
		       comm, stream, all, count);
}

NPUCL_API npurt_status npucl_broadcast(npurt_mem *buf, uint64_t count,
				       npurt_dtype dtype, uint32_t root,
				       npucl_comm *comm, npurt_stream *stream)
{
	return enqueue(OP_BROADCAST, NULL, buf, count, dtype, NPUCL_SUM, root,
		       comm, stream, 0, count);
}

NPUCL_API npurt_status npucl_send(npurt_mem *send, uint64_t count,
				  npurt_dtype dtype, uint32_t peer,
				  npucl_comm *comm, npurt_stream *stream)
{
	return enqueue(OP_SEND, send, NULL, count, dtype, NPUCL_SUM, peer,
		       comm, stream, count, 0);
}

NPUCL_API npurt_status npucl_recv(npurt_mem *recv, uint64_t count,
				  npurt_dtype dtype, uint32_t peer,
				  npucl_comm *comm, npurt_stream *stream)
{
	return enqueue(OP_RECV, NULL, recv, count, dtype, NPUCL_SUM, peer,
		       comm, stream, 0, count);
}

NPUCL_API uint32_t npucl_comm_rank(const npucl_comm *c)
{
	return c ? c->rank : 0;
}

NPUCL_API uint32_t npucl_comm_size(const npucl_comm *c)
{
	return c ? c->n : 0;
}

NPUCL_API npurt_context *npucl_comm_context(const npucl_comm *c)
{
	return c ? c->ctx : NULL;
}

NPUCL_API npurt_status npucl_comm_set_algo(npucl_comm *c, npucl_algo algo)
{
	if (!c || (unsigned int)algo > NPUCL_ALGO_TWOSHOT)
		return NPURT_ERR_INVALID;
	c->algo = algo;
	return NPURT_OK;
}

/* ---- communicators ---- */

static uint64_t env_u64(const char *name, uint64_t def, uint64_t min,
			uint64_t max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 0);
	if (*end || v < min || v > max) {
		fprintf(stderr, "npucl: %s=%s ignored: use %llu..%llu\n", name,
			s, (unsigned long long)min, (unsigned long long)max);
		return def;
	}
	return v;
}

static void comm_free(npucl_comm *c)
{
	if (!c)
		return;
	if (c->cs)
		npurt_stream_synchronize(c->cs);
	for (uint32_t q = 0; !c->mpi && q < c->n; q++) {
		if (q == c->rank)
			continue;
		if (c->pscratch)
			npurt_mem_free(c->pscratch[q]);
		if (c->presult)
			npurt_mem_free(c->presult[q]);
		if (c->pp2p)
			npurt_mem_free(c->pp2p[q]);
	}
	npurt_mem_free(c->scratch);
	npurt_mem_free(c->result);
	npurt_mem_free(c->p2p);
	free(c->pscratch);
	free(c->presult);
	free(c->pp2p);
	free(c->ha);
	free(c->hb);
	free(c->cnt);
	free(c->dsp);
	free(c->cnt2);
	free(c->dsp2);
	if (c->cs)
		npurt_stream_destroy(c->cs);
#ifdef NPUCL_HAVE_MPI
	if (c->mpi && c->mc != MPI_COMM_NULL)
		MPI_Comm_free(&c->mc);
#endif
	if (c->own_ctx)
		npurt_context_destroy(c->ctx);
	if (c->own_dev)
		npurt_device_close(c->own_dev);
	if (c->g) {
		struct npucl_group *g = c->g;
		bool last;

		pthread_mutex_lock(&g->lock);
		last = --g->refs == 0;
		pthread_mutex_unlock(&g->lock);
		if (last) {
			pthread_mutex_destroy(&g->lock);
			pthread_cond_destroy(&g->cond);
			free(g->box);
			free(g);
		}
	}
	free(c);
}

/* A rank's stream and staging buffers (@extra: bytes beyond buff). */
static npurt_status comm_setup(npucl_comm *c, uint64_t extra)
{
	npurt_status st;

	c->buff = env_u64("NPUCL_BUFFSIZE", NPUCL_BUFF_DEFAULT, 64 << 10,
			  1ull << 30);
	c->buff &= ~63ull;
	st = npurt_stream_create(c->ctx, NPURT_PRIORITY_NORMAL, &c->cs);
	if (!st)
		st = npurt_mem_alloc_shareable(c->ctx, c->buff + extra,
					       &c->scratch);
	if (!st)
		st = npurt_mem_alloc_shareable(c->ctx, c->buff + extra,
					       &c->result);
	if (!st && !c->mpi)
		st = npurt_mem_alloc_shareable(c->ctx, c->buff, &c->p2p);
	c->pscratch = calloc(c->n, sizeof(*c->pscratch));
	c->presult = calloc(c->n, sizeof(*c->presult));
	c->pp2p = calloc(c->n, sizeof(*c->pp2p));
	if (!st && (!c->pscratch || !c->presult || !c->pp2p))
		st = NPURT_ERR_NOMEM;
	return st;
}

NPUCL_API npurt_status npucl_comm_init_all(npurt_context *const *ctxs,
					   uint32_t n, npucl_comm **comms)
{
	struct npucl_group *g;
	npurt_status st = NPURT_OK;
	uint32_t made = 0;

	if (!ctxs || !comms || !n || n > 64)
		return NPURT_ERR_INVALID;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NPURT_ERR_NOMEM;
	g->box = calloc(n, sizeof(*g->box));
	if (!g->box) {
		free(g);
		return NPURT_ERR_NOMEM;
	}
	g->n = n;
	g->timeout_ms = env_u64("NPUCL_TIMEOUT_MS", 600000, 1, 1ull << 40);
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	for (made = 0; made < n && !st; made++) {
		npucl_comm *c = calloc(1, sizeof(*c));

		comms[made] = c;
		if (!c) {
			st = NPURT_ERR_NOMEM;
			break;
		}
		c->rank = made;
		c->n = n;
		c->ctx = ctxs[made];
		c->g = g;
		g->refs++;
		st = comm_setup(c, 0);
	}
	/* every rank imports every other rank's staging buffers */
	for (uint32_t r = 0; r < n && !st; r++) {
		npucl_comm *c = comms[r];

		c->pscratch[r] = c->scratch;
		c->presult[r] = c->result;
		c->pp2p[r] = c->p2p;
		for (uint32_t q = 0; q < n && !st; q++) {
			if (q == r)
				continue;
			st = npurt_mem_import_peer(c->ctx, comms[q]->scratch,
						   &c->pscratch[q]);
			if (!st)
				st = npurt_mem_import_peer(c->ctx,
							   comms[q]->result,
							   &c->presult[q]);
			if (!st)
				st = npurt_mem_import_peer(c->ctx,
							   comms[q]->p2p,
							   &c->pp2p[q]);
		}
	}
	if (st) {
		for (uint32_t r = 0; r < made && r < n; r++) {
			comm_free(comms[r]);
			comms[r] = NULL;
		}
		if (!made) {
			free(g->box);
			free(g);
		}
	}
	return st;
}

NPUCL_API npurt_status npucl_comm_init_mpi(void *mpi_comm, npurt_context *ctx,
					   npucl_comm **out)
{
#ifdef NPUCL_HAVE_MPI
	MPI_Comm base = mpi_comm ? *(MPI_Comm *)mpi_comm : MPI_COMM_WORLD;
	int inited = 0, level = 0, rank, size;
	npucl_comm *c;
	npurt_status st;

	if (!ctx || !out)
		return NPURT_ERR_INVALID;
	MPI_Initialized(&inited);
	if (!inited)
		return NPURT_ERR_NOT_INITIALIZED;
	MPI_Query_thread(&level);
	if (level < MPI_THREAD_SERIALIZED) {
		fprintf(stderr, "npucl: MPI must be initialised with "
			"MPI_Init_thread(..., MPI_THREAD_SERIALIZED or "
			"MPI_THREAD_MULTIPLE): the stream workers call MPI\n");
		return NPURT_ERR_UNSUPPORTED;
	}
	MPI_Comm_rank(base, &rank);
	MPI_Comm_size(base, &size);
	if (size < 1 || size > 64)
		return NPURT_ERR_UNSUPPORTED;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NPURT_ERR_NOMEM;
	c->mpi = true;
	c->mc = MPI_COMM_NULL;
	c->rank = (uint32_t)rank;
	c->n = (uint32_t)size;
	c->ctx = ctx;
	/* + room for n slices rounded up */
	st = comm_setup(c, 64 * 8 * (uint64_t)size);
	if (!st) {
		c->ha = malloc(c->buff + 64 * 8 * (uint64_t)size);
		c->hb = malloc(c->buff + 64 * 8 * (uint64_t)size);
		c->cnt = calloc((size_t)size, sizeof(int));
		c->dsp = calloc((size_t)size, sizeof(int));
		c->cnt2 = calloc((size_t)size, sizeof(int));
		c->dsp2 = calloc((size_t)size, sizeof(int));
		if (!c->ha || !c->hb || !c->cnt || !c->dsp || !c->cnt2 ||
		    !c->dsp2)
			st = NPURT_ERR_NOMEM;
	}
	if (!st && MPI_Comm_dup(base, &c->mc) != MPI_SUCCESS)
		st = NPURT_ERR_IO;
	if (st) {
		comm_free(c);
		return st;
	}
	*out = c;
	return NPURT_OK;
#else
	(void)mpi_comm;
	(void)ctx;
	(void)out;
	fprintf(stderr, "npucl: built without MPI (install libopenmpi-dev "
		"and rebuild)\n");
	return NPURT_ERR_UNSUPPORTED;
#endif
}

NPUCL_API npurt_status npucl_comm_destroy(npucl_comm *c)
{
	comm_free(c);
	return NPURT_OK;
}

/* ---- rank table ---- */

/* The value of "key" (a number or a string) after @p, up to @end. */
static const char *json_find(const char *p, const char *end, const char *key)
{
	size_t kl = strlen(key);

	for (; p && p + kl + 2 <= end; p++) {
		if (*p != '"' || strncmp(p + 1, key, kl) || p[kl + 1] != '"')
			continue;
		p += kl + 2;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
				   *p == '\r' || *p == ':'))
			p++;
		return p < end ? p : NULL;
	}
	return NULL;
}

/*
 * The rank table: { "version": "1.0", "ranks": [ { "rank_id": N,
 * "device": "SPEC" }, ... ] } with rank ids 0..n-1, each once.
 */
static int parse_rank_table(const char *text, char (*spec)[64], uint32_t max,
			    uint32_t *n)
{
	const char *p = json_find(text, text + strlen(text), "ranks");
	uint32_t seen = 0, count = 0;

	if (!p || *p != '[')
		return -EINVAL;
	p++;
	for (;;) {
		const char *obj, *oend, *v;
		char *e;
		unsigned long id;
		size_t len;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
		       *p == ',')
			p++;
		if (*p == ']')
			break;
		if (*p != '{')
			return -EINVAL;
		obj = p;
		oend = strchr(obj, '}');
		if (!oend)
			return -EINVAL;
		v = json_find(obj, oend, "rank_id");
		if (!v)
			return -EINVAL;
		id = strtoul(v, &e, 10);
		if (e == v || id >= max || id >= 64 || (seen >> id) % 2)
			return -EINVAL;
		v = json_find(obj, oend, "device");
		if (!v || *v != '"')
			return -EINVAL;
		v++;
		len = strcspn(v, "\"");
		if (!len || len >= 64 || v + len >= oend)
			return -EINVAL;
		memcpy(spec[id], v, len);
		spec[id][len] = 0;
		seen |= 1u << id;
		count++;
		p = oend + 1;
	}
	if (!count || seen != (count == 32 ? 0xffffffffu : (1u << count) - 1))
		return -EINVAL;
	*n = count;
	return 0;
}

NPUCL_API npurt_status npucl_comm_init_rank_table(const char *path,
						  npucl_comm **comms,
						  uint32_t max, uint32_t *n)
{
	char (*spec)[64] = NULL, *text = NULL;
	npurt_device *dev[32] = { NULL };
	npurt_context *ctx[32] = { NULL };
	npurt_status st = NPURT_OK;
	uint32_t cnt = 0;
	FILE *f;
	long len;

	if (!path || !comms || !n || !max)
		return NPURT_ERR_INVALID;
	f = fopen(path, "r");
	if (!f)
		return NPURT_ERR_NOT_FOUND;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || len > (1 << 20) ||
	    fseek(f, 0, SEEK_SET))
		st = NPURT_ERR_IO;
	if (!st) {
		text = calloc(1, (size_t)len + 1);
		spec = calloc(32, sizeof(*spec));
		if (!text || !spec)
			st = NPURT_ERR_NOMEM;
		else if (fread(text, 1, (size_t)len, f) != (size_t)len)
			st = NPURT_ERR_IO;
	}
	fclose(f);
	if (!st && parse_rank_table(text, spec, max < 32 ? max : 32, &cnt)) {
		fprintf(stderr, "npucl: %s: not a rank table (see "
			"Documentation/collectives.rst)\n", path);
		st = NPURT_ERR_INVALID;
	}
	for (uint32_t r = 0; r < cnt && !st; r++) {
		st = npurt_device_open_spec(spec[r], &dev[r]);
		if (!st)
			st = npurt_context_create(dev[r], 0, &ctx[r]);
	}
	if (!st)
		st = npucl_comm_init_all(ctx, cnt, comms);
	if (!st) {
		for (uint32_t r = 0; r < cnt; r++) {
			comms[r]->own_ctx = true;
			comms[r]->own_dev = dev[r];
		}
		*n = cnt;
	} else {
		for (uint32_t r = 0; r < cnt; r++) {
			if (ctx[r])
				npurt_context_destroy(ctx[r]);
			if (dev[r])
				npurt_device_close(dev[r]);
		}
	}
	free(text);
	free(spec);
	return st;
}
