/* SPDX-License-Identifier: MIT */
/* shape_internal.h - helpers shared by the shape inference files. */
#ifndef NPUC_SHAPE_INTERNAL_H
#define NPUC_SHAPE_INTERNAL_H

#include "shape.h"

int64_t shape_dim_add(struct ir_graph *g, int64_t a, int64_t b);
/* @num / @den for static or symbolic dims; -1 if it does not divide. */
int shape_dim_div(struct ir_graph *g, int64_t num, int64_t den,
		  int64_t *out);
/* Product of dims [from, to). */
int64_t shape_prod(struct ir_graph *g, const struct ir_shape *s, int from,
		   int to);

/* Rewrite a node the device cannot run as is; 1 if the graph changed. */
/*
 * Elements ONNX Slice selects along a static dim @dim with start @st, end
 * @en and step @step; *@start is the first selected index (clamped).
 */
int64_t shape_slice_dim(int64_t dim, int64_t st, int64_t en, int64_t step,
			int64_t *start);
int shape_legalize_node(struct ir_graph *g, struct ir_node *n);
/* ConvTranspose as Pad (zero stuffing) + Conv (legalize_convt.c). */
int shape_legalize_conv_transpose(struct ir_graph *g, struct ir_node *n);
/* RNN/LSTM/GRU onto npu.Rnn tasks, and npu.Rnn's shape (legalize_rnn.c). */
int shape_legalize_rnn(struct ir_graph *g, struct ir_node *n);
int shape_infer_rnn_task(struct ir_graph *g, struct ir_node *n);
/* DepthToSpace ... CumSum as decompositions (legalize_more.c). */
int shape_legalize_more(struct ir_graph *g, struct ir_node *n);
/* TopK onto npu.TopK + GatherElements (legalize_topk.c). */
int shape_legalize_topk(struct ir_graph *g, struct ir_node *n);
/* MatMulInteger, ConvInteger, DynamicQuantizeLinear (legalize_integer.c). */
int shape_legalize_integer(struct ir_graph *g, struct ir_node *n);
/*
 * If, Loop and Scan inlined into the graph (legalize_control.c). The
 * Where that selects an If output between its branches carries
 * IR_ATTR_IF_SELECT: shape inference requires one shape and type.
 */
int shape_legalize_control(struct ir_graph *g, struct ir_node *n);
#define IR_ATTR_IF_SELECT	"npu.if_select"
/* 3-D Conv and ConvTranspose as 2-D ones per kernel depth (legalize_conv3d.c). */
int shape_legalize_conv3d(struct ir_graph *g, struct ir_node *n);
/* TfIdfVectorizer as Equal/And/ReduceSum/MatMul (legalize_tfidf.c). */
int shape_legalize_tfidf(struct ir_graph *g, struct ir_node *n);
/* BitShift as Mul/Div by a power of two (legalize_bitshift.c). */
int shape_legalize_bitshift(struct ir_graph *g, struct ir_node *n);
/* DFT and STFT as MatMuls, MelWeightMatrix as a constant (legalize_dft.c). */
int shape_legalize_dft(struct ir_graph *g, struct ir_node *n);
/* Det by Leibniz's formula, M <= 5 (legalize_det.c). */
int shape_legalize_det(struct ir_graph *g, struct ir_node *n);
int shape_legalize_random(struct ir_graph *g, struct ir_node *n);
/* MaxPool's Indices output from its window taps (legalize_maxpool.c). */
int shape_legalize_maxpool_indices(struct ir_graph *g, struct ir_node *n);
/* 3-D pooling as two 2-D pools (legalize_pool3d.c). */
int shape_legalize_pool3d(struct ir_graph *g, struct ir_node *n);
/* Einsum onto ReduceSum, Transpose, Reshape, MatMul (legalize_einsum.c). */
int shape_legalize_einsum(struct ir_graph *g, struct ir_node *n);
/* QLinearConv, QLinearMatMul into QDQ (legalize_qlinear.c). */
int shape_legalize_qlinear(struct ir_graph *g, struct ir_node *n);
int shape_infer_topk_task(struct ir_graph *g, struct ir_node *n);
/* NonZero, NonMaxSuppression onto tasks with a count (legalize_count.c). */
int shape_legalize_count(struct ir_graph *g, struct ir_node *n);
int shape_infer_count_task(struct ir_graph *g, struct ir_node *n);
/* ScatterND/ScatterElements onto npu.Scatter (legalize_scatter.c). */
int shape_legalize_scatter(struct ir_graph *g, struct ir_node *n);
int shape_infer_scatter_task(struct ir_graph *g, struct ir_node *n);
/* EyeLike, the windows, Upsample, Compress (legalize_gen.c). */
int shape_legalize_gen(struct ir_graph *g, struct ir_node *n);

/*
 * Fold an inferred node whose small integer/bool value is now known into a
 * constant (shape_fold.c); 1 if @n was removed.
 */
int shape_fold_node(struct ir_graph *g, struct ir_node *n);

#endif
