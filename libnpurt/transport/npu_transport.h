/* SPDX-License-Identifier: MIT */
/*
 * npu_transport.h - how userspace talks to an NPU: the npu_drv kernel node
 * or the in-process device, with the very same uapi structs.
 *
 * The runtime, the tools and the uapi selftests issue DRM_IOCTL_NPU_* ioctls
 * through npu_dev_ioctl() and never need to know which kind of device they
 * have. A kernel node is driven through libdrm (drmIoctl, mmap on the fd);
 * the in-process device (libnpurt/sim) runs the portable device core in this
 * process: one device per process, shared by every npu_dev_open() of "sim",
 * each open being its own DRM file with its own handles.
 *
 * Thread safety: every function may be called from several threads at once
 * on the same struct npu_dev, except npu_dev_close(), which must be the last
 * call on it.
 */
#ifndef NPU_TRANSPORT_H
#define NPU_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

struct npu_dev;

/**
 * npu_dev_open() - open an NPU
 * @spec: NULL or "" for automatic choice: $NPU_DEVICE if set ("sim" or a
 *        device path), else the first /dev/accel/accel* or
 *        /dev/dri/renderD* whose DRM driver is "npu_drv", else the
 *        in-process device. "sim" forces the in-process device 0, "sim:N"
 *        its device N (< NPU_SIM_DEVICES, -ENODEV otherwise); a path
 *        opens that node (refused with -ENODEV if its driver is not npu_drv).
 * @out: the opened device
 *
 * The in-process devices take their parameters from the environment on
 * first open: NPU_SIM_DEVICES (1), NPU_SIM_VRAM_MB (512), NPU_SIM_CORES (4, at
 * most the CPUs the process may run on),
 * NPU_SIM_QUEUES (8), NPU_SIM_SEMS (256), NPU_SIM_WATCHDOG_MS (2000),
 * NPU_SIM_SERVE_WAITS (1: a fence wait runs its queue's tasks itself).
 *
 * Return: 0 or -errno.
 */
int npu_dev_open(const char *spec, struct npu_dev **out);

/**
 * npu_dev_sim_count() - the number of in-process devices ("sim:0".."sim:N-1")
 *
 * Return: NPU_SIM_DEVICES (1 when unset), or -EINVAL for a bad value.
 */
int npu_dev_sim_count(void);

/**
 * npu_dev_ioctl() - issue an ioctl
 * @d: the device
 * @req: DRM_IOCTL_NPU_*, DRM_IOCTL_GEM_CLOSE, DRM_IOCTL_PRIME_HANDLE_TO_FD or
 *       DRM_IOCTL_PRIME_FD_TO_HANDLE (in-process: between the opens of this
 *       process, see libnpurt/sim/npu_sim.h)
 * @arg: the ioctl's struct, read and written as the kernel would
 *
 * Restarts an ioctl interrupted by a signal (-EINTR/-EAGAIN) like drmIoctl.
 *
 * Return: 0 or -errno (the uapi's documented errno).
 */
int npu_dev_ioctl(struct npu_dev *d, unsigned long req, void *arg);

/**
 * npu_dev_mmap() - map a buffer object into this process
 * @d: the device
 * @offset: from DRM_IOCTL_NPU_BO_MMAP_OFFSET
 * @len: bytes, at most the buffer's size
 *
 * The mapping stays valid when compaction moves the buffer (kernel: the next
 * access refaults; in-process: the mapping is replaced in place, see
 * libnpurt/sim/npu_sim.h for the caveat on concurrent CPU access).
 *
 * Return: the address, or NULL with errno set.
 */
void *npu_dev_mmap(struct npu_dev *d, uint64_t offset, size_t len);

/**
 * npu_dev_munmap() - undo npu_dev_mmap()
 * @d: the device
 * @p: the address npu_dev_mmap() returned
 * @len: the length given to npu_dev_mmap()
 *
 * Always use this, not munmap(): the in-process device re-points its
 * mappings when compaction moves a buffer and must know which still exist.
 *
 * Return: 0 or -errno.
 */
int npu_dev_munmap(struct npu_dev *d, void *p, size_t len);

/**
 * npu_dev_test_control() - set a test mode of the device
 * @d: the device
 * @knob: "instant", "hang", "fault", "fault_range", "slow_us", "watchdog_ms",
 *        "file_quota", "corrupt_op"
 *        (see Documentation/hardware.rst, "Test modes")
 * @val: the value
 *
 * In-process: set directly. Kernel node: written to the device's debugfs
 * directory (/sys/kernel/debug/dri/<minor>/npu/<knob>), which needs root.
 *
 * Return: 0, -EINVAL (unknown knob or value), -EOPNOTSUPP/-EACCES (kernel
 * node without debugfs access).
 */
int npu_dev_test_control(struct npu_dev *d, const char *knob, uint64_t val);

/**
 * npu_dev_is_kernel() - whether @d is a kernel device node
 * @d: the device
 *
 * Return: 1 for a kernel node, 0 for the in-process device.
 */
int npu_dev_is_kernel(struct npu_dev *d);

/**
 * npu_dev_name() - a human-readable name of the device
 * @d: the device
 *
 * Return: "sim" or the node's path; valid until npu_dev_close().
 */
const char *npu_dev_name(struct npu_dev *d);

/**
 * npu_dev_fd() - the file descriptor of a kernel node
 * @d: the device
 *
 * Return: the fd (for poll or PRIME), or -1 for the in-process device.
 */
int npu_dev_fd(struct npu_dev *d);

/**
 * npu_dev_close() - close the device; its handles are released
 * @d: the device, or NULL
 *
 * Unmap buffers with npu_dev_munmap() before. A kernel node keeps mappings
 * that outlive the file valid; the in-process device, when its last open
 * closes, removes the mappings that are left (their addresses must not be
 * used any more).
 */
void npu_dev_close(struct npu_dev *d);

#if defined(__cplusplus)
}
#endif

#endif /* NPU_TRANSPORT_H */
