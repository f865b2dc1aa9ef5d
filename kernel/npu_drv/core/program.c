// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * program.c - the program validator and the program ioctls.
 *
 * A program is checked once, at registration: every task's opcode and
 * params (npu_op_check() of the op kernels), every operand's byte extent
 * from its shape, strides and dtype with overflow checks, and, per slot, the
 * largest byte a task touches. Submission then only compares each bound
 * buffer's size with its slot's need (O(slots)).
 */
#include "npu_core_priv.h"

void npu_program_put(struct npu_program *prog)
{
	if (!prog || !npu_ref_put(&prog->ref))
		return;
	npu_vfree(prog->tasks);
	npu_vfree(prog->op_end);
	npu_vfree(prog->shareable);
	npu_free(prog->slot_need);
	npu_free(prog);
}

static int npu_check_sem_task(const struct drm_npu_task *t,
			      struct npu_program *prog)
{
	const struct drm_npu_sem_params *sp = &t->params.sem;

	if (t->num_operands || sp->pad || sp->index >= DRM_NPU_MAX_SEM_POINTS)
		return -EINVAL;
	if (!npu_mem_is_zero(t->params.raw + sizeof(*sp),
			     sizeof(t->params.raw) - sizeof(*sp)))
		return -EINVAL;
	if (sp->index + 1 > prog->num_sem_indices)
		prog->num_sem_indices = sp->index + 1;
	return 0;
}

static int npu_check_task(struct npu_program *prog, u32 ti, u32 *err_operand)
{
	const struct drm_npu_task *t = &prog->tasks[ti];
	u64 *ends = &prog->op_end[(u64)ti * DRM_NPU_MAX_OPERANDS];
	u32 i;
	int err;

	*err_operand = ~0u;
	if (t->flags || t->reserved ||
	    !npu_mem_is_zero(t->pad, sizeof(t->pad)) ||
	    t->num_operands > DRM_NPU_MAX_OPERANDS ||
	    t->opcode >= DRM_NPU_OP_COUNT)
		return -EINVAL;
	for (i = t->num_operands; i < DRM_NPU_MAX_OPERANDS; i++) {
		if (!npu_mem_is_zero(&t->operands[i], sizeof(t->operands[i]))) {
			*err_operand = i;
			return -EINVAL;
		}
	}
	for (i = 0; i < t->num_operands; i++) {
		err = npu_operand_end(&t->operands[i], &ends[i]);
		if (err) {
			*err_operand = i;
			return err;
		}
	}
	if (t->opcode == DRM_NPU_OP_SEM_SIGNAL ||
	    t->opcode == DRM_NPU_OP_SEM_WAIT)
		return npu_check_sem_task(t, prog);
	return npu_op_check(t, err_operand);
}

/*
 * Does every index of the view name a different element? Sort the
 * dimensions of extent > 1 by stride; each stride must pass the span of
 * the smaller ones (so stride 0 and interleaved dimensions fail).
 */
static bool npu_view_injective(const struct drm_npu_operand *o)
{
	u32 dims[DRM_NPU_MAX_RANK], n = 0, i, j;
	u64 span = 0;

	for (i = 0; i < o->rank; i++)
		if (o->shape[i] > 1)
			dims[n++] = i;
	for (i = 1; i < n; i++)		/* insertion sort by stride */
		for (j = i; j > 0 &&
		     o->strides[dims[j]] < o->strides[dims[j - 1]]; j--) {
			u32 t = dims[j];

			dims[j] = dims[j - 1];
			dims[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		const u32 d = dims[i];

		if (o->strides[d] <= span)
			return false;
		span += (u64)(o->shape[d] - 1) * o->strides[d];
	}
	return true;
}

static bool npu_same_view(const struct drm_npu_operand *a,
			  const struct drm_npu_operand *b)
{
	return a->offset == b->offset && npu_opnd_same_view(a, b);
}

/* Do operands @i and @o of a task touch a common byte of their slot? */
static bool npu_opnds_overlap(const struct drm_npu_task *t, const u64 *ends,
			      u32 i, u32 o)
{
	const struct drm_npu_operand *a = &t->operands[i], *b = &t->operands[o];

	return a->slot == b->slot && ends[i] > b->offset &&
	       ends[o] > a->offset && ends[i] != a->offset &&
	       ends[o] != b->offset;
}

/*
 * May the work units of task @ti run on several cores at once? Only if no
 * unit can write what another unit reads or writes: each operand the task
 * writes (npu_op_writes()) names distinct elements and overlaps no other
 * operand of the same slot - except an elementwise op in place on the very
 * same view. Otherwise the task stays on one core, in unit order.
 */
static bool npu_task_shareable(const struct npu_program *prog, u32 ti)
{
	const struct drm_npu_task *t = &prog->tasks[ti];
	const u64 *ends = &prog->op_end[(u64)ti * DRM_NPU_MAX_OPERANDS];
	bool elementwise = t->opcode == DRM_NPU_OP_COPY ||
			   t->opcode == DRM_NPU_OP_BINARY ||
			   t->opcode == DRM_NPU_OP_UNARY ||
			   t->opcode == DRM_NPU_OP_WHERE;
	u32 o, i;

	if (t->num_operands == 0)
		return false;
	for (o = 0; o < t->num_operands; o++) {
		if (!npu_op_writes(t, o))
			continue;
		if (!npu_view_injective(&t->operands[o]))
			return false;
		for (i = 0; i < t->num_operands; i++) {
			if (i == o || !npu_opnds_overlap(t, ends, i, o))
				continue;	/* itself, disjoint or empty */
			if (!elementwise ||
			    !npu_same_view(&t->operands[i], &t->operands[o]))
				return false;
		}
	}
	return true;
}

/**
 * npu_program_validate() - check every task, compute the slot needs
 * @prog: tasks filled in; num_slots, slot_need, op_end, num_sem_indices
 *        are computed
 * @err_task: out on failure, the refused task
 * @err_operand: out on failure, its operand or ~0u
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int npu_program_validate(struct npu_program *prog, u32 *err_task,
			 u32 *err_operand)
{
	u32 ti, i, num_slots = 0;
	int err;

	prog->op_end = npu_vzalloc((size_t)prog->num_tasks *
				   DRM_NPU_MAX_OPERANDS * sizeof(u64));
	if (!prog->op_end)
		return -ENOMEM;
	for (ti = 0; ti < prog->num_tasks; ti++) {
		const struct drm_npu_task *t = &prog->tasks[ti];

		err = npu_check_task(prog, ti, err_operand);
		if (err) {
			*err_task = ti;
			return err;
		}
		for (i = 0; i < t->num_operands; i++)
			if (t->operands[i].slot + 1u > num_slots)
				num_slots = t->operands[i].slot + 1u;
	}
	prog->num_slots = num_slots;
	prog->shareable = npu_vzalloc(prog->num_tasks);
	if (!prog->shareable)
		return -ENOMEM;
	for (ti = 0; ti < prog->num_tasks; ti++)
		prog->shareable[ti] = npu_task_shareable(prog, ti);
	prog->slot_need = npu_zalloc((num_slots ? num_slots : 1) * sizeof(u64));
	if (!prog->slot_need)
		return -ENOMEM;
	for (ti = 0; ti < prog->num_tasks; ti++) {
		const struct drm_npu_task *t = &prog->tasks[ti];
		const u64 *ends = &prog->op_end[(u64)ti * DRM_NPU_MAX_OPERANDS];

		for (i = 0; i < t->num_operands; i++) {
			u16 s = t->operands[i].slot;

			if (ends[i] > prog->slot_need[s])
				prog->slot_need[s] = ends[i];
		}
	}
	return 0;
}

int npu_ioctl_program_create(struct npu_file *f,
			     struct drm_npu_program_create *args)
{
	struct npu_device *dev = f->dev;
	struct npu_program *prog;
	u32 handle, n;
	int err;

	args->error_task = ~0u;
	args->error_operand = ~0u;
	if (args->flags || args->reserved ||
	    args->task_size != sizeof(struct drm_npu_task) ||
	    args->num_tasks == 0 || !args->tasks_ptr ||
	    (args->max_slot_sizes && !args->slot_sizes_ptr) ||
	    args->max_slot_sizes > DRM_NPU_MAX_SLOTS)
		return -EINVAL;
	if (args->num_tasks > DRM_NPU_MAX_TASKS)
		return -E2BIG;
	prog = npu_zalloc(sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	npu_ref_init(&prog->ref);
	err = npu_file_program_charge(f, args->num_tasks, &prog->charge);
	if (err)
		goto fail;
	prog->num_tasks = args->num_tasks;
	prog->tasks = npu_vzalloc((size_t)args->num_tasks *
				  sizeof(struct drm_npu_task));
	if (!prog->tasks) {
		err = -ENOMEM;
		goto fail;
	}
	err = dev->ops.copy_from_user(dev->home_dev, prog->tasks,
				      args->tasks_ptr,
				      (size_t)args->num_tasks *
				      sizeof(struct drm_npu_task));
	if (err)
		goto fail;
	err = npu_program_validate(prog, &args->error_task,
				   &args->error_operand);
	if (err)
		goto fail;
	n = prog->num_slots < args->max_slot_sizes ? prog->num_slots :
		args->max_slot_sizes;
	if (n) {
		err = dev->ops.copy_to_user(dev->home_dev, args->slot_sizes_ptr,
					    prog->slot_need, n * sizeof(u64));
		if (err)
			goto fail;
	}
	npu_mutex_lock(&f->lock);
	err = npu_handles_alloc(&f->programs, prog, &handle);
	npu_mutex_unlock(&f->lock);
	if (err)
		goto fail;
	args->handle = handle;
	args->num_slots = prog->num_slots;
	return 0;
fail:
	npu_file_program_uncharge(f, prog->charge);
	npu_program_put(prog);
	return err;
}

int npu_ioctl_program_destroy(struct npu_file *f,
			      struct drm_npu_program_destroy *args)
{
	struct npu_program *prog;

	if (args->pad)
		return -EINVAL;
	npu_mutex_lock(&f->lock);
	prog = npu_handles_remove(&f->programs, args->handle);
	npu_mutex_unlock(&f->lock);
	if (!prog)
		return -ENOENT;
	npu_file_program_uncharge(f, prog->charge);
	npu_program_put(prog);
	return 0;
}
