/* SPDX-License-Identifier: MIT */
/*
 * npucl.h - collective communication between NPUs (HCCL/NCCL-like).
 *
 * A communicator groups n ranks; each rank is one device context and
 * issues its collectives on one of its streams. Collectives are
 * asynchronous: a call queues the operation on @stream and returns; work
 * queued after it on @stream sees the result. Every rank of a communicator
 * calls the same collectives in the same order (with the same counts,
 * dtypes and ops), as with NCCL.
 *
 * Two transports:
 *  - in one process (npucl_comm_init_all, npucl_comm_init_rank_table):
 *    several devices of this host, over shared device memory (peer access:
 *    every rank's tasks read the other ranks' buffers directly);
 *  - across processes and hosts (npucl_comm_init_mpi): one rank per
 *    process, over MPI (Open MPI), the reductions on the device.
 *
 * Determinism: a reduction adds (multiplies, ...) the ranks' values in
 * rank order, ((x0 op x1) op x2) ..., whatever the algorithm, message size
 * or transport, with the device's own BINARY kernels. Every rank's result
 * is identical bit for bit, and equal to that order's result computed on
 * any one device. BOOL reduces as logical or (SUM, MAX) and and (PROD,
 * MIN); integers wrap.
 *
 * See Documentation/collectives.rst.
 */
#ifndef NPUCL_H
#define NPUCL_H

#include <stddef.h>
#include <stdint.h>

#include "npurt.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define NPUCL_VERSION_MAJOR	1
#define NPUCL_VERSION_MINOR	0

typedef struct npucl_comm npucl_comm;

typedef enum npucl_op {
	NPUCL_SUM = 0,
	NPUCL_PROD = 1,
	NPUCL_MAX = 2,
	NPUCL_MIN = 3,
} npucl_op;

/* In-process algorithm (npucl_comm_set_algo); AUTO chooses by size. */
typedef enum npucl_algo {
	NPUCL_ALGO_AUTO = 0,
	/* every rank reduces the whole message from every peer: one step,
	 * for small messages (latency) */
	NPUCL_ALGO_ONESHOT = 1,
	/* reduce-scatter (rank r reduces slice r) then all-gather: each rank
	 * reads 2 (n - 1) / n of the message, for large ones (bandwidth) */
	NPUCL_ALGO_TWOSHOT = 2,
} npucl_algo;

/*
 * [exclusive] One communicator per context, in this process: @ctxs[i] is
 * rank i (one context per device; devices of this host that can import
 * each other's memory). @comms receives @n communicators.
 */
npurt_status npucl_comm_init_all(npurt_context *const *ctxs, uint32_t n,
				 npucl_comm **comms);
/*
 * [exclusive] The same from a rank table (JSON, Documentation/
 * collectives.rst): { "version": "1.0", "ranks": [ { "rank_id": 0,
 * "device": "sim" }, { "rank_id": 1, "device": "sim:1" } ] }. The
 * communicators own a context per rank (npucl_comm_context()). @comms has
 * room for @max; *@n receives the rank count.
 */
npurt_status npucl_comm_init_rank_table(const char *path, npucl_comm **comms,
					uint32_t max, uint32_t *n);
/*
 * [exclusive] A communicator of the MPI communicator @mpi_comm (a pointer
 * to an MPI_Comm; NULL: MPI_COMM_WORLD), this process being its rank, on
 * @ctx. MPI must be initialised (MPI_Init_thread with at least
 * MPI_THREAD_SERIALIZED; the stream workers call MPI). NPURT_ERR_UNSUPPORTED
 * when libnpucl was built without MPI.
 */
npurt_status npucl_comm_init_mpi(void *mpi_comm, npurt_context *ctx,
				 npucl_comm **comm);
/* [exclusive] Waits for the communicator's work, then frees it. */
npurt_status npucl_comm_destroy(npucl_comm *comm);

uint32_t npucl_comm_rank(const npucl_comm *comm);
uint32_t npucl_comm_size(const npucl_comm *comm);
npurt_context *npucl_comm_context(const npucl_comm *comm);
/* [exclusive] Forces an in-process algorithm (tests, benchmarks). */
npurt_status npucl_comm_set_algo(npucl_comm *comm, npucl_algo algo);

/*
 * [MT-safe] The collectives, on device blocks (byte 0 of each block; a
 * block may be both @send and @recv: in place), queued on @stream (of the
 * rank's context). @count is in elements of @dtype.
 *
 * allreduce:      recv[i] = op over ranks of send[i], i < count
 * allgather:      recv[r * count + i] = send of rank r [i]
 * reduce_scatter: recv[i] = op over ranks of send[rank * count + i]
 * broadcast:      buf[i] = buf of @root [i]
 * send / recv:    @count elements to / from rank @peer (matched in order)
 */
npurt_status npucl_allreduce(npurt_mem *send, npurt_mem *recv, uint64_t count,
			     npurt_dtype dtype, npucl_op op, npucl_comm *comm,
			     npurt_stream *stream);
npurt_status npucl_allgather(npurt_mem *send, npurt_mem *recv, uint64_t count,
			     npurt_dtype dtype, npucl_comm *comm,
			     npurt_stream *stream);
npurt_status npucl_reduce_scatter(npurt_mem *send, npurt_mem *recv,
				  uint64_t count, npurt_dtype dtype,
				  npucl_op op, npucl_comm *comm,
				  npurt_stream *stream);
npurt_status npucl_broadcast(npurt_mem *buf, uint64_t count,
			     npurt_dtype dtype, uint32_t root,
			     npucl_comm *comm, npurt_stream *stream);
npurt_status npucl_send(npurt_mem *send, uint64_t count, npurt_dtype dtype,
			uint32_t peer, npucl_comm *comm, npurt_stream *stream);
npurt_status npucl_recv(npurt_mem *recv, uint64_t count, npurt_dtype dtype,
			uint32_t peer, npucl_comm *comm, npurt_stream *stream);

#if defined(__cplusplus)
}
#endif

#endif /* NPUCL_H */
