/* SPDX-License-Identifier: MIT */
/*
 * smi.h - npu-smi's model of what it reports: devices (from sysfs and the
 * device's ioctls) and the processes that use them (from fdinfo).
 */
#ifndef NPU_SMI_H
#define NPU_SMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef NPU_VERSION
#define NPU_VERSION	"unknown"	/* mk/version.mk sets it */
#endif

#define SMI_MAX_DEVICES	16
#define SMI_MAX_PROCS	256

/* One NPU. Figures are bytes / ns unless named otherwise. */
struct smi_device {
	int index;
	char name[64];		/* platform device, e.g. npu_drv.0 */
	char node[64];		/* /dev/dri/renderD128 or "in-process" */
	unsigned int minor;	/* of the node */
	char driver[32];
	char driver_version[32];
	char uapi_version[16];
	uint32_t model;
	uint32_t cores, queues;
	uint64_t vram_total, vram_used, vram_free, largest_free, peak_used;
	uint64_t num_bos, free_ranges, compactions, bytes_moved, pause_ns;
	uint64_t alloc_failures, fragmentation_ppm;
	uint64_t busy_ns, jobs_completed, jobs_faulted;
	double util_pct;	/* busy share of the sample window, -1 unknown */
};

/* One process's use of one device (all its files on it together). */
struct smi_proc {
	pid_t pid;
	int device;		/* smi_device.index */
	char comm[32];
	unsigned int clients;	/* distinct drm-client-id */
	uint64_t vram;		/* drm-total-vram */
	uint64_t engine_ns;	/* drm-engine-npu */
};

/* smi_dev.c */
int smi_find_devices(struct smi_device *devs, int max);
int smi_refresh_device(struct smi_device *dev);
int smi_sim_device(unsigned int index, struct smi_device *dev);
void smi_sample_utilisation(struct smi_device *devs, int n,
			    unsigned int window_ms);

/* smi_proc.c */
int smi_find_procs(const struct smi_device *devs, int ndev,
		   struct smi_proc *procs, int max);

/* smi_fmt.c */
const char *smi_size(uint64_t bytes, char *buf, size_t len);
void smi_print_table(const struct smi_device *devs, int ndev,
		     const struct smi_proc *procs, int nproc);
void smi_print_memory(const struct smi_device *devs, int ndev);
int smi_check_fields(const char *fields);
void smi_print_query(const struct smi_device *devs, int ndev,
		     const char *fields, bool json, bool header);
void smi_list_fields(void);

#endif /* NPU_SMI_H */
