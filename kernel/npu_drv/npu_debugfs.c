// SPDX-License-Identifier: GPL-2.0
/*
 * npu_debugfs.c - /sys/kernel/debug/dri/<minor>/npu/ (for the primary and
 * the render minor alike):
 *
 *   instant hang fault fault_range slow_us watchdog_ms file_quota job_budget_ms
 *   file_queues file_sems file_programs file_program_bytes corrupt_op
 *               test-mode knobs, read and written as decimal numbers; the
 *               names and meanings are the core's (npu_core_test_control()),
 *               the same that the transport's npu_dev_test_control() sets
 *               on the in-process device
 *   compact     write N: open a hole of N bytes moving the fewest bytes
 *               (0: compact everything); read: the last result
 *   mem_stats   the pool's statistics
 *   queues      every open file's queues: hardware queue, fences, faults
 *   pool        the VRAM map: every buffer object by offset, and the holes
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>

#include "npu_drv.h"

/* The core's knobs; a file is created for each one the core answers. */
static const char * const npu_knob_names[NPU_NUM_KNOBS] = {
	"instant", "hang", "fault", "fault_range", "slow_us", "watchdog_ms",
	"file_quota", "job_budget_ms", "file_queues", "file_sems",
	"file_programs", "file_program_bytes", "corrupt_op",
};

static int npu_knob_get(void *data, u64 *val)
{
	struct npu_knob *knob = data;

	return npu_core_test_query(knob->ndev->core, knob->name, val);
}

static int npu_knob_set(void *data, u64 val)
{
	struct npu_knob *knob = data;

	return npu_core_test_control(knob->ndev->core, knob->name, val);
}

DEFINE_DEBUGFS_ATTRIBUTE(npu_knob_fops, npu_knob_get, npu_knob_set, "%llu\n");

static int npu_compact_show(struct seq_file *m, void *unused)
{
	struct npu_drm_device *ndev = m->private;

	mutex_lock(&ndev->compact_lock);
	seq_printf(m, "result: %d\nmin_hole: %llu\nbytes_moved: %llu\nlargest_free: %llu\n",
		   ndev->last_compact_ret, ndev->last_compact.min_hole,
		   ndev->last_compact.bytes_moved,
		   ndev->last_compact.largest_free);
	mutex_unlock(&ndev->compact_lock);
	return 0;
}

static int npu_compact_open(struct inode *inode, struct file *f)
{
	return single_open(f, npu_compact_show, inode->i_private);
}

static ssize_t npu_compact_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *pos)
{
	struct npu_drm_device *ndev = file_inode(f)->i_private;
	struct drm_npu_compact args = {};
	int ret;

	ret = kstrtoull_from_user(ubuf, len, 0, &args.min_hole);
	if (ret)
		return ret;
	mutex_lock(&ndev->compact_lock);
	ret = npu_ioctl_compact(ndev->kfile, &args);
	ndev->last_compact = args;
	ndev->last_compact_ret = ret;
	mutex_unlock(&ndev->compact_lock);
	return ret ? ret : len;
}

static const struct file_operations npu_compact_fops = {
	.owner = THIS_MODULE,
	.open = npu_compact_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = npu_compact_write,
};

static int npu_mem_stats_show(struct seq_file *m, void *unused)
{
	struct npu_drm_device *ndev = m->private;
	struct drm_npu_mem_stats st = {};
	int ret = npu_ioctl_mem_stats(ndev->kfile, &st);

	if (ret)
		return ret;
	seq_printf(m, "vram_total: %llu\nvram_used: %llu\nvram_free: %llu\n"
		   "largest_free: %llu\npeak_used: %llu\nnum_bos: %llu\n"
		   "num_free_ranges: %llu\ncompactions: %llu\n"
		   "bytes_moved: %llu\npause_ns: %llu\nalloc_failures: %llu\n",
		   st.vram_total, st.vram_used, st.vram_free, st.largest_free,
		   st.peak_used, st.num_bos, st.num_free_ranges,
		   st.compactions, st.bytes_moved, st.pause_ns,
		   st.alloc_failures);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_mem_stats);

static int npu_queues_show(struct seq_file *m, void *unused)
{
	struct npu_drm_device *ndev = m->private;
	struct npu_drm_file *nfile;

	seq_puts(m, "client handle hw_queue submitted completed faults last_fault\n");
	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nfile, &ndev->files, link) {
		struct npu_drm_queue *q;
		unsigned long handle;

		xa_for_each(&nfile->queues, handle, q) {
			struct drm_npu_queue_query qq = { .handle = handle };

			if (npu_ioctl_queue_query(nfile->core_file, &qq))
				continue;
			seq_printf(m, "%6llu %6lu %8u %9llu %9llu %6u %u@%llu\n",
				   nfile->client_id, handle, q->hw_queue,
				   qq.submitted, qq.completed, qq.num_faults,
				   qq.fault_reason, qq.fault_fence);
		}
	}
	mutex_unlock(&ndev->files_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_queues);

struct npu_map_entry {
	u64 start;
	u64 size;
	u64 client;
	struct npu_bo *bo;
};

static int npu_map_cmp(const void *a, const void *b)
{
	const struct npu_map_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Appends the buffer objects of @file (skipping ones already listed). */
static void npu_map_collect(struct npu_drm_file *nfile,
			    struct npu_map_entry *map, unsigned int *n,
			    unsigned int max)
{
	struct drm_file *file = nfile->drm_file;
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct npu_bo *bo = to_npu_gem(obj)->bo;
		unsigned int i;

		for (i = 0; i < *n && map[i].bo != bo; i++)
			;
		if (i < *n || *n == max)
			continue;
		npu_bo_get(bo);
		map[*n].bo = bo;
		map[*n].size = obj->size;
		map[*n].client = nfile->client_id;
		(*n)++;
	}
	spin_unlock(&file->table_lock);
}

static int npu_pool_show(struct seq_file *m, void *unused)
{
	struct npu_drm_device *ndev = m->private;
	const unsigned int max = 4096;
	struct npu_map_entry *map;
	struct npu_drm_file *nfile;
	unsigned int n = 0, i;
	u64 at = 0;

	map = kvcalloc(max, sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nfile, &ndev->files, link)
		npu_map_collect(nfile, map, &n, max);
	mutex_unlock(&ndev->files_lock);

	for (i = 0; i < n; i++) {
		map[i].start = npu_core_bo_map_lock(map[i].bo);
		npu_core_bo_map_unlock(map[i].bo);
	}
	sort(map, n, sizeof(*map), npu_map_cmp, NULL);

	seq_printf(m, "%-18s %-12s %s\n", "start", "size", "owner");
	for (i = 0; i < n; i++) {
		if (map[i].start > at)
			seq_printf(m, "0x%016llx %-12llu (free)\n", at,
				   map[i].start - at);
		seq_printf(m, "0x%016llx %-12llu client %llu%s\n", map[i].start,
			   map[i].size, map[i].client,
			   npu_bo_flags(map[i].bo) & DRM_NPU_BO_PINNED ?
			   " pinned" : "");
		at = max_t(u64, at, map[i].start + map[i].size);
		npu_bo_put(map[i].bo);
	}
	if (at < ndev->vram_size)
		seq_printf(m, "0x%016llx %-12llu (free)\n", at,
			   ndev->vram_size - at);
	if (n == max)
		seq_puts(m, "(truncated)\n");
	seq_puts(m, "(buffers held only by jobs are not listed)\n");
	kvfree(map);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_pool);

static void npu_debugfs_populate(struct npu_drm_device *ndev,
				 struct dentry *root)
{
	struct dentry *dir;
	int i;

	if (!root)
		return;
	dir = debugfs_create_dir("npu", root);
	for (i = 0; i < NPU_NUM_KNOBS; i++) {
		u64 val;

		if (npu_core_test_query(ndev->core, npu_knob_names[i], &val))
			continue;
		debugfs_create_file_unsafe(npu_knob_names[i], 0600, dir,
					   &ndev->knobs[i], &npu_knob_fops);
	}
	debugfs_create_file("compact", 0600, dir, ndev, &npu_compact_fops);
	debugfs_create_file("mem_stats", 0444, dir, ndev, &npu_mem_stats_fops);
	debugfs_create_file("queues", 0444, dir, ndev, &npu_queues_fops);
	debugfs_create_file("pool", 0444, dir, ndev, &npu_pool_fops);
}

/**
 * npu_debugfs_init() - create the npu/ directories of the device's minors
 * @ndev: a registered device (DRM removes the minors' directories, ours
 *        included, on unregister)
 */
void npu_debugfs_init(struct npu_drm_device *ndev)
{
	int i;

	for (i = 0; i < NPU_NUM_KNOBS; i++) {
		ndev->knobs[i].ndev = ndev;
		ndev->knobs[i].name = npu_knob_names[i];
	}
	if (ndev->drm.primary)
		npu_debugfs_populate(ndev, ndev->drm.primary->debugfs_root);
	if (ndev->drm.render)
		npu_debugfs_populate(ndev, ndev->drm.render->debugfs_root);
}
