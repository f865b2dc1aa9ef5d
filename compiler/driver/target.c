// SPDX-License-Identifier: MIT
/*
 * target.c - target profiles and the per-model budget (target.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm/npu_drm.h>

#include "om/om.h"
#include "target.h"

#define MIB (1024ull * 1024)

/*
 * The profiles. "sim910" is the in-process device as libnpurt/sim creates
 * it without NPU_SIM_* variables: 4 cores, 8 hardware queues, 256
 * semaphores, 512 MiB of VRAM, and the device's default per-file limits
 * (driver.rst): a quarter of the semaphores (at least 16), 1024 queues,
 * 75% of VRAM. A model must fit what one open file may hold.
 */
static const struct npuc_target profiles[] = {
	{ .name = "sim910", .model = DRM_NPU_MODEL_SIM910,
	  .features = DRM_NPU_FEATURE_FP32 | DRM_NPU_FEATURE_INT8 |
		      DRM_NPU_FEATURE_NC1HWC0,
	  .num_cores = 4, .num_queues = 8, .num_semaphores = 256,
	  .max_tasks = DRM_NPU_MAX_TASKS, .vram_size = 512 * MIB,
	  .alignment = 4096, .file_queues = 1024, .file_semaphores = 64,
	  .file_vram_quota = 384 * MIB },
	/* NPU_SIM_CORES=2 NPU_SIM_QUEUES=2 NPU_SIM_SEMS=8 NPU_SIM_VRAM_MB=128 */
	{ .name = "sim910-lite", .model = DRM_NPU_MODEL_SIM910,
	  .features = DRM_NPU_FEATURE_FP32 | DRM_NPU_FEATURE_INT8 |
		      DRM_NPU_FEATURE_NC1HWC0,
	  .num_cores = 2, .num_queues = 2, .num_semaphores = 8,
	  .max_tasks = DRM_NPU_MAX_TASKS, .vram_size = 128 * MIB,
	  .alignment = 4096, .file_queues = 1024, .file_semaphores = 16,
	  .file_vram_quota = 96 * MIB },
	/* NPU_SIM_CORES=16 NPU_SIM_QUEUES=16 NPU_SIM_SEMS=256 NPU_SIM_VRAM_MB=2048 */
	{ .name = "sim910-x16", .model = DRM_NPU_MODEL_SIM910,
	  .features = DRM_NPU_FEATURE_FP32 | DRM_NPU_FEATURE_INT8 |
		      DRM_NPU_FEATURE_NC1HWC0,
	  .num_cores = 16, .num_queues = 16, .num_semaphores = 256,
	  .max_tasks = DRM_NPU_MAX_TASKS, .vram_size = 2048 * MIB,
	  .alignment = 4096, .file_queues = 1024, .file_semaphores = 64,
	  .file_vram_quota = 1536 * MIB },
};

const char *npuc_target_names(void)
{
	return "sim910 (default), sim910-lite, sim910-x16";
}

int npuc_target_profile(const char *name, struct npuc_target *t, char *err,
			size_t errlen)
{
	if (!name || !*name)
		name = NPUC_DEFAULT_TARGET;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(profiles[i].name, name)) {
			*t = profiles[i];
			return 0;
		}
	snprintf(err, errlen, "--target %s: no such profile; known: %s", name,
		 npuc_target_names());
	return -ENOENT;
}

void npuc_target_from_info(const struct drm_npu_device_info *di,
			   const char *spec, struct npuc_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "device:%s",
		 spec && *spec ? spec : "auto");
	t->model = di->model;
	t->features = di->features;
	t->num_cores = di->num_cores;
	t->num_queues = di->num_queues;
	t->num_semaphores = di->num_semaphores;
	t->max_tasks = di->max_tasks;
	t->vram_size = di->vram_size;
	t->alignment = 4096;
	/* the limits of the file that asked: a model must fit one file's */
	t->file_queues = di->file_queues;
	t->file_semaphores = di->file_semaphores;
	t->file_vram_quota = di->file_vram_quota;
}

static uint32_t min_nz(uint32_t a, uint32_t b)
{
	return !b || (a && a < b) ? a : b;
}

void npuc_target_budget(const struct npuc_target *t, uint32_t want,
			struct npuc_budget *b)
{
	uint32_t queues = t->num_queues ? t->num_queues : 1;

	memset(b, 0, sizeof(*b));
	b->sems_fixed = OM_RT_SEMS_FIXED;
	b->sems_per_stream = OM_RT_SEMS_PER_STREAM;
	b->max_semaphores = min_nz(t->num_semaphores, t->file_semaphores);
	/* Queue handles the file may create, less the context's own. */
	if (t->file_queues) {
		uint32_t q = t->file_queues > OM_RT_QUEUES_FIXED ?
			     (t->file_queues - OM_RT_QUEUES_FIXED) /
			     OM_RT_QUEUES_PER_STREAM : 1;

		if (q < queues)
			queues = q ? q : 1;
	}
	if (queues > DRM_NPU_MAX_SEM_POINTS)
		queues = DRM_NPU_MAX_SEM_POINTS;
	want = want ? want : 1;
	b->max_streams = want < queues ? want : queues;
	b->limit = want <= queues ? "option" : "queues";
}
