// SPDX-License-Identifier: MIT
/*
 * timing_cost.c - what one task costs on the modeled device: its unit, its
 * work (MACs, element operations, pixels), the bytes it moves, and the
 * cycles those are charged (npu_timing.h, Documentation/timing-model.rst).
 *
 * Tasks come from a .om the reader accepted, so every operand passed the
 * device's own checks: its element count and every product of its dims
 * fit 2^40, and the products below (at most two such counts) fit 64 bits.
 */
#include <math.h>

#include "npu_timing.h"
#include "om.h"

enum npu_unit npu_timing_unit(uint32_t opcode)
{
	switch (opcode) {
	case DRM_NPU_OP_CONV2D:
	case DRM_NPU_OP_MATMUL:
	case DRM_NPU_OP_ATTENTION:
	case DRM_NPU_OP_QCONV2D:
	case DRM_NPU_OP_QMATMUL:
		return NPU_UNIT_CUBE;
	case DRM_NPU_OP_NOP:
	case DRM_NPU_OP_SEM_SIGNAL:
	case DRM_NPU_OP_SEM_WAIT:
		return NPU_UNIT_SCHED;
	default:
		return NPU_UNIT_VECTOR;
	}
}

const char *npu_timing_unit_name(uint32_t unit)
{
	static const char *const names[NPU_UNIT_COUNT] = {
		"cube", "vector", "media", "sched",
	};

	return unit < NPU_UNIT_COUNT ? names[unit] : "?";
}

static uint64_t numel(const struct drm_npu_operand *o)
{
	uint64_t n = 1;

	for (uint32_t k = 0; k < o->rank; k++)
		n *= o->shape[k];
	return n;
}

/* Elements a read touches: a dim of stride 0 (broadcast) is read once. */
static uint64_t distinct(const struct drm_npu_operand *o)
{
	uint64_t n = 1;

	for (uint32_t k = 0; k < o->rank; k++)
		if (o->strides[k] || !o->shape[k])
			n *= o->shape[k];
	return n;
}

static const struct drm_npu_operand *opnd(const struct drm_npu_task *t,
					  uint32_t i)
{
	return &t->operands[i];
}

/* The operand a task writes: QUANTIZE/DEQUANTIZE write operand 1. */
static uint32_t output_index(const struct drm_npu_task *t)
{
	if (t->opcode == DRM_NPU_OP_QUANTIZE ||
	    t->opcode == DRM_NPU_OP_DEQUANTIZE)
		return 1;
	return t->num_operands - 1;
}

static uint64_t cube_macs(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *a = opnd(t, 0), *b = opnd(t, 1);
	const struct drm_npu_operand *out = opnd(t, output_index(t));
	uint64_t k;

	switch (t->opcode) {
	case DRM_NPU_OP_MATMUL:
		if (a->rank < 2)
			k = a->rank ? a->shape[0] : 1;
		else if (t->params.matmul.flags & DRM_NPU_MATMUL_TRANS_A)
			k = a->shape[a->rank - 2];
		else
			k = a->shape[a->rank - 1];
		return numel(out) * k;
	case DRM_NPU_OP_QMATMUL:
		/* a [..., M, K]: every output sums K products */
		return a->rank ? numel(out) * a->shape[a->rank - 1] : 0;
	case DRM_NPU_OP_CONV2D:
	case DRM_NPU_OP_QCONV2D:
		/* N x OH x OW outputs, each the whole weight (O x I/g x KH x
		 * KW, whatever order it is stored in; the packed int8 form
		 * with its padding channels) once */
		if (out->rank < 4)
			return 0;
		return (uint64_t)out->shape[0] * out->shape[2] *
		       out->shape[3] * numel(b);
	case DRM_NPU_OP_ATTENTION:
		/* Q K^T then P V: Lq x Lk x D twice per head */
		if (b->rank < 2)
			return 0;
		return 2 * numel(a) * b->shape[b->rank - 2];
	default:
		return 0;
	}
}

/* Element operations of a vector task, per output element unless noted. */
static uint64_t vector_ops(const struct drm_npu_task *t)
{
	const struct drm_npu_operand *out = opnd(t, output_index(t));
	uint64_t n = numel(out);

	switch (t->opcode) {
	case DRM_NPU_OP_UNARY:
		/* a transcendental is a short polynomial, ReLU one max */
		return t->params.unary.kind == DRM_NPU_ACT_RELU ||
		       t->params.unary.kind == DRM_NPU_ACT_NONE ? n : 8 * n;
	case DRM_NPU_OP_SOFTMAX:
		return 8 * n;		/* max, sub, exp (4), sum, div */
	case DRM_NPU_OP_LAYERNORM:
		return 8 * n;		/* mean, var (3), normalise, affine */
	case DRM_NPU_OP_BATCHNORM:
	case DRM_NPU_OP_QUANTIZE:
	case DRM_NPU_OP_DEQUANTIZE:
		return 2 * n;
	case DRM_NPU_OP_RESIZE:
		return 4 * n;		/* bilinear: four taps */
	case DRM_NPU_OP_REDUCE:
		return numel(opnd(t, 0));
	case DRM_NPU_OP_POOL2D:
		return n * t->params.pool2d.kernel_h *
		       (uint64_t)t->params.pool2d.kernel_w;
	default:
		return n;		/* one operation or move per element */
	}
}

/* Bytes read and written; a badly laid out feature map costs more. */
static double task_bytes(const struct drm_npu_task *t,
			 const struct npu_timing_params *p)
{
	uint32_t out = output_index(t);
	double bytes = 0;

	for (uint32_t i = 0; i < t->num_operands; i++) {
		const struct drm_npu_operand *o = opnd(t, i);
		double b = (double)om_dtype_size(o->dtype) *
			   (double)(i == out ? numel(o) : distinct(o));

		if (i == 0 && o->layout != DRM_NPU_LAYOUT_NC1HWC0 &&
		    (t->opcode == DRM_NPU_OP_CONV2D ||
		     t->opcode == DRM_NPU_OP_POOL2D))
			b /= p->nchw_efficiency;
		bytes += b;
	}
	return bytes;
}

static uint64_t cycles_of(double work, double per_cycle)
{
	return work > 0 ? (uint64_t)ceil(work / per_cycle) : 0;
}

void npu_timing_task_cost(const struct drm_npu_task *t,
			  const struct npu_timing_params *p,
			  struct npu_task_cost *c)
{
	double bytes;

	*c = (struct npu_task_cost){ .unit = npu_timing_unit(t->opcode) };
	if (c->unit == NPU_UNIT_SCHED) {
		c->cycles = t->opcode == DRM_NPU_OP_NOP ? p->launch_cycles :
							  p->sem_cycles;
		return;
	}
	if (!t->num_operands) {
		c->cycles = p->launch_cycles;
		return;
	}
	bytes = task_bytes(t, p);
	c->bytes = (uint64_t)ceil(bytes);
	if (c->unit == NPU_UNIT_CUBE) {
		c->macs = cube_macs(t);
		c->compute_cycles = cycles_of((double)c->macs, p->cube_macs);
	} else {
		c->ops = vector_ops(t);
		c->compute_cycles = cycles_of((double)c->ops,
					      c->unit == NPU_UNIT_MEDIA ?
					      p->media_pixels : p->vector_ops);
	}
	c->memory_cycles = cycles_of(bytes, p->vram_bytes / p->cores);
	c->cycles = p->launch_cycles +
		    (c->compute_cycles > c->memory_cycles ?
		     c->compute_cycles : c->memory_cycles);
}
