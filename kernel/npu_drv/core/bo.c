// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bo.c - buffer objects: VRAM ranges from the pool, their lifetime, the
 * pool's move callbacks (compaction) and the buffer ioctls.
 *
 * A buffer's VRAM offset changes only inside compaction, under pool_lock,
 * while the buffer is held: dispatch (which resolves addresses under
 * mem_lock) does not start tasks that use a held buffer, and compaction
 * never moves (nor waits for) a buffer a task is using. See npu_core.h for
 * the lock order.
 */
#include "npu_core_priv.h"

void npu_bo_get(struct npu_bo *bo)
{
	npu_ref_get(&bo->ref);
}

void npu_bo_put(struct npu_bo *bo)
{
	struct npu_device *dev;

	bool last;

	if (!bo)
		return;
	dev = bo->dev;
	/*
	 * The last reference and the unlinking go together under bos_lock, so
	 * that npu_core_bo_find_mmap() never revives a dying buffer.
	 */
	npu_mutex_lock(&dev->bos_lock);
	last = npu_ref_put(&bo->ref);
	if (last)
		npu_list_del(&bo->link);
	npu_mutex_unlock(&dev->bos_lock);
	if (!last)
		return;
	if (dev->ops.bo_free)
		dev->ops.bo_free(dev->home_dev, bo);
	npu_mutex_lock(&dev->pool_lock);
	npu_pool_free(dev->pool, &bo->node);
	bo->acct->used -= bo->size;
	npu_mutex_unlock(&dev->pool_lock);
	if (npu_ref_put(&bo->acct->ref))
		npu_free(bo->acct);
	npu_free(bo);
}

u64 npu_bo_size(const struct npu_bo *bo)
{
	return bo->size;
}

u32 npu_bo_flags(const struct npu_bo *bo)
{
	return bo->flags;
}

void **npu_bo_home(struct npu_bo *bo)
{
	return &bo->home;
}

u64 npu_bo_mmap_offset(const struct npu_bo *bo)
{
	return bo->mmap_offset;
}

u64 npu_bo_vram_offset(const struct npu_bo *bo)
{
	return bo->node.start;
}

u64 npu_core_bo_map_lock(struct npu_bo *bo)
{
	npu_mutex_lock(&bo->dev->pool_lock);
	return bo->node.start;
}

void npu_core_bo_map_unlock(struct npu_bo *bo)
{
	npu_mutex_unlock(&bo->dev->pool_lock);
}

struct npu_bo *npu_core_bo_find_mmap(struct npu_device *dev, u64 offset)
{
	struct npu_list *pos, *tmp;
	struct npu_bo *found = NULL;

	npu_mutex_lock(&dev->bos_lock);
	npu_list_for_each_safe(pos, tmp, &dev->bos) {
		struct npu_bo *bo = npu_container_of(pos, struct npu_bo, link);

		if (offset >= bo->mmap_offset &&
		    offset - bo->mmap_offset < bo->size) {
			found = bo;
			npu_bo_get(bo);
			break;
		}
	}
	npu_mutex_unlock(&dev->bos_lock);
	return found;
}

/* First mmap offset: above anything a 32-bit off_t user could confuse. */
#define NPU_MMAP_OFFSET_BASE	BIT_ULL(32)

int npu_bo_alloc(struct npu_device *dev, struct npu_acct *acct, u64 size,
		 u64 align, u32 flags, struct npu_bo **out)
{
	struct npu_bo *bo;
	int err;

	bo = npu_zalloc(sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	npu_ref_init(&bo->ref);
	bo->dev = dev;
	bo->size = size;
	bo->flags = flags;
	npu_list_init(&bo->link);

	npu_mutex_lock(&dev->pool_lock);
	if (acct->quota && (acct->used > acct->quota ||
			    size > acct->quota - acct->used)) {
		npu_mutex_unlock(&dev->pool_lock);
		npu_free(bo);
		return -EDQUOT;
	}
	err = npu_pool_alloc(dev->pool, &bo->node, size, align,
			     (flags & DRM_NPU_BO_PINNED) ? NPU_POOL_PINNED : 0,
			     bo);
	if (err) {
		npu_mutex_unlock(&dev->pool_lock);
		npu_free(bo);
		return err == -ENOMEM ? -ENOMEM : err;
	}
	memset(dev->vram + bo->node.start, 0, size);
	if (!dev->next_mmap_offset)
		dev->next_mmap_offset = NPU_MMAP_OFFSET_BASE;
	bo->mmap_offset = dev->next_mmap_offset;
	dev->next_mmap_offset += size;
	npu_mutex_lock(&dev->bos_lock);
	npu_list_add_tail(&bo->link, &dev->bos);
	npu_mutex_unlock(&dev->bos_lock);
	acct->used += size;
	npu_ref_get(&acct->ref);
	bo->acct = acct;
	npu_mutex_unlock(&dev->pool_lock);
	*out = bo;
	return 0;
}

/* ---- compaction callbacks (called by the pool under pool_lock) ---- */

/*
 * A buffer a task is using right now is busy: compaction leaves it where it
 * is rather than wait (under pool_lock) for a task that may run for as long
 * as the job budget. Buffers of jobs that are only queued move freely.
 */
static bool npu_bo_busy(void *priv, struct npu_pool_node *node)
{
	struct npu_device *dev = priv;
	struct npu_bo *bo = node->owner;
	bool busy;

	npu_mutex_lock(&dev->mem_lock);
	busy = bo->running != 0;
	npu_mutex_unlock(&dev->mem_lock);
	return busy;
}

static int npu_bo_quiesce(void *priv, struct npu_pool_node *node)
{
	struct npu_device *dev = priv;
	struct npu_bo *bo = node->owner;

	npu_mutex_lock(&dev->mem_lock);
	if (bo->running) {
		/* a task started on it since the compaction began */
		npu_mutex_unlock(&dev->mem_lock);
		return -EBUSY;
	}
	bo->hold++;		/* no task starts on it until resume */
	npu_mutex_unlock(&dev->mem_lock);
	/* CPU mappings go before the copy, or writes after it are lost. */
	if (dev->ops.bo_unmap)
		dev->ops.bo_unmap(dev->home_dev, bo);
	return 0;
}

static void npu_bo_copy(void *priv, u64 dst, u64 src, u64 size)
{
	struct npu_device *dev = priv;

	memmove(dev->vram + dst, dev->vram + src, size);
}

static void npu_bo_moved(void *priv, struct npu_pool_node *node, u64 old)
{
	struct npu_device *dev = priv;
	struct npu_bo *bo = node->owner;

	if (dev->ops.bo_moved)
		dev->ops.bo_moved(dev->home_dev, bo, old);
}

static void npu_bo_resume(void *priv, struct npu_pool_node *node)
{
	struct npu_device *dev = priv;
	struct npu_bo *bo = node->owner;

	npu_mutex_lock(&dev->mem_lock);
	bo->hold--;
	npu_waitq_wake_all(&dev->mem_wq);
	npu_mutex_unlock(&dev->mem_lock);
}

const struct npu_pool_move_ops npu_bo_move_ops = {
	.busy = npu_bo_busy,
	.quiesce = npu_bo_quiesce,
	.copy = npu_bo_copy,
	.moved = npu_bo_moved,
	.resume = npu_bo_resume,
};

/* ---- ioctls ---- */

int npu_ioctl_bo_create(struct npu_file *f, struct drm_npu_bo_create *args)
{
	struct npu_device *dev = f->dev;
	struct npu_bo *bo;
	u64 size;
	u32 handle;
	int err;

	if (args->reserved || (args->flags & ~DRM_NPU_BO_FLAGS) ||
	    args->size == 0)
		return -EINVAL;
	if (args->alignment && (!npu_is_pow2(args->alignment) ||
				args->alignment > dev->vram_size))
		return -EINVAL;
	if (args->size > dev->vram_size)
		return -E2BIG;
	size = npu_align_up(args->size, NPU_POOL_PAGE);
	err = npu_bo_alloc(dev, f->acct, size,
			   args->alignment ? args->alignment : NPU_POOL_PAGE,
			   args->flags, &bo);
	if (err)
		return err;
	if (dev->ops.bo_publish) {
		err = dev->ops.bo_publish(f->home_file, bo, &handle);
		npu_bo_put(bo);		/* the home holds its own reference */
		if (err)
			return err;
	} else {
		npu_mutex_lock(&f->lock);
		err = npu_handles_alloc(&f->bos, bo, &handle);
		npu_mutex_unlock(&f->lock);
		if (err) {
			npu_bo_put(bo);
			return err;
		}
	}
	args->handle = handle;
	return 0;
}

int npu_core_bo_peer_check(struct npu_device *dev, struct npu_bo *bo)
{
	if (bo->dev == dev)
		return 0;
	/*
	 * The importer's tasks address the buffer in its owner's VRAM,
	 * which compaction must not move meanwhile: only pinned buffers.
	 * A home that maps each task's buffers itself (task_map) knows
	 * only its own VRAM.
	 */
	if (!(bo->flags & DRM_NPU_BO_PINNED))
		return -EINVAL;
	if (dev->ops.task_map || bo->dev->ops.task_map)
		return -EOPNOTSUPP;
	return 0;
}

int npu_ioctl_bo_mmap_offset(struct npu_file *f,
			     struct drm_npu_bo_mmap_offset *args)
{
	struct npu_bo *bo;
	int err = 0;

	if (args->pad)
		return -EINVAL;
	bo = npu_core_file_bo_lookup(f, args->handle);
	if (!bo)
		return -ENOENT;
	if (bo->dev != f->dev) {
		/* a peer device's buffer: map it through that device */
		npu_bo_put(bo);
		return -EINVAL;
	}
	if (f->dev->ops.bo_mmap_offset) {
		u64 off = 0;

		err = f->dev->ops.bo_mmap_offset(f->home_file, bo, &off);
		args->offset = off;
	} else {
		args->offset = bo->mmap_offset;
	}
	npu_bo_put(bo);
	return err;
}

int npu_ioctl_bo_info(struct npu_file *f, struct drm_npu_bo_info *args)
{
	struct npu_device *dev = f->dev;
	struct npu_bo *bo;

	if (args->pad || args->reserved)
		return -EINVAL;
	bo = npu_core_file_bo_lookup(f, args->handle);
	if (!bo)
		return -ENOENT;
	args->flags = bo->flags;
	args->size = bo->size;
	dev = bo->dev;		/* a peer's buffer: its own device's figures */
	npu_mutex_lock(&dev->pool_lock);
	args->moves = bo->node.moves;
	npu_mutex_unlock(&dev->pool_lock);
	npu_mutex_lock(&dev->lock);
	args->busy = bo->busy ? 1 : 0;
	npu_mutex_unlock(&dev->lock);
	npu_bo_put(bo);
	return 0;
}

int npu_ioctl_bo_wait(struct npu_file *f, struct drm_npu_bo_wait *args)
{
	struct npu_device *dev = f->dev;
	struct npu_bo *bo;
	u64 deadline;
	int err;

	if (args->pad)
		return -EINVAL;
	err = npu_deadline(args->timeout_ns, &deadline);
	if (err)
		return err;
	bo = npu_core_file_bo_lookup(f, args->handle);
	if (!bo)
		return -ENOENT;
	dev = bo->dev;		/* a peer's buffer: jobs of its own device */
	npu_mutex_lock(&dev->lock);
	while (bo->busy) {
		err = npu_waitq_wait_interruptible(&dev->done_wq, &dev->lock,
						   deadline);
		if (err && bo->busy)
			break;
		err = 0;
	}
	npu_mutex_unlock(&dev->lock);
	npu_bo_put(bo);
	return err;
}

int npu_ioctl_mem_stats(struct npu_file *f, struct drm_npu_mem_stats *args)
{
	struct npu_device *dev = f->dev;
	struct npu_pool_stats st;

	if (!npu_mem_is_zero(args->reserved, sizeof(args->reserved)))
		return -EINVAL;
	npu_mutex_lock(&dev->pool_lock);
	npu_pool_get_stats(dev->pool, &st);
	args->file_used = f->acct->used;
	args->file_quota = f->acct->quota;
	npu_mutex_unlock(&dev->pool_lock);
	args->vram_total = st.total;
	args->vram_used = st.used;
	args->vram_free = st.free;
	args->largest_free = st.largest_free;
	args->peak_used = st.peak_used;
	args->num_bos = st.num_nodes;
	args->num_free_ranges = st.num_free_ranges;
	args->compactions = st.compactions;
	args->bytes_moved = st.bytes_moved;
	args->pause_ns = st.pause_ns;
	args->alloc_failures = st.alloc_failures;
	return 0;
}

int npu_ioctl_compact(struct npu_file *f, struct drm_npu_compact *args)
{
	struct npu_device *dev = f->dev;
	struct npu_pool_stats st;
	u64 moved = 0;
	int err;

	if (args->flags || args->pad)
		return -EINVAL;
	npu_mutex_lock(&dev->pool_lock);
	err = npu_pool_compact(dev->pool, args->min_hole, &moved);
	npu_pool_get_stats(dev->pool, &st);
	npu_mutex_unlock(&dev->pool_lock);
	args->bytes_moved = moved;
	args->largest_free = st.largest_free;
	if (err)
		return err == -ENOMEM ? -ENOSPC : err;
	return 0;
}
