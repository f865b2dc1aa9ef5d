/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_core_priv.h - the device core's internal objects. Not for the homes:
 * they use npu_core.h only. The locking rules are at the top of npu_core.h;
 * each field below names the lock that protects it.
 */
#ifndef NPU_CORE_PRIV_H
#define NPU_CORE_PRIV_H

#include "npu_core.h"
#include "../ops/npu_ops.h"
#include "../pool/npu_pool.h"

/* ---- intrusive doubly linked list ---- */

struct npu_list {
	struct npu_list *next, *prev;
};

static inline void npu_list_init(struct npu_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool npu_list_empty(const struct npu_list *l)
{
	return l->next == l;
}

static inline void npu_list_add_tail(struct npu_list *n, struct npu_list *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void npu_list_del(struct npu_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	npu_list_init(n);
}

#define npu_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define npu_list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); \
	     pos = tmp, tmp = pos->next)

/* ---- handle tables (per file) ---- */

enum npu_obj_kind {
	NPU_OBJ_BO = 1,
	NPU_OBJ_PROGRAM,
	NPU_OBJ_QUEUE,
	NPU_OBJ_SEM,
};

/**
 * struct npu_handles - handle -> object table, handles 1..cap, lowest free
 * first. Protected by the owning file's lock.
 * @objs: objects, entry h - 1 for handle h, NULL when free
 * @cap: entries allocated
 * @count: entries in use
 */
struct npu_handles {
	void **objs;
	u32 cap;
	u32 count;
};

int npu_handles_alloc(struct npu_handles *t, void *obj, u32 *handle);
void *npu_handles_find(struct npu_handles *t, u32 handle);
void *npu_handles_remove(struct npu_handles *t, u32 handle);
void npu_handles_fini(struct npu_handles *t);

/* ---- per-file limits ---- */

struct npu_limits {
	u64 vram;			/* bytes, 0 = none */
	u64 program_bytes;
	u32 queues;
	u32 sems;
	u32 programs;
};

/* ---- accounting of a file's VRAM (outlives the file: BOs point at it) ---- */

struct npu_acct {
	struct npu_ref ref;
	u64 used;			/* pool_lock */
	u64 quota;			/* 0 = none */
	u64 busy_ns;			/* dev->lock: AI-core time of its tasks */
};

/* ---- buffer objects ---- */

struct npu_bo {
	struct npu_ref ref;
	struct npu_device *dev;
	struct npu_pool_node node;	/* pool_lock (start also mem_lock) */
	u64 size;
	u32 flags;
	u32 running;			/* mem_lock: running tasks using it */
	u32 hold;			/* mem_lock: compaction holds it */
	u32 busy;			/* dev->lock: unretired jobs using it */
	u64 mmap_offset;
	struct npu_acct *acct;
	struct npu_list link;		/* bos_lock: dev->bos */
	void *home;
};

/* ---- programs ---- */

struct npu_program {
	struct npu_ref ref;
	u32 num_tasks;
	u32 num_slots;
	u32 num_sem_indices;		/* 1 + highest SEM_* index, 0 if none */
	struct drm_npu_task *tasks;
	u64 *slot_need;			/* num_slots entries */
	u64 *op_end;			/* num_tasks * MAX_OPERANDS: offset+extent */
	u8 *shareable;			/* per task: may run on several cores */
	u64 charge;			/* bytes charged to the file's limit */
};

int npu_program_validate(struct npu_program *prog, u32 *err_task,
			 u32 *err_operand);
void npu_program_put(struct npu_program *prog);

/* ---- semaphores ---- */

struct npu_sem {
	struct npu_ref ref;
	struct npu_device *dev;
	u32 hw;				/* hardware semaphore index */
};

void npu_sem_put(struct npu_sem *sem);

/* ---- jobs and queues ---- */

struct npu_sem_pt {
	struct npu_sem *sem;
	u64 value;
};

struct npu_job {
	struct npu_list link;		/* dev->lock: queue->jobs or dev->reap */
	struct npu_queue *queue;
	struct npu_program *prog;
	u32 first, end, next;		/* task range, next task (dev->lock) */
	bool started;			/* job-level waits satisfied */
	u64 run_ns;			/* AI-core time of its finished tasks */
	u32 status;			/* 0 or enum drm_npu_fault_reason */
	u64 fence;
	u64 key;			/* npu_op_args.job_key */
	u32 num_bos;
	struct npu_bo **bos;
	u32 num_waits, num_signals, num_bindings;
	struct npu_sem_pt *waits, *signals, *bindings;
	struct npu_bo *profile_bo;
	u64 profile_offset;
	bool distinct_bos;		/* no buffer bound to two slots */
};

bool npu_job_task_shareable(const struct npu_job *job, u32 ti);

#define NPU_FAILED_RANGES	64

struct npu_fence_range {
	u64 first, last;
};

/* Priorities: DRM_NPU_PRIORITY_LOW .. DRM_NPU_PRIORITY_HIGH. */
#define NPU_NUM_PRIO		(DRM_NPU_PRIORITY_HIGH + 1)

/*
 * Where the scheduler keeps a queue (sched.c). A queue that runs a task is
 * on no list (state IDLE, running true).
 */
enum npu_qstate {
	NPU_Q_IDLE,		/* no list: empty, or running */
	NPU_Q_READY,		/* dev->ready[hw][priority]: may advance */
	NPU_Q_WAITING,		/* dev->sem_waiters[wait_sem] */
	NPU_Q_RETRY,		/* dev->retry: a profile buffer was held */
};

struct npu_queue {
	struct npu_ref ref;
	struct npu_device *dev;
	u32 priority;
	u32 hw;				/* hardware queue */
	struct npu_acct *acct;		/* the creating file's accounting */
	/* dev->lock: */
	bool listed;			/* on dev->queues */
	bool closing;			/* destroyed or file closed */
	bool running;			/* a task of it is on a core */
	u8 state;			/* enum npu_qstate */
	struct npu_list link;		/* dev->queues */
	struct npu_list rlink;		/* the list its state names */
	u64 ready_seq;			/* when it became ready, for fairness */
	u32 wait_sem;			/* NPU_Q_WAITING: hardware semaphore */
	u64 wait_value;			/* ... and the value it waits for */
	struct npu_list jobs;		/* FIFO of unretired jobs */
	u64 submitted, completed;
	u32 unreaped;			/* retired jobs not yet freed */
	u32 num_faults;
	u32 fault_reason, fault_task, fault_operand;
	u64 fault_fence;
	u32 num_failed;
	struct npu_fence_range failed[NPU_FAILED_RANGES];
};

void npu_queue_put(struct npu_queue *q);
void npu_queue_close(struct npu_queue *q);

/* ---- AI cores ---- */

/**
 * struct npu_run - a compute task in progress, shared with helping cores
 * @args: operands resolved to host addresses (valid while it runs)
 * @units: work units of the task
 * @next: dev->lock: first work unit no core has claimed yet
 * @helpers: dev->lock: other cores running chunks of it now
 * @status: dev->lock: first fault an op kernel reported, or 0
 * @shareable: helpers may join (no write can race with another unit's)
 */
struct npu_run {
	struct npu_op_args args;
	u64 units;
	u64 next;		/* units [next, last) are not claimed yet */
	u64 last;
	u32 helpers;
	u32 status;
	bool shareable;
};

struct npu_core_unit {
	struct npu_device *dev;
	u32 index;
	struct npu_thread thread;
	struct npu_waitq wq;		/* with dev->lock: hang/slow waits */
	struct npu_waitq park_wq;	/* with dev->lock: its thread, idle */
	void *ub;			/* unified buffer: NPU_UB_BYTES */
	/* dev->lock: */
	struct npu_job *job;
	struct npu_run *run;		/* its compute task, open to helpers */
	u32 task;
	u64 start_ns;
	u64 beat_ns;			/* last progress; NPU_READ/WRITE_ONCE */
	u32 abort;			/* fault reason; NPU_READ_ONCE when running */
	bool parked;			/* its thread sleeps for work */
	bool lent;			/* a waiting thread runs as this core */
	u64 kicks;			/* npu_kick_cores() calls that found it */
};

/* ---- the device ---- */

struct npu_device {
	struct npu_home_ops ops;
	void *home_dev;
	u8 *vram;
	u64 vram_size;
	u32 num_cores, num_queues, num_semaphores;

	struct npu_mutex pool_lock;
	struct npu_mutex lock;
	struct npu_mutex mem_lock;
	struct npu_waitq done_wq;	/* dev->lock: retire, semaphores */
	struct npu_waitq wd_wq;		/* dev->lock: watchdog sleep */
	struct npu_waitq mem_wq;	/* mem_lock: running/hold changes */

	struct npu_pool *pool;		/* pool_lock */
	struct npu_mutex bos_lock;	/* innermost: dev->bos */
	/* bos_lock; a BO leaves it with its last reference, atomically */
	struct npu_list bos;
	u64 next_mmap_offset;		/* pool_lock */

	/* dev->lock: */
	bool stopping;
	struct npu_list queues;		/* every queue not yet closed */
	struct npu_list reap;		/* retired jobs to free without locks */
	u32 *hwq_users;
	u64 hwq_busy;			/* bit h: hardware queue h runs a task */
	/*
	 * The scheduler's run queues (sched.c): a FIFO of ready queues per
	 * hardware queue and priority, entry [hw * NPU_NUM_PRIO + priority];
	 * bit hw of ready_mask[priority] is set while that FIFO is not empty.
	 */
	struct npu_list *ready;
	u64 ready_mask[NPU_NUM_PRIO];
	u64 ready_seq;
	struct npu_list *sem_waiters;	/* per semaphore, by wait_value */
	struct npu_list retry;
	u64 *sem_values;
	bool *sem_used;
	u64 kick;			/* bumped whenever new work may be ready */
	u64 busy_ns;			/* AI-core time of finished tasks */
	u32 test_instant;
	u64 test_hang;
	u64 test_fault;
	u64 test_fault_range;
	u64 test_slow_us;
	u32 test_corrupt_op;	/* opcode + 1 whose outputs are corrupted */
	u32 watchdog_ms;
	u64 job_budget_ms;		/* 0 = none */
	u32 isa;			/* enum npu_isa of the op kernels */
	bool serve_waits;		/* npu_device_params.serve_waits */
	u64 park_spin_ns;		/* npu_device_params.park_spin_us */
	u64 wd_next;			/* when the watchdog wakes next */
	struct npu_limits limits;	/* for files opened from now on */

	struct npu_core_unit *cores;
	struct npu_thread watchdog;
};

struct npu_file {
	struct npu_device *dev;
	void *home_file;
	struct npu_mutex lock;
	struct npu_handles bos;
	struct npu_handles programs;
	struct npu_handles queues;
	struct npu_handles sems;
	struct npu_acct *acct;
	struct npu_limits lim;		/* copied at open */
	u32 num_programs;		/* lock: programs charged */
	u64 program_bytes;		/* lock: their bytes */
	u64 job_key_base;		/* random at open: npu_job.key */
	u64 jobs_submitted;		/* dev->lock: its queues', npu_job.key */
};

/* bo.c */
int npu_bo_alloc(struct npu_device *dev, struct npu_acct *acct, u64 size,
		 u64 align, u32 flags, struct npu_bo **out);
extern const struct npu_pool_move_ops npu_bo_move_ops;

/* sched.c */
int npu_core_worker(void *arg);
int npu_watchdog_thread(void *arg);
bool npu_serve(struct npu_device *dev, struct npu_queue *want,
	       const u64 *count, u64 target, u64 deadline);
void npu_job_retire(struct npu_device *dev, struct npu_job *job, u32 status);
void npu_queue_fail(struct npu_device *dev, struct npu_queue *q,
		    struct npu_job *job, u32 reason, u32 task, u32 operand);
void npu_queue_cancel_all(struct npu_device *dev, struct npu_queue *q);
void npu_queue_submitted(struct npu_device *dev, struct npu_queue *q);
void npu_sem_update(struct npu_device *dev, u32 hw, u64 value);
void npu_reap(struct npu_device *dev);
void npu_job_free(struct npu_job *job);
void npu_write_profile(struct npu_device *dev, struct npu_job *job, u32 task,
		       u64 start, u64 end, u32 core, u32 status);

/*
 * The least time a fence wait must have left to serve (npu_serve()): a
 * shorter wait only sleeps, so that it ends on time.
 */
#define NPU_SERVE_MIN_WAIT_NS	100000000ull

/* helpers shared by the ioctl files */
int npu_deadline(s64 timeout_ns, u64 *deadline);
int npu_wait_count(struct npu_device *dev, struct npu_queue *q,
		   const u64 *count, u64 target, u64 deadline);
struct npu_queue *npu_file_queue(struct npu_file *f, u32 handle);
struct npu_sem *npu_file_sem(struct npu_file *f, u32 handle);
struct npu_program *npu_file_program(struct npu_file *f, u32 handle);
bool npu_mem_is_zero(const void *p, size_t len);
int npu_file_limit(struct npu_file *f, const char *what, u64 in_use,
		   u64 asked, u64 limit);
int npu_file_program_charge(struct npu_file *f, u32 num_tasks, u64 *charge);
void npu_file_program_uncharge(struct npu_file *f, u64 charge);

#endif /* NPU_CORE_PRIV_H */
