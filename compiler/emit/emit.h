/* SPDX-License-Identifier: MIT */
/*
 * emit.h - node -> device task emission (the contract between the IR and
 * everything that runs it).
 *
 * One function per IR op builds the struct drm_npu_task descriptors of a node
 * (uapi/drm/npu_drm.h). Where a tensor lives is decided by the caller through
 * a placement callback: the reference interpreter and constant folding place
 * tensors in host memory and call npu_op_run() on the tasks; lowering places
 * them by the memory plan (slot 0 weights, slot 1 workspace, 2.. I/O). So the
 * device, the interpreter and folding run the very same descriptors.
 *
 * Storage convention: every tensor is dense in its layout. ND/NCHW/NHWC
 * tensors are row-major over t->shape; an NC1HWC0 tensor keeps its logical
 * NCHW shape in t->shape and is stored as [N, C1, H, W, C0] with
 * C1 = ceil(C / C0), zero padded (emit_tensor_bytes() gives the size).
 *
 * Views: Reshape, Flatten, Squeeze, Unsqueeze, Identity and Dropout emit no
 * task; their output aliases their input (emit_view_source()). A placer must
 * give such an output the place of its source.
 *
 * Host ops: Shape, ConstantOfShape and Range have no device kernel. Shape
 * inference and constant folding turn them into constants; emit_node()
 * refuses them with -ENOTSUP if they survive (the interpreter evaluates them
 * on the host with emit_host_eval()).
 */
#ifndef NPUC_EMIT_H
#define NPUC_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include <drm/npu_drm.h>

#include "../ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where one tensor lives: a slot and the byte offset of element [0,..,0]. */
struct emit_place {
	uint16_t slot;
	uint64_t offset;
};

/* Placement callback: fill @out for @t; return 0 or a negative errno. */
typedef int (*emit_place_fn)(void *ctx, const struct ir_tensor *t,
			     struct emit_place *out);

/*
 * Optional: told of every operand as it is filled, with the tensor it views
 * (@op points into the task just appended to the list). Lowering uses it to
 * know which value each operand holds, for mp_verify_tasks().
 */
typedef void (*emit_note_fn)(void *ctx, const struct ir_tensor *t,
			     const struct drm_npu_operand *op);

struct emit_target {
	emit_place_fn place;
	void *ctx;
	emit_note_fn note;
};

/* A growable list of tasks. Zero-initialise; free with emit_tasks_free(). */
struct emit_tasks {
	struct drm_npu_task *tasks;
	size_t count;
	size_t cap;
};

void emit_tasks_free(struct emit_tasks *l);

/**
 * emit_node() - append the tasks of one node
 * @g: the graph (errors are recorded in it, naming node, op and shapes)
 * @n: the node; all its tensor shapes must be static
 * @tgt: placement callback
 * @out: tasks are appended here (views append none)
 *
 * Return: 0, -ENOTSUP for an op or attribute the device cannot run
 * (message in the graph), -EINVAL for a malformed node, or the placer's
 * error.
 */
int emit_node(struct ir_graph *g, const struct ir_node *n,
	      const struct emit_target *tgt, struct emit_tasks *out);

/* The input whose storage @n's output 0 aliases, or NULL if @n computes. */
const struct ir_tensor *emit_view_source(const struct ir_node *n);

/* True for ops evaluated on the host only (Shape, ConstantOfShape, Range). */
bool emit_is_host_op(enum ir_op op);

/* Whether the device's kernel for @op takes @dt data (pass_precision()). */
bool emit_takes_dtype(enum ir_op op, enum ir_dtype dt);
/* The same for node @n, whose attributes may narrow it (linear Resize). */
bool emit_node_takes_dtype(const struct ir_node *n, enum ir_dtype dt);

/**
 * emit_host_eval() - evaluate a host-only op
 * @n: the node (Shape, ConstantOfShape, Range); inputs must be static
 * @in: host data of each input (NULL for absent ones)
 * @out: host buffer of output 0, emit_tensor_bytes() bytes
 */
int emit_host_eval(struct ir_graph *g, const struct ir_node *n,
		   const void *const *in, void *out);

/*
 * The output shape a MATMUL task of Gemm/MatMul @n computes: the ONNX one
 * with the dims of 1-D operands restored ([K] is [1, K] as A and [K, 1] as
 * B), which a fused bias must broadcast to. 0 or -ENOTSUP (rank too large).
 */
int emit_matmul_shape(const struct ir_node *n, struct ir_shape *out);

/* Index of the operand a task writes (its output). */
int emit_task_output(const struct drm_npu_task *t);

/* Does the task write operand @k (its output, or NMS's scratch...)? */
bool emit_task_writes(const struct drm_npu_task *t, int k);

/*
 * May the output of @t be the very same view as one of its inputs (ops.rst:
 * COPY of one dtype, BINARY, UNARY, WHERE, SOFTMAX, LAYERNORM, BATCHNORM)?
 */
bool emit_task_inplace_ok(const struct drm_npu_task *t);

/* Do two operands name the same elements in the same order (slot aside)? */
bool emit_same_view(const struct drm_npu_operand *a,
		    const struct drm_npu_operand *b);

/* Bytes a tensor occupies in its layout (NC1HWC0 counts the C0 padding). */
size_t emit_tensor_bytes(const struct ir_tensor *t);

/* C0 of a dtype for NC1HWC0: 16 for 2- and 4-byte types, 32 for 1-byte. */
unsigned int emit_c0(enum ir_dtype dt);

/* fp32 bit pattern, as the task params carry it. */
uint32_t emit_f32_bits(float v);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_EMIT_H */
