/* SPDX-License-Identifier: MIT */
/*
 * target.h - the device a model is compiled for (ATC's --soc_version).
 *
 * A target is either a named profile (a table in target.c; the default,
 * "sim910", is the in-process device with its default parameters) or the
 * capabilities one device reports through DRM_IOCTL_NPU_DEVICE_INFO
 * (npuc --target-device). Stream assignment and semaphore allocation are
 * sized to it, counting what the runtime itself creates per loaded model
 * (om.h, OM_RT_*), so a model compiled for a target loads on it.
 * Documentation/target-profiles.rst describes the profiles and the budget.
 */
#ifndef NPUC_TARGET_H
#define NPUC_TARGET_H

#include <stddef.h>
#include <stdint.h>

struct drm_npu_device_info;

/**
 * struct npuc_target - what the compiler may assume of the device
 * @name: profile name, or "device:SPEC" when read from a device
 * @model: DRM_NPU_MODEL_*
 * @features: DRM_NPU_FEATURE_* the device has
 * @num_cores: AI cores
 * @num_queues: hardware queues (streams beyond them do not run in parallel)
 * @num_semaphores: hardware semaphores
 * @max_tasks: tasks per program
 * @vram_size: bytes of device memory
 * @alignment: buffer alignment (the device page)
 * @file_queues, @file_semaphores, @file_vram_quota: per-file limits of the
 *     driver (uapi 1.1 DEVICE_INFO); 0 = none
 */
struct npuc_target {
	char name[64];
	uint32_t model;
	uint64_t features;
	uint32_t num_cores;
	uint32_t num_queues;
	uint32_t num_semaphores;
	uint32_t max_tasks;
	uint64_t vram_size;
	uint32_t alignment;
	uint32_t file_queues;
	uint32_t file_semaphores;
	uint64_t file_vram_quota;
};

/**
 * struct npuc_budget - what one model may use on a target
 * @max_streams: streams (queues) for the model's programs
 * @max_semaphores: semaphores for the model, the runtime's included
 * @sems_per_stream, @sems_fixed: the runtime's share (om.h OM_RT_*)
 * @limit: the resource that bounds @max_streams ("queues", "semaphores",
 *         "option" when --max-streams is the bound)
 */
struct npuc_budget {
	uint32_t max_streams;
	uint32_t max_semaphores;
	uint32_t sems_per_stream;
	uint32_t sems_fixed;
	const char *limit;
};

#define NPUC_DEFAULT_TARGET	"sim910"

/*
 * npuc_target_profile() - the named profile (NULL or "": the default).
 * Return: 0, or -ENOENT with @err listing the known names.
 */
int npuc_target_profile(const char *name, struct npuc_target *t, char *err,
			size_t errlen);

/* The profile names, for --help: "sim910, sim910-lite, ...". */
const char *npuc_target_names(void);

/* A target from a device's DEVICE_INFO, named "device:@spec". */
void npuc_target_from_info(const struct drm_npu_device_info *di,
			   const char *spec, struct npuc_target *t);

/*
 * npuc_target_budget() - the budget of one model on @t with at most
 * @want_streams streams (the --max-streams or -O level figure).
 */
void npuc_target_budget(const struct npuc_target *t, uint32_t want_streams,
			struct npuc_budget *b);

#endif /* NPUC_TARGET_H */
