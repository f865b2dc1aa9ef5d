// SPDX-License-Identifier: GPL-2.0
/*
 * npu_gem.c - GEM objects over the core's VRAM buffer objects.
 *
 * A GEM object wraps one core buffer object (struct npu_bo) and holds a
 * reference on it, so DRM_IOCTL_GEM_CLOSE, handle lifetime and mmap offsets
 * are DRM's own. The bytes live in VRAM (vmalloc'ed memory), at an offset
 * that compaction may change: CPU mappings are therefore built page by page
 * in a fault handler that reads the offset under the core's pool lock, and
 * npu_gem_unmap() (the core's bo_moved hook) zaps them so the next access
 * refaults at the new place - TTM's move/fault scheme, without TTM.
 */
#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/version.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_vma_manager.h>

#include "npu_drv.h"

/* Pages mapped per fault beyond the faulting one (TTM prefaults 16). */
#define NPU_FAULT_AROUND	16

static const struct drm_gem_object_funcs npu_gem_funcs;

static vm_fault_t npu_gem_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct npu_drm_device *ndev = to_npu_dev(obj->dev);
	struct npu_bo *bo = to_npu_gem(obj)->bo;
	unsigned long npages = obj->size >> PAGE_SHIFT;
	unsigned long first = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	unsigned long addr = vmf->address;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	unsigned long i;
	u64 start;

	if (first >= npages)
		return VM_FAULT_SIGBUS;

	/* The pool lock keeps compaction from moving the range meanwhile. */
	start = npu_core_bo_map_lock(bo);
	for (i = 0; i < NPU_FAULT_AROUND && first + i < npages &&
	     addr < vma->vm_end; i++, addr += PAGE_SIZE) {
		void *va = ndev->vram + start + ((first + i) << PAGE_SHIFT);
		vm_fault_t r = vmf_insert_pfn(vma, addr, vmalloc_to_pfn(va));

		if (i == 0)
			ret = r;
		if (r & VM_FAULT_ERROR)
			break;
	}
	npu_core_bo_map_unlock(bo);
	return ret;
}

static const struct vm_operations_struct npu_gem_vm_ops = {
	.fault = npu_gem_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static int npu_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	/*
	 * No copy-on-write (MAP_PRIVATE) mappings, as TTM refuses them: raw
	 * PFN mappings cannot COW, and a private copy of device memory that
	 * compaction moves would make no sense anyway.
	 */
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	/*
	 * Raw PFN mappings of VRAM pages, never copied on fork (a child
	 * must not keep a view that compaction cannot see) or dumped.
	 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
		     VM_DONTCOPY);
#else
	vma->vm_flags |= VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY;
#endif
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	return 0;
}

static void npu_gem_free(struct drm_gem_object *obj)
{
	struct npu_gem_object *gem = to_npu_gem(obj);
	struct npu_bo *bo = gem->bo;

	/* From now on compaction's bo_moved no longer sees this object. */
	if (!gem->peer) {
		npu_core_bo_map_lock(bo);
		*npu_bo_home(bo) = NULL;
		npu_core_bo_map_unlock(bo);
	}
	npu_bo_put(bo);

	drm_gem_free_mmap_offset(obj);
	drm_gem_object_release(obj);
	kmem_cache_free(npu_gem_cache, gem);
}

/*
 * PRIME: a buffer can be shared with another file of the same device (the
 * importer gets a handle to the very same GEM object), and a pinned buffer
 * with another npu_drv device (peer access: the importer gets a GEM object
 * of its own over the same core buffer, whose tasks then address the
 * owner's VRAM directly; see npu_gem_prime_import()). Nothing else may
 * attach: compaction moves VRAM under any scatterlist handed out, and
 * mappings made through the dma-buf file could not be shot down. So
 * foreign attachments and dma-buf mmap are refused; importers mmap through
 * their own device file.
 */
static int npu_dmabuf_attach(struct dma_buf *dma_buf,
			     struct dma_buf_attachment *attach)
{
	return -EOPNOTSUPP;
}

static struct sg_table *npu_dmabuf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void npu_dmabuf_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt, enum dma_data_direction dir)
{
}

static int npu_dmabuf_mmap(struct dma_buf *dma_buf, struct vm_area_struct *vma)
{
	return -EOPNOTSUPP;
}

static const struct dma_buf_ops npu_dmabuf_ops = {
	.attach = npu_dmabuf_attach,
	.map_dma_buf = npu_dmabuf_map,
	.unmap_dma_buf = npu_dmabuf_unmap,
	.mmap = npu_dmabuf_mmap,
	.release = drm_gem_dmabuf_release,
};

static struct dma_buf *npu_gem_prime_export(struct drm_gem_object *obj,
					    int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	exp_info.ops = &npu_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/**
 * npu_gem_prime_import() - drm_driver.gem_prime_import
 * @drm: the importing device
 * @dma_buf: a dma-buf
 *
 * A buffer of another npu_drv device (a peer NPU of this host) is imported
 * as a new GEM object of @drm that shares the exporter's core buffer: the
 * devices' tasks reach each other's VRAM directly (device-to-device copies
 * with no host bounce), as GPUs do over PCIe peer-to-peer. It must be
 * pinned on its owner (npu_core_bo_peer_check()); it is not mappable
 * through @drm (map it through its own device). DRM keeps the dma-buf, and
 * with it the exporter's object, alive while the importer has a handle.
 *
 * Return: a GEM object with a new reference, ERR_PTR(-EINVAL) for an
 * unpinned peer buffer, or ERR_PTR(-EOPNOTSUPP) for another driver's
 * dma-buf: VRAM cannot hold another device's memory.
 */
struct drm_gem_object *npu_gem_prime_import(struct drm_device *drm,
					    struct dma_buf *dma_buf)
{
	struct drm_gem_object *obj = dma_buf->priv;
	struct npu_gem_object *gem;
	struct npu_bo *bo;
	int ret;

	if (dma_buf->ops != &npu_dmabuf_ops)
		return ERR_PTR(-EOPNOTSUPP);
	if (obj->dev == drm) {
		drm_gem_object_get(obj);
		return obj;
	}
	bo = to_npu_gem(obj)->bo;
	ret = npu_core_bo_peer_check(to_npu_dev(drm)->core, bo);
	if (ret)
		return ERR_PTR(ret);
	gem = kmem_cache_zalloc(npu_gem_cache, GFP_KERNEL);
	if (!gem)
		return ERR_PTR(-ENOMEM);
	gem->base.funcs = &npu_gem_funcs;
	drm_gem_private_object_init(drm, &gem->base, npu_bo_size(bo));
	npu_bo_get(bo);
	gem->bo = bo;
	gem->peer = true;
	return &gem->base;
}

static const struct drm_gem_object_funcs npu_gem_funcs = {
	.free = npu_gem_free,
	.export = npu_gem_prime_export,
	.mmap = npu_gem_mmap,
	.vm_ops = &npu_gem_vm_ops,
};

/**
 * npu_gem_publish() - wrap a new core buffer object in a GEM object
 * @file: the DRM file that gets the handle
 * @bo: the buffer object; the GEM object takes its own reference
 * @handle: out, the GEM handle
 *
 * Return: 0 or a negative errno (then nothing remains allocated).
 */
int npu_gem_publish(struct drm_file *file, struct npu_bo *bo, u32 *handle)
{
	struct drm_device *drm = file->minor->dev;
	struct npu_gem_object *gem;
	int ret;

	gem = kmem_cache_zalloc(npu_gem_cache, GFP_KERNEL);
	if (!gem)
		return -ENOMEM;
	gem->base.funcs = &npu_gem_funcs;
	drm_gem_private_object_init(drm, &gem->base, npu_bo_size(bo));
	npu_bo_get(bo);
	gem->bo = bo;

	npu_core_bo_map_lock(bo);
	*npu_bo_home(bo) = gem;
	npu_core_bo_map_unlock(bo);

	ret = drm_gem_create_mmap_offset(&gem->base);
	if (!ret)
		ret = drm_gem_handle_create(file, &gem->base, handle);
	/* The handle holds the object now; on failure this frees it. */
	drm_gem_object_put(&gem->base);
	return ret;
}

/**
 * npu_gem_lookup_bo() - the core buffer object behind a GEM handle
 * @file: the DRM file
 * @handle: a GEM handle of @file
 *
 * Return: the buffer object with a new reference, or NULL if @handle is not
 * one of our buffer objects in @file.
 */
struct npu_bo *npu_gem_lookup_bo(struct drm_file *file, u32 handle)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);
	struct npu_bo *bo = NULL;

	if (!obj)
		return NULL;
	if (obj->funcs == &npu_gem_funcs) {
		bo = to_npu_gem(obj)->bo;
		npu_bo_get(bo);
	}
	drm_gem_object_put(obj);
	return bo;
}

/**
 * npu_gem_mmap_offset() - the fake offset that mmap() maps @bo at
 * @bo: a buffer object
 *
 * Return: the offset, or 0 if its GEM object is already gone.
 */
u64 npu_gem_mmap_offset(struct npu_bo *bo)
{
	struct npu_gem_object *gem;
	u64 offset = 0;

	npu_core_bo_map_lock(bo);
	gem = *npu_bo_home(bo);
	if (gem && !gem->peer)
		offset = drm_vma_node_offset_addr(&gem->base.vma_node);
	npu_core_bo_map_unlock(bo);
	return offset;
}

/**
 * npu_gem_unmap() - shoot down every CPU mapping of @bo
 * @ndev: the device
 * @bo: a buffer object that compaction just moved
 *
 * Called under the core's pool lock, which also guards the GEM pointer.
 * The next CPU access faults and maps the new place.
 */
void npu_gem_unmap(struct npu_drm_device *ndev, struct npu_bo *bo)
{
	struct npu_gem_object *gem = *npu_bo_home(bo);

	if (gem)
		drm_vma_node_unmap(&gem->base.vma_node,
				   ndev->drm.anon_inode->i_mapping);
}

/**
 * npu_gem_file_usage() - VRAM of the buffer objects a file has handles to
 * @file: the DRM file
 * @usage: out: total, shared (also held by another file) and active (used
 *         by an unretired job) bytes
 */
void npu_gem_file_usage(struct drm_file *file, struct npu_gem_usage *usage)
{
	struct npu_drm_file *nfile = file->driver_priv;
	struct drm_gem_object *obj;
	int id = 0;

	memset(usage, 0, sizeof(*usage));
	for (;;) {
		struct drm_npu_bo_info info = {};

		spin_lock(&file->table_lock);
		obj = idr_get_next(&file->object_idr, &id);
		if (obj)
			drm_gem_object_get(obj);
		spin_unlock(&file->table_lock);
		if (!obj)
			break;
		usage->total += obj->size;
		if (obj->handle_count > 1)
			usage->shared += obj->size;
		info.handle = id;
		if (nfile && !npu_ioctl_bo_info(nfile->core_file, &info) &&
		    info.busy)
			usage->active += obj->size;
		drm_gem_object_put(obj);
		id++;
	}
}
