/* SPDX-License-Identifier: MIT */
/*
 * npu_sim.h - the in-process home of the NPU device core.
 *
 * NPU_SIM_DEVICES (1..8, default 1) emulated devices per process, all
 * created on the first open of any and destroyed when the last file of any
 * closes; every open is a DRM-file equivalent with its own handle tables.
 * Device parameters come from the environment at creation and are the
 * same for every device: NPU_SIM_VRAM_MB (512), NPU_SIM_CORES (4, at most
 * the CPUs of the process's affinity mask), NPU_SIM_QUEUES (8),
 * NPU_SIM_SEMS (256: a file may hold 64 of them), NPU_SIM_WATCHDOG_MS (2000),
 * NPU_SIM_JOB_BUDGET_MS (60000, 0 = no budget); and the guard-page test
 * mode NPU_SIM_GUARD (0; 1: every task sees only its own buffers, between
 * inaccessible guard regions of NPU_SIM_GUARD_MB MiB, 1024: npu_sim_guard.h;
 * one device only).
 *
 * VRAM lives in a memfd. A buffer's CPU mapping is an mmap() of the memfd at
 * the buffer's VRAM offset, so the CPU and the emulated device share the
 * same bytes. When compaction moves a buffer, every live mapping of it is
 * replaced in place (mmap MAP_FIXED at the new offset): the userspace
 * equivalent of the kernel shooting the mapping down and refaulting it.
 *
 * Concurrency caveat: the replacement is not atomic with respect to other
 * threads touching the mapping. A CPU store made through the mapping while
 * compaction copies that buffer (between the copy and the remap) can be
 * lost, and a load may see the old bytes. The kernel home has no such window
 * (faults block on the move). Do not write a buffer from the CPU while
 * another thread may trigger compaction (BO_CREATE under memory pressure or
 * DRM_IOCTL_NPU_COMPACT) - the runtime serialises this already.
 *
 * Everything here is thread safe.
 */
#ifndef NPU_SIM_H
#define NPU_SIM_H

#include <stddef.h>
#include <stdint.h>

#define NPU_SIM_MAX_DEVICES	8

struct npu_sim_file;

/**
 * npu_sim_num_devices() - how many in-process devices there are
 *
 * Return: NPU_SIM_DEVICES (1 when unset), or -EINVAL for a bad value.
 */
int npu_sim_num_devices(void);

/**
 * npu_sim_open() - open an in-process device (creating them if needed)
 * @index: the device, < npu_sim_num_devices()
 * @out: the new file
 *
 * Return: 0, -ENODEV (no such device), -EINVAL (bad NPU_SIM_* value),
 * -ENOMEM or another -errno.
 */
int npu_sim_open(unsigned int index, struct npu_sim_file **out);

/**
 * npu_sim_close() - close a file; the last close destroys the device
 * @f: the file, or NULL
 */
void npu_sim_close(struct npu_sim_file *f);

/**
 * npu_sim_ioctl() - the ioctl entry: DRM_IOCTL_NPU_*, DRM_IOCTL_GEM_CLOSE,
 *                   DRM_IOCTL_PRIME_HANDLE_TO_FD / FD_TO_HANDLE
 * @f: the file
 * @req: the request; struct sizes are handled as drm_ioctl() does
 * @arg: the struct
 *
 * PRIME works between the files of this process: the exported fd names the
 * buffer but, unlike a dma-buf, does not keep it alive (import of a fd
 * whose buffer is gone: -ENOENT; of another fd: -EINVAL). A file may
 * import a buffer of another device (peer access): pinned buffers only
 * (-EINVAL otherwise), used by its tasks in the owner's VRAM; it cannot be
 * mapped through the importer (BO_MMAP_OFFSET: -EINVAL).
 *
 * Return: 0 or -errno; other requests -EINVAL (unknown driver ioctl) or
 * -ENOTTY (not a DRM ioctl).
 */
int npu_sim_ioctl(struct npu_sim_file *f, unsigned long req, void *arg);

/**
 * npu_sim_mmap() - map (part of) a buffer object
 * @f: the file
 * @offset: BO_MMAP_OFFSET's offset, plus a page multiple inside the buffer
 * @len: bytes, within the buffer
 *
 * Return: the address, or NULL with errno set (EINVAL: no such buffer or
 * range; EACCES: @f has no handle to the buffer).
 */
void *npu_sim_mmap(struct npu_sim_file *f, uint64_t offset, size_t len);

/**
 * npu_sim_munmap() - remove a mapping made by npu_sim_mmap()
 * @f: the file
 * @p: the address
 * @len: the length given to npu_sim_mmap()
 *
 * Return: 0, -EINVAL if @p/@len is not such a mapping.
 */
int npu_sim_munmap(struct npu_sim_file *f, void *p, size_t len);

/**
 * npu_sim_test_control() - set a test mode (npu_core_test_control())
 * @f: the file
 * @knob: the knob
 * @val: the value
 *
 * Return: 0 or -EINVAL.
 */
int npu_sim_test_control(struct npu_sim_file *f, const char *knob,
			 uint64_t val);

#endif /* NPU_SIM_H */
