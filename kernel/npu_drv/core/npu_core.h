/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npu_core.h - the portable device core of the emulated NPU: its API for
 * the two homes (the npu_drv kernel module and libnpurt's in-process device).
 *
 * The core is the hardware model of Documentation/hardware.rst (VRAM, AI
 * cores, hardware queues, semaphores, the task scheduler, faults, the job
 * watchdog, test modes), the program validator and the handlers of every
 * DRM_IOCTL_NPU_* ioctl on per-file handle tables. A home provides VRAM
 * memory, copies ioctl structs in and out of user memory, and implements
 * struct npu_home_ops; everything else is here, identical in both homes.
 *
 * Objects
 * -------
 * struct npu_device   one emulated NPU. Created by the home with
 *                     npu_core_create(); owns K worker threads (one per AI
 *                     core) and one watchdog thread.
 * struct npu_file     one open of the device (a DRM file): handle tables of
 *                     programs, queues, semaphores and - unless the home
 *                     manages them itself - buffer objects.
 * struct npu_bo       a buffer object: a contiguous VRAM range from the pool.
 *                     Reference counted (npu_bo_get/npu_bo_put); jobs hold
 *                     references on every buffer, program, queue and
 *                     semaphore they use, so closing handles (or the whole
 *                     file) while jobs are in flight is safe.
 *
 * Buffer-object handles
 * ---------------------
 * If npu_home_ops.bo_publish and .bo_lookup are NULL, the core keeps BO
 * handles in the file's own table (the in-process home); the home then
 * forwards DRM_IOCTL_GEM_CLOSE to npu_core_gem_close(). The kernel home sets
 * both hooks: its GEM object wraps the core's npu_bo (the GEM object holds
 * one npu_bo reference and drops it in its free callback), so that
 * DRM_IOCTL_GEM_CLOSE and PRIME work unchanged.
 *
 * Threading and locking model
 * ---------------------------
 * Every entry point may be called concurrently from any number of threads
 * (ioctls of several files). Locks, outermost first; a thread never takes an
 * outer lock while holding an inner one:
 *
 *   file->lock   per file: its handle tables. Held only to look up, insert
 *                or remove a handle (lookups take a reference and drop the
 *                lock before using the object).
 *   dev->pool_lock
 *                serialises every call into the VRAM pool (alloc, free,
 *                compaction, statistics) and any reader of a buffer's VRAM
 *                offset outside dispatch (CPU mapping, see
 *                npu_core_bo_map_lock()). Held across a compaction, which
 *                never sleeps on a running task: buffers in use by one are
 *                skipped (bo.c), so the hold time is bounded by the copy.
 *   dev->lock    the scheduler: queues and their jobs, semaphores, AI-core
 *                state, test modes, fault records.
 *   dev->mem_lock
 *                addresses at dispatch: a worker resolves each operand's
 *                slot to a VRAM address under it, and counts the buffers
 *                a running task uses; compaction's quiesce checks under it
 *                that a buffer has no running task and holds back new
 *                dispatches that use it.
 *   dev->bos_lock
 *                innermost: the device's list of buffer objects (mmap
 *                offset lookup); a buffer's last reference is dropped and
 *                the buffer unlinked under it.
 *
 * The op kernels run with no lock held, in chunks of work units bracketed by
 * npu_fpu_begin()/npu_fpu_end() with npu_yield() between chunks (see
 * npu_os_user.h). Idle AI-core threads may run disjoint chunks of the same
 * task at the same time (multi-core tasks, Documentation/hardware.rst).
 * Home hooks are called with no core lock held, except
 * bo_moved (called under dev->pool_lock, from compaction) - it must not call
 * back into the core's memory entry points.
 *
 * Ioctl entry points
 * ------------------
 * npu_ioctl_*() take the kernel-side copy of the uapi struct (the home copies
 * it in before and out after, for every ioctl, whatever the return value).
 * Arrays that the struct points to (tasks, buffer lists, semaphore points)
 * are read through npu_home_ops.copy_from_user and written through
 * .copy_to_user. Return values are 0 or a negative errno, exactly as
 * documented in Documentation/uapi.rst.
 */
#ifndef NPU_CORE_H
#define NPU_CORE_H

#include "../npu_os.h"
#include <drm/npu_drm.h>

struct npu_device;
struct npu_file;
struct npu_bo;

/**
 * struct npu_home_ops - what the home provides to the core
 * @copy_from_user: copy @len bytes from the user pointer @uptr to @dst;
 *                  0 or -EFAULT. Required.
 * @copy_to_user: copy @len bytes from @src to the user pointer @uptr;
 *                0 or -EFAULT. Required.
 * @bo_publish: optional; give a new buffer object a handle in the file
 *              @home_file (the home takes its own npu_bo reference with
 *              npu_bo_get()). Return 0 or -errno.
 * @bo_lookup: optional (set together with @bo_publish); the buffer object
 *             behind @handle in @home_file with a new reference the core
 *             drops with npu_bo_put(), or NULL if there is none.
 * @bo_mmap_offset: optional; the fake offset at which mmap() on the file
 *             maps @bo (kernel: drm_vma_node_offset_addr). NULL: the core
 *             hands out its own unique offsets (npu_bo_mmap_offset()).
 * @bo_moved: compaction moved @bo inside VRAM: shoot down CPU mappings so
 *            that they refault at the new place (kernel:
 *            drm_vma_node_unmap()). Called under dev->pool_lock. Optional.
 * @bo_free: @bo's last reference is gone; free what the home attached to
 *           npu_bo_home(). Optional.
 * @job_done: a job has retired (completed, faulted or cancelled); the
 *            "interrupt". @status is 0 or an enum drm_npu_fault_reason.
 *            Called from a core thread with no core lock held. Optional.
 * @bo_unmap: compaction is about to copy @bo (its running tasks have
 *            drained): shoot down CPU mappings now, before the copy, so
 *            that no CPU write lands in the old place after it was copied
 *            (kernel: drm_vma_node_unmap(); the fault handler then waits
 *            on dev->pool_lock until the move is done). Called under
 *            dev->pool_lock. Optional (added after bo_moved, which runs
 *            after the copy and alone would lose such writes).
 * @task_map: a compute task is about to run: give each operand's buffer
 *            (@m->start[i], @m->size[i]: its VRAM range) a host address in
 *            @m->base[i], through which the op kernels then reach it
 *            instead of params.vram. A test home's guard mode (the
 *            in-process device's NPU_SIM_GUARD) maps only these buffers,
 *            each between inaccessible guard regions, so that an access
 *            outside them faults. The buffers cannot move until
 *            @task_unmap. Called with no core lock held. Return 0, or
 *            -errno: the task then fails with DRM_NPU_FAULT_OUT_OF_RANGE.
 *            Optional (NULL: the core addresses params.vram directly);
 *            set together with @task_unmap.
 * @task_unmap: the task of a successful @task_map has finished (no core
 *            runs its work units any more): undo the mapping.
 */
struct npu_task_map;

struct npu_home_ops {
	int (*copy_from_user)(void *home_dev, void *dst, u64 uptr, size_t len);
	int (*copy_to_user)(void *home_dev, u64 uptr, const void *src,
			    size_t len);
	int (*bo_publish)(void *home_file, struct npu_bo *bo, u32 *handle);
	struct npu_bo *(*bo_lookup)(void *home_file, u32 handle);
	int (*bo_mmap_offset)(void *home_file, struct npu_bo *bo, u64 *offset);
	void (*bo_moved)(void *home_dev, struct npu_bo *bo, u64 old_start);
	void (*bo_free)(void *home_dev, struct npu_bo *bo);
	void (*job_done)(void *home_dev, u32 hw_queue, u64 fence, u32 status);
	void (*bo_unmap)(void *home_dev, struct npu_bo *bo);
	int (*task_map)(void *home_dev, struct npu_task_map *m);
	void (*task_unmap)(void *home_dev, struct npu_task_map *m);
};

/**
 * struct npu_task_map - the buffers of one running task (npu_home_ops.task_map)
 * @num: operands of the task
 * @start: VRAM byte offset of each operand's buffer (a buffer bound to
 *         several operands appears several times)
 * @size: bytes of each operand's buffer
 * @base: out: host address of each operand's buffer
 * @home: the home's own, for @task_unmap
 * @home_len: the home's own, for @task_unmap
 */
struct npu_task_map {
	u32 num;
	u64 start[DRM_NPU_MAX_OPERANDS];
	u64 size[DRM_NPU_MAX_OPERANDS];
	void *base[DRM_NPU_MAX_OPERANDS];
	void *home;
	u64 home_len;
};

/**
 * struct npu_device_params - how the home builds a device
 * @vram: host memory backing VRAM, @vram_size bytes, provided and freed by
 *        the home (the core never allocates it so the home can map it)
 * @vram_size: bytes, a multiple of 4096, at least 1 MiB
 * @num_cores: AI cores (worker threads), 1..64
 * @num_queues: hardware queues, 1..64
 * @num_semaphores: hardware semaphores, 1..4096
 * @watchdog_ms: job watchdog period, 10..3600000 ms
 * @job_budget_ms: AI-core time one job may use, 0 (no budget) or
 *                 10..86400000 ms; NPU_JOB_BUDGET_DEFAULT_MS is the homes'
 *                 default
 * @file_quota: bytes of VRAM one file may hold in buffer objects; 0 = the
 *              default, NPU_FILE_VRAM_DEFAULT_PCT of VRAM (a value of
 *              @vram_size or more means no limit)
 * @file_queues: queues one file may hold, 0 = NPU_FILE_QUEUES_DEFAULT
 * @file_semaphores: semaphores one file may hold, 0 = the default: a
 *              quarter of @num_semaphores, but at least 16 (or all)
 * @file_programs: programs one file may hold, 0 = NPU_FILE_PROGRAMS_DEFAULT
 * @file_program_bytes: bytes of programs one file may hold (tasks and
 *              their derived tables), 0 = NPU_FILE_PROGRAM_BYTES_DEFAULT
 * @isa: enum npu_isa, the level the op kernels run at: 0 (NPU_ISA_AUTO) the
 *       best this CPU runs; a lower level reproduces the bits of another
 *       machine or of the compiler's interpreter (NPU_ISA_BASELINE)
 * @serve_waits: a thread that waits for a fence (NPU_SERVE_MIN_WAIT_NS or
 *               more left) runs its queue's ready tasks meanwhile as an
 *               idle AI core (npu_serve()), so that a single-stream job
 *               needs no hand-off to a core thread and back; the
 *               in-process home sets it, the kernel module does not (its
 *               waits sleep, its kthreads compute)
 * @park_spin_us: how long an idle AI core's thread polls for work before
 *                it sleeps (0: it sleeps at once). A core that polls joins
 *                a task shared across cores within a microsecond instead
 *                of a wake-up later, which is what spreads tasks of tens
 *                of microseconds over cores; it costs a CPU while it
 *                polls, so a home sets it only when every AI core has a
 *                CPU of its own (the in-process home: 50, the kernel
 *                module: 0)
 * @ops: home hooks (copied)
 * @home_dev: passed back to the device-wide hooks
 */
struct npu_device_params {
	void *vram;
	u64 vram_size;
	u32 num_cores;
	u32 num_queues;
	u32 num_semaphores;
	u32 watchdog_ms;
	u64 job_budget_ms;
	u64 file_quota;
	u32 file_queues;
	u32 file_semaphores;
	u32 file_programs;
	u64 file_program_bytes;
	u32 isa;
	bool serve_waits;
	u32 park_spin_us;
	const struct npu_home_ops *ops;
	void *home_dev;
};

/* The longest poll of an idle core: beyond it, sleeping costs less. */
#define NPU_PARK_SPIN_MAX_US		1000u

/*
 * Default job budget: a job that keeps AI cores busy for a minute is
 * stopped (amdgpu's default compute job timeout is the same minute).
 */
#define NPU_JOB_BUDGET_DEFAULT_MS	60000ull
#define NPU_JOB_BUDGET_MAX_MS		86400000ull

/*
 * Per-file limits (Documentation/driver.rst, "Per-file limits"): one open
 * of the device cannot take what the others need. Defaults for
 * struct npu_device_params fields left 0.
 */
#define NPU_FILE_VRAM_DEFAULT_PCT	75
#define NPU_FILE_QUEUES_DEFAULT		1024
#define NPU_FILE_QUEUES_MAX		1048576u
#define NPU_FILE_PROGRAMS_DEFAULT	4096
#define NPU_FILE_PROGRAMS_MAX		1048576u
#define NPU_FILE_PROGRAM_BYTES_DEFAULT	(256ull << 20)

/**
 * npu_core_create() - build an emulated NPU and start its threads
 * @params: the device's parameters
 * @out: the device
 *
 * Return: 0, -EINVAL for parameters out of range, -ENOMEM.
 */
int npu_core_create(const struct npu_device_params *params,
		    struct npu_device **out);

/**
 * npu_core_destroy() - stop the threads and free the device
 * @dev: a device whose files are all closed. Buffer objects still referenced
 *       by the home (exported, mapped) must have been released.
 */
void npu_core_destroy(struct npu_device *dev);

/**
 * npu_core_test_control() - set a test mode of the device
 * @dev: the device
 * @knob: "instant" (0/1: tasks complete without computing), "hang" (the next
 *        @val compute tasks never finish by themselves: the watchdog must
 *        recover them), "fault" (the next @val compute tasks fail with
 *        DRM_NPU_FAULT_INJECTED), "fault_range" (the next @val compute
 *        tasks with operands see operand 0's buffer as empty: the dispatch
 *        check raises DRM_NPU_FAULT_OUT_OF_RANGE naming operand 0),
 *        "slow_us" (every task takes at least @val
 *        microseconds), "corrupt_op" (0 = off, else opcode + 1: every
 *        element of the output of that opcode's tasks gets the lowest bit
 *        of its exponent flipped - f32 and f16 values doubled or halved,
 *        integers their lowest bit: a wrong result for the diagnosis tools
 *        to find), "watchdog_ms" (the watchdog period, 10..3600000),
 *        "job_budget_ms" (AI-core time per job, 0 = none or 10..86400000),
 *        "file_quota" (VRAM bytes per file for files opened from now on,
 *        0 = none), "file_queues", "file_sems", "file_programs",
 *        "file_program_bytes" (the other per-file limits, for files opened
 *        from now on; at least 1, semaphores at most num_semaphores)
 * @val: the value
 *
 * Return: 0, -EINVAL for an unknown knob or a value out of range.
 */
int npu_core_test_control(struct npu_device *dev, const char *knob, u64 val);

/**
 * npu_core_test_query() - read a test mode back (same knob names)
 * @dev: the device
 * @knob: as for npu_core_test_control()
 * @val: out
 *
 * Return: 0 or -EINVAL for an unknown knob.
 */
int npu_core_test_query(struct npu_device *dev, const char *knob, u64 *val);

/**
 * npu_core_busy_ns() - AI-core time the device has spent on tasks
 * @dev: the device
 *
 * The sum over all AI cores, including the tasks running now; for sysfs
 * and npu-smi (utilisation = delta busy / (delta time * num_cores)).
 *
 * Return: nanoseconds.
 */
u64 npu_core_busy_ns(struct npu_device *dev);

/**
 * npu_core_file_busy_ns() - AI-core time spent on a file's tasks
 * @file: the file
 *
 * For fdinfo's drm-engine-npu: the sum of the run time of every task of
 * the file's queues on any AI core, including the tasks running now.
 *
 * Return: nanoseconds.
 */
u64 npu_core_file_busy_ns(struct npu_file *file);

/**
 * npu_core_file_vram() - bytes of VRAM in the file's buffer objects
 * @file: the file
 *
 * For fdinfo's drm-total-vram / drm-resident-vram (all VRAM is resident).
 *
 * Return: bytes.
 */
u64 npu_core_file_vram(struct npu_file *file);

/**
 * npu_core_file_open() - open the device
 * @dev: the device
 * @home_file: the home's file object, passed back to bo_publish/bo_lookup
 * @out: the new file with empty handle tables
 *
 * Return: 0 or -ENOMEM.
 */
int npu_core_file_open(struct npu_device *dev, void *home_file,
		       struct npu_file **out);

/**
 * npu_core_file_close() - close a file
 * @file: the file; its handles are released, jobs not yet started on its
 *        queues are cancelled
 *
 * The task each of its queues is running is aborted (its job retires with
 * DRM_NPU_FAULT_CANCELLED at the next chunk of work units). Sleeps
 * (uninterruptibly) until that has happened - a chunk, about a
 * millisecond - so that on return no job of the file holds a buffer any
 * more. Buffers still
 * referenced elsewhere (mappings, PRIME, the home) stay.
 */
void npu_core_file_close(struct npu_file *file);

/**
 * npu_core_queue_abort() - retire every job of a queue now, keep the queue
 * @file: the file
 * @handle: a queue handle of @file
 *
 * Cancels the jobs that have not started and aborts the running task, as
 * DRM_IOCTL_NPU_QUEUE_DESTROY does, and returns once they have retired,
 * but the handle stays, so that the home can still read the queue's fault
 * ranges (the kernel home settles its syncobj points this way before the
 * destroy).
 *
 * Return: 0 or -ENOENT.
 */
int npu_core_queue_abort(struct npu_file *file, u32 handle);

/**
 * npu_core_gem_close() - DRM_IOCTL_GEM_CLOSE for homes without bo_publish
 * @file: the file
 * @handle: a buffer-object handle of @file
 *
 * Return: 0, -EINVAL if @handle is not a buffer object of @file.
 */
int npu_core_gem_close(struct npu_file *file, u32 handle);

/* Buffer objects (for the home: mapping, handles, PRIME). */

/**
 * npu_bo_get() - take a reference on a buffer object
 * @bo: the buffer object
 */
void npu_bo_get(struct npu_bo *bo);

/**
 * npu_bo_put() - drop a reference; the last one frees the VRAM range
 * @bo: the buffer object, or NULL
 */
void npu_bo_put(struct npu_bo *bo);

/**
 * npu_bo_size() - size of a buffer object in bytes (page multiple)
 * @bo: the buffer object
 *
 * Return: the size.
 */
u64 npu_bo_size(const struct npu_bo *bo);

/**
 * npu_bo_flags() - DRM_NPU_BO_* flags given at creation
 * @bo: the buffer object
 *
 * Return: the flags.
 */
u32 npu_bo_flags(const struct npu_bo *bo);

/**
 * npu_bo_home() - the home's private pointer slot of a buffer object
 * @bo: the buffer object
 *
 * Return: the address of a void * the home may use freely.
 */
void **npu_bo_home(struct npu_bo *bo);

/**
 * npu_bo_mmap_offset() - the core's unique mmap offset of a buffer object
 * @bo: the buffer object
 *
 * Used when the home has no bo_mmap_offset hook. Offsets are page aligned,
 * never reused, and the ranges [offset, offset + size) are disjoint.
 *
 * Return: the offset.
 */
u64 npu_bo_mmap_offset(const struct npu_bo *bo);

/**
 * npu_core_bo_find_mmap() - the buffer object mapped at a core mmap offset
 * @dev: the device
 * @offset: an offset inside [npu_bo_mmap_offset(bo), + npu_bo_size(bo))
 *
 * Return: the buffer object with a new reference, or NULL.
 */
struct npu_bo *npu_core_bo_find_mmap(struct npu_device *dev, u64 offset);

/**
 * npu_bo_vram_offset() - current byte offset of a buffer object in VRAM
 * @bo: the buffer object
 *
 * Only stable between npu_core_bo_map_lock() and npu_core_bo_map_unlock(),
 * or inside the bo_moved hook (which gives the new offset this way).
 *
 * Return: the offset.
 */
u64 npu_bo_vram_offset(const struct npu_bo *bo);

/**
 * npu_core_bo_peer_check() - may @dev's tasks use @bo (peer access)?
 * @dev: the importing device
 * @bo: a buffer object of @dev or of another device of the same home
 *
 * A buffer of another device (a peer) is usable when it is pinned there:
 * tasks of @dev then read and write it in its owner's VRAM, with no host
 * copy. Its busy state and CPU mappings stay with its owner (BO_WAIT and
 * BO_INFO report the owner's jobs; BO_MMAP_OFFSET through @dev: -EINVAL).
 *
 * Return: 0, -EINVAL (not pinned) or -EOPNOTSUPP (a home with task_map).
 */
int npu_core_bo_peer_check(struct npu_device *dev, struct npu_bo *bo);

/**
 * npu_core_file_bo_import() - give a file a handle to a buffer (PRIME)
 * @file: the importing file (a home without bo_publish)
 * @bo: the buffer object, from npu_core_bo_find_mmap() or a lookup
 * @handle: out; the existing handle if @file has one for @bo already
 *
 * @bo may belong to another device of the home: npu_core_bo_peer_check().
 *
 * Return: 0, -ENOMEM, -ENOSPC (handle table full) or the peer check's
 * error.
 */
int npu_core_file_bo_import(struct npu_file *file, struct npu_bo *bo,
			    u32 *handle);

/**
 * npu_core_file_has_bo() - whether a file holds a handle to a buffer
 * @file: the file
 * @bo: the buffer object
 *
 * For homes without bo_publish: mmap() of a buffer is allowed only to files
 * that have a handle to it (drm_vma_node_is_allowed() in the kernel).
 *
 * Return: true if one of @file's buffer handles names @bo.
 */
bool npu_core_file_has_bo(struct npu_file *file, struct npu_bo *bo);

/**
 * npu_core_bo_map_lock() - pin a buffer's VRAM offset for a CPU mapping
 * @bo: the buffer object
 *
 * Takes dev->pool_lock, so compaction cannot move @bo until
 * npu_core_bo_map_unlock(). The home maps VRAM at the returned offset (the
 * kernel's fault handler inserts the pages) and records the mapping so that
 * bo_moved can shoot it down later.
 *
 * Return: the byte offset of @bo inside VRAM.
 */
u64 npu_core_bo_map_lock(struct npu_bo *bo);

/**
 * npu_core_bo_map_unlock() - end of npu_core_bo_map_lock()
 * @bo: the buffer object
 */
void npu_core_bo_map_unlock(struct npu_bo *bo);

/**
 * npu_core_file_bo_lookup() - a buffer object of a file by handle
 * @file: the file
 * @handle: a handle of @file (from the home's table if it has bo_lookup)
 *
 * Return: the buffer object with a new reference, or NULL.
 */
struct npu_bo *npu_core_file_bo_lookup(struct npu_file *file, u32 handle);

/* One entry per ioctl. Return 0 or -errno (Documentation/uapi.rst). */

/**
 * npu_ioctl_device_info() - DRM_IOCTL_NPU_DEVICE_INFO
 * @file: the calling file
 * @args: the copied-in struct; filled on success
 *
 * Return: 0, -EINVAL if a reserved field is non-zero.
 */
int npu_ioctl_device_info(struct npu_file *file,
			  struct drm_npu_device_info *args);

/**
 * npu_ioctl_bo_create() - DRM_IOCTL_NPU_BO_CREATE
 * @file: the calling file
 * @args: the copied-in struct; @handle filled on success
 *
 * Return: 0, -EINVAL (size 0, bad alignment, unknown flags, reserved),
 * -E2BIG (size larger than VRAM), -EDQUOT (file quota), -ENOMEM (no VRAM
 * range even after compaction).
 */
int npu_ioctl_bo_create(struct npu_file *file, struct drm_npu_bo_create *args);

/**
 * npu_ioctl_bo_mmap_offset() - DRM_IOCTL_NPU_BO_MMAP_OFFSET
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (pad), -ENOENT (no such buffer in this file).
 */
int npu_ioctl_bo_mmap_offset(struct npu_file *file,
			     struct drm_npu_bo_mmap_offset *args);

/**
 * npu_ioctl_bo_info() - DRM_IOCTL_NPU_BO_INFO
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (flags/pad/reserved on input), -ENOENT.
 */
int npu_ioctl_bo_info(struct npu_file *file, struct drm_npu_bo_info *args);

/**
 * npu_ioctl_bo_wait() - DRM_IOCTL_NPU_BO_WAIT
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (pad, negative timeout), -ENOENT, -ETIME.
 */
int npu_ioctl_bo_wait(struct npu_file *file, struct drm_npu_bo_wait *args);

/**
 * npu_ioctl_program_create() - DRM_IOCTL_NPU_PROGRAM_CREATE
 * @file: the calling file
 * @args: the copied-in struct; tasks are read through copy_from_user
 *
 * Return: 0, -EINVAL (with error_task/error_operand), -E2BIG (too many
 * tasks), -EFAULT, -ENOMEM.
 */
int npu_ioctl_program_create(struct npu_file *file,
			     struct drm_npu_program_create *args);

/**
 * npu_ioctl_program_destroy() - DRM_IOCTL_NPU_PROGRAM_DESTROY
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (pad), -ENOENT.
 */
int npu_ioctl_program_destroy(struct npu_file *file,
			      struct drm_npu_program_destroy *args);

/**
 * npu_ioctl_queue_create() - DRM_IOCTL_NPU_QUEUE_CREATE
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (priority, flags), -ENOMEM.
 */
int npu_ioctl_queue_create(struct npu_file *file,
			   struct drm_npu_queue_create *args);

/**
 * npu_ioctl_queue_destroy() - DRM_IOCTL_NPU_QUEUE_DESTROY
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Cancels the queue's jobs that have not started and aborts the task it is
 * running, then waits until they have retired (a chunk of work units).
 *
 * Return: 0, -EINVAL (pad), -ENOENT.
 */
int npu_ioctl_queue_destroy(struct npu_file *file,
			    struct drm_npu_queue_destroy *args);

/**
 * npu_ioctl_queue_query() - DRM_IOCTL_NPU_QUEUE_QUERY
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (unknown flags, reserved), -ENOENT.
 */
int npu_ioctl_queue_query(struct npu_file *file,
			  struct drm_npu_queue_query *args);

/**
 * npu_ioctl_sem_create() - DRM_IOCTL_NPU_SEM_CREATE
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (flags), -ENOSPC (every hardware semaphore in use).
 */
int npu_ioctl_sem_create(struct npu_file *file,
			 struct drm_npu_sem_create *args);

/**
 * npu_ioctl_sem_destroy() - DRM_IOCTL_NPU_SEM_DESTROY
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (pad), -ENOENT.
 */
int npu_ioctl_sem_destroy(struct npu_file *file,
			  struct drm_npu_sem_destroy *args);

/**
 * npu_ioctl_sem_signal() - DRM_IOCTL_NPU_SEM_SIGNAL
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (pad, value not above the current one), -ENOENT.
 */
int npu_ioctl_sem_signal(struct npu_file *file,
			 struct drm_npu_sem_signal *args);

/**
 * npu_ioctl_sem_wait() - DRM_IOCTL_NPU_SEM_WAIT
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (flags, negative timeout), -ENOENT, -ETIME.
 */
int npu_ioctl_sem_wait(struct npu_file *file, struct drm_npu_sem_wait *args);

/**
 * npu_ioctl_sem_query() - DRM_IOCTL_NPU_SEM_QUERY
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (pad), -ENOENT.
 */
int npu_ioctl_sem_query(struct npu_file *file, struct drm_npu_sem_query *args);

/**
 * npu_ioctl_submit() - DRM_IOCTL_NPU_SUBMIT
 * @file: the calling file
 * @args: the copied-in struct; arrays read through copy_from_user
 *
 * Return: 0, -EINVAL, -ENOENT (a handle), -ENOSPC (a buffer smaller than its
 * slot needs, or the profile range), -EFAULT, -ENOMEM.
 */
int npu_ioctl_submit(struct npu_file *file, struct drm_npu_submit *args);

/**
 * npu_ioctl_wait_fence() - DRM_IOCTL_NPU_WAIT_FENCE
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EIO (job faulted or cancelled), -ETIME, -EINVAL (flags,
 * negative timeout, fence never handed out), -ENOENT.
 */
int npu_ioctl_wait_fence(struct npu_file *file,
			 struct drm_npu_wait_fence *args);

/**
 * npu_ioctl_mem_stats() - DRM_IOCTL_NPU_MEM_STATS
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (reserved).
 */
int npu_ioctl_mem_stats(struct npu_file *file, struct drm_npu_mem_stats *args);

/**
 * npu_ioctl_compact() - DRM_IOCTL_NPU_COMPACT
 * @file: the calling file
 * @args: the copied-in struct
 *
 * Return: 0, -EINVAL (flags, pad), -ENOSPC (no hole of min_hole bytes can
 * be opened).
 */
int npu_ioctl_compact(struct npu_file *file, struct drm_npu_compact *args);

/**
 * npu_core_ioctl() - dispatch by DRM_NPU_* number (in-process home)
 * @file: the calling file
 * @nr: DRM_NPU_DEVICE_INFO ... DRM_NPU_COMPACT
 * @args: the kernel-side copy of the ioctl's struct
 *
 * Return: as the ioctl's entry point; -EINVAL for an unknown @nr.
 */
int npu_core_ioctl(struct npu_file *file, u32 nr, void *args);

/**
 * npu_core_ioctl_size() - size of the struct of ioctl @nr
 * @nr: DRM_NPU_* number
 *
 * Return: bytes, 0 for an unknown number.
 */
size_t npu_core_ioctl_size(u32 nr);

#endif /* NPU_CORE_H */
