/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm_util.h - helpers of the in-VM driver tests (npu_vmtest): TAP output,
 * the npu_drv device node, raw ioctls and a small COPY program.
 */
#ifndef VM_UTIL_H
#define VM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drm/npu_drm.h"

/* TAP lines without numbers; vm-tests.sh folds them into its own stream. */
void tap_ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tap_failures(void);

/* $NPU_DEVICE, else the first /dev/dri/renderD* whose driver is npu_drv. */
const char *vm_node_path(void);
int vm_open(void);

/* ioctl(); returns 0 or -errno, retrying on EINTR/EAGAIN. */
int vm_ioctl(int fd, unsigned long req, void *arg);

uint64_t vm_now_ns(void);
uint64_t vm_deadline(uint64_t ms_from_now);

int vm_bo_create(int fd, uint64_t size, uint32_t *handle);
int vm_bo_close(int fd, uint32_t handle);
void *vm_bo_map(int fd, uint32_t handle, uint64_t size);
int vm_mem_stats(int fd, struct drm_npu_mem_stats *st);
int vm_queue_create(int fd, uint32_t *handle);

/* A one-task program copying @n f32 from slot 0 to slot 1. */
int vm_copy_program(int fd, uint32_t n, uint32_t *handle);
int vm_submit(int fd, uint32_t queue, uint32_t program, const uint32_t *bos,
	      uint32_t num_bos, uint64_t *fence);
int vm_wait(int fd, uint32_t queue, uint64_t fence, uint64_t ms);

/* Writes @val to /sys/kernel/debug/dri/<minor>/npu/<knob>. */
int vm_knob(const char *knob, uint64_t val);

/* Parses one key of an fdinfo file into bytes (units KiB/MiB honoured). */
int vm_fdinfo_u64(pid_t pid, int fd, const char *key, uint64_t *val);
int vm_fdinfo_str(pid_t pid, int fd, const char *key, char *buf, size_t len);

#endif /* VM_UTIL_H */
