// SPDX-License-Identifier: GPL-2.0
/*
 * npu_fdinfo.c - /proc/<pid>/fdinfo/<fd> of an npu_drv file, with the keys
 * of Documentation/gpu/drm-usage-stats.rst so that gputop/nvtop-style tools
 * read it:
 *
 *   drm-driver          npu_drv
 *   drm-client-id       unique per open file (module-wide)
 *   drm-engine-npu      AI-core time spent on the file's tasks, summed
 *                       over the cores (ns)
 *   drm-engine-capacity-npu  the number of AI cores (tools divide by it)
 *   drm-total-vram      VRAM of every buffer object it has a handle to
 *   drm-shared-vram     ... of those another file has a handle to as well
 *   drm-resident-vram   ... of those resident in VRAM (all of them: the
 *                       emulated device never evicts)
 *   drm-active-vram     ... of those an unretired job uses
 *
 * and driver-specific keys (prefix npu_drv-): the device, the VRAM charged
 * to the file (which includes buffers whose handles were closed while jobs
 * still use them) and the file's quota.
 */
#include <linux/seq_file.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "npu_drv.h"

/* As drm_print_memory_stats() does: the largest unit that divides evenly. */
static void npu_print_size(struct seq_file *m, const char *key, u64 bytes)
{
	static const char * const units[] = { "", " KiB", " MiB" };
	unsigned int u = 0;

	while (u < ARRAY_SIZE(units) - 1 && bytes && !(bytes & (SZ_1K - 1))) {
		bytes >>= 10;
		u++;
	}
	seq_printf(m, "%s:\t%llu%s\n", key, bytes, units[u]);
}

/**
 * npu_show_fdinfo() - file_operations.show_fdinfo of the device file
 * @m: the fdinfo seq_file
 * @f: an open npu_drv device file
 */
void npu_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct npu_drm_file *nfile = file->driver_priv;
	struct npu_drm_device *ndev = nfile->ndev;
	struct drm_npu_mem_stats st = {};
	struct npu_gem_usage usage;

	npu_gem_file_usage(file, &usage);
	npu_ioctl_mem_stats(nfile->core_file, &st);

	seq_printf(m, "drm-driver:\t%s\n", ndev->drm.driver->name);
	seq_printf(m, "drm-client-id:\t%llu\n", nfile->client_id);
	seq_printf(m, "drm-engine-npu:\t%llu ns\n",
		   npu_core_file_busy_ns(nfile->core_file));
	seq_printf(m, "drm-engine-capacity-npu:\t%u\n", ndev->params.cores);
	npu_print_size(m, "drm-total-vram", usage.total);
	npu_print_size(m, "drm-shared-vram", usage.shared);
	npu_print_size(m, "drm-resident-vram", usage.total);
	npu_print_size(m, "drm-active-vram", usage.active);
	seq_printf(m, "npu_drv-device:\t%s\n", dev_name(ndev->drm.dev));
	npu_print_size(m, "npu_drv-charged-vram", st.file_used);
	npu_print_size(m, "npu_drv-quota-vram", st.file_quota);
}
