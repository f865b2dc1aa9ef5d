/* SPDX-License-Identifier: MIT */
/*
 * ir.h - the graph IR of npuc (ONNX import -> passes -> lowering).
 *
 * One graph of tensors and nodes. Every pass of the compiler, the reference
 * interpreter and the lowering to device tasks work on this IR.
 *
 * Ownership: a graph owns its tensors, nodes, attributes and constant data;
 * ir_graph_free() releases everything. Pointers to tensors and nodes stay
 * valid until ir_graph_gc() / ir_node_remove() drop them.
 *
 * Producers and consumers are maintained by the API: always connect tensors
 * with ir_node_new() / ir_node_set_input() / ir_node_set_output() and
 * disconnect with ir_node_remove() / ir_replace_uses(), never by writing
 * node->inputs[] directly. ir_verify() checks that the bookkeeping holds.
 *
 * Errors: functions that can fail return 0 or a negative errno and leave a
 * message in the graph (ir_graph_error()) that names the node, the op and the
 * shapes involved.
 *
 * Documentation/compiler-ir.rst is the prose version of this header.
 */
#ifndef NPUC_IR_H
#define NPUC_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IR_MAX_RANK	8	/* device tasks take at most DRM_NPU_MAX_RANK */
#define IR_ERR_LEN	512

/* Element types: the values equal enum drm_npu_dtype (uapi/drm/npu_drm.h). */
enum ir_dtype {
	IR_DTYPE_INVALID = 0,
	IR_F32 = 1,
	IR_F16 = 2,
	IR_I8 = 3,
	IR_U8 = 4,
	IR_I32 = 5,
	IR_I64 = 6,
	IR_BOOL = 7,
	/*
	 * Storage types (uapi 1.8): graph inputs and outputs, and the
	 * rounding or wrapping of a Cast to them, never computed on. The
	 * importer narrows everything else to the compute type of
	 * ir_dtype_compute() (onnx_storage.c).
	 */
	IR_F64 = 9,
	IR_BF16 = 10,
	IR_I16 = 11,
	IR_U16 = 12,
	IR_U32 = 13,
	IR_U64 = 14,
	IR_DTYPE_COUNT
};

/* npuc --precision (Documentation/quantization.rst). */
enum ir_precision {
	IR_PREC_KEEP = 0,	/* must_keep_origin_dtype (default) */
	IR_PREC_MIX = 1,	/* allow_mix_precision */
	IR_PREC_FP16 = 2,	/* force_fp16 */
};

/* Layouts: the values equal enum drm_npu_layout. */
enum ir_layout {
	IR_LAYOUT_ND = 0,
	IR_LAYOUT_NCHW = 1,
	IR_LAYOUT_NHWC = 2,
	IR_LAYOUT_NC1HWC0 = 3,	/* rank 5: N, C1, H, W, C0 */
	IR_LAYOUT_COUNT
};

/*
 * Shapes. A dimension is static (>= 0) or symbolic (< 0): a symbolic dim
 * names an entry of the graph's symbol table (ONNX dim_param such as "batch",
 * or a derived symbol such as "batch*seq" made by shape inference). Two
 * symbolic dims are equal iff they name the same symbol.
 */
struct ir_shape {
	int rank;
	int64_t dim[IR_MAX_RANK];
};

#define IR_DIM_SYM(id)		(-(int64_t)(id) - 1)
#define IR_DIM_IS_SYM(d)	((d) < 0)
#define IR_DIM_SYM_ID(d)	((int)(-(d) - 1))

/* Symbolic elements of a shape value (ir_tensor.sval); see there. */
#define IR_SVAL_SYM(id)		(INT64_MIN + (int64_t)(id))
#define IR_SVAL_IS_SYM(v)	((v) < INT64_MIN / 2)
#define IR_SVAL_SYM_ID(v)	((int)((v) - INT64_MIN))

/* Op types of the IR. ONNX ops map 1:1; the last group is made by passes. */
#define IR_OPS(X)							\
	X(CONSTANT, "Constant") X(IDENTITY, "Identity")			\
	X(DROPOUT, "Dropout")						\
	X(ADD, "Add") X(SUB, "Sub") X(MUL, "Mul") X(DIV, "Div")		\
	X(POW, "Pow") X(MAX, "Max") X(MIN, "Min") X(PRELU, "PRelu")	\
	X(EQUAL, "Equal") X(LESS, "Less") X(GREATER, "Greater")		\
	X(RELU, "Relu") X(SIGMOID, "Sigmoid") X(TANH, "Tanh")		\
	X(EXP, "Exp") X(SQRT, "Sqrt") X(CLIP, "Clip")			\
	X(LEAKY_RELU, "LeakyRelu") X(HARD_SIGMOID, "HardSigmoid")	\
	X(HARD_SWISH, "HardSwish") X(ERF, "Erf") X(NEG, "Neg")		\
	X(ABS, "Abs") X(LOG, "Log") X(RECIPROCAL, "Reciprocal")		\
	X(ELU, "Elu") X(SOFTPLUS, "Softplus") X(FLOOR, "Floor")		\
	X(CEIL, "Ceil") X(NOT, "Not")					\
	X(CONV, "Conv") X(GEMM, "Gemm") X(MATMUL, "MatMul")		\
	X(MAX_POOL, "MaxPool") X(AVERAGE_POOL, "AveragePool")		\
	X(GLOBAL_AVERAGE_POOL, "GlobalAveragePool")			\
	X(GLOBAL_MAX_POOL, "GlobalMaxPool")				\
	X(BATCH_NORM, "BatchNormalization")				\
	X(SOFTMAX, "Softmax") X(LOG_SOFTMAX, "LogSoftmax")		\
	X(REDUCE_SUM, "ReduceSum") X(REDUCE_MEAN, "ReduceMean")		\
	X(REDUCE_MAX, "ReduceMax") X(REDUCE_MIN, "ReduceMin")		\
	X(REDUCE_PROD, "ReduceProd")					\
	X(REDUCE_SUM_SQUARE, "ReduceSumSquare")				\
	X(RESHAPE, "Reshape") X(FLATTEN, "Flatten")			\
	X(SQUEEZE, "Squeeze") X(UNSQUEEZE, "Unsqueeze")			\
	X(TRANSPOSE, "Transpose") X(CONCAT, "Concat") X(SPLIT, "Split")	\
	X(SLICE, "Slice") X(GATHER, "Gather") X(EXPAND, "Expand")	\
	X(SHAPE, "Shape") X(CONSTANT_OF_SHAPE, "ConstantOfShape")	\
	X(CAST, "Cast") X(WHERE, "Where") X(PAD, "Pad")			\
	X(RESIZE, "Resize") X(RANGE, "Range")				\
	X(QUANTIZE_LINEAR, "QuantizeLinear")				\
	X(DEQUANTIZE_LINEAR, "DequantizeLinear")			\
	X(SIZE, "Size") X(CAST_LIKE, "CastLike")			\
	X(AND, "And") X(OR, "Or") X(XOR, "Xor")				\
	X(GREATER_OR_EQUAL, "GreaterOrEqual")				\
	X(LESS_OR_EQUAL, "LessOrEqual")					\
	X(SUM, "Sum") X(MEAN, "Mean") X(SELU, "Selu")			\
	X(SOFTSIGN, "Softsign") X(THRESHOLDED_RELU, "ThresholdedRelu")	\
	X(TRILU, "Trilu") X(REDUCE_L1, "ReduceL1")			\
	X(REDUCE_L2, "ReduceL2") X(REDUCE_LOG_SUM, "ReduceLogSum")	\
	X(REDUCE_LOG_SUM_EXP, "ReduceLogSumExp")			\
	X(SIGN, "Sign") X(ROUND, "Round") X(MOD, "Mod")			\
	X(IS_NAN, "IsNaN") X(IS_INF, "IsInf") X(CELU, "Celu")		\
	X(SHRINK, "Shrink") X(HARDMAX, "Hardmax") X(TILE, "Tile")	\
	X(ONE_HOT, "OneHot") X(SINH, "Sinh") X(COSH, "Cosh")		\
	X(CONV_TRANSPOSE, "ConvTranspose")				\
	X(RNN, "RNN") X(LSTM, "LSTM") X(GRU, "GRU")			\
	X(DEPTH_TO_SPACE, "DepthToSpace")				\
	X(SPACE_TO_DEPTH, "SpaceToDepth")				\
	X(INSTANCE_NORM, "InstanceNormalization")			\
	X(MVN, "MeanVarianceNormalization") X(LRN, "LRN")		\
	X(ARG_MAX, "ArgMax") X(ARG_MIN, "ArgMin")			\
	X(GATHER_ELEMENTS, "GatherElements")				\
	X(GATHER_ND, "GatherND") X(CUM_SUM, "CumSum")			\
	X(TOPK, "TopK")							\
	X(SCATTER_ND, "ScatterND")					\
	X(SCATTER_ELEMENTS, "ScatterElements") X(SCATTER, "Scatter")	\
	X(SIN, "Sin") X(COS, "Cos") X(TAN, "Tan") X(ASIN, "Asin")	\
	X(ACOS, "Acos") X(ATAN, "Atan") X(ASINH, "Asinh")		\
	X(ACOSH, "Acosh") X(ATANH, "Atanh")				\
	X(NON_ZERO, "NonZero") X(NON_MAX_SUPPRESSION, "NonMaxSuppression") \
	X(UNIQUE, "Unique") X(GRID_SAMPLE, "GridSample")		\
	X(ROI_ALIGN, "RoiAlign")					\
	X(QLINEAR_CONV, "QLinearConv") X(QLINEAR_MATMUL, "QLinearMatMul") \
	X(EINSUM, "Einsum") X(DET, "Det")				\
	X(MATMUL_INTEGER, "MatMulInteger") X(CONV_INTEGER, "ConvInteger") \
	X(DYNAMIC_QUANTIZE_LINEAR, "DynamicQuantizeLinear")		\
	X(EYE_LIKE, "EyeLike") X(HANN_WINDOW, "HannWindow")		\
	X(HAMMING_WINDOW, "HammingWindow")				\
	X(BLACKMAN_WINDOW, "BlackmanWindow")				\
	X(UPSAMPLE, "Upsample") X(COMPRESS, "Compress")			\
	X(REVERSE_SEQUENCE, "ReverseSequence")				\
	X(MAX_UNPOOL, "MaxUnpool")					\
	X(IF, "If") X(LOOP, "Loop") X(SCAN, "Scan")			\
	X(DFT, "DFT") X(STFT, "STFT")					\
	X(MEL_WEIGHT_MATRIX, "MelWeightMatrix")				\
	X(BIT_SHIFT, "BitShift")					\
	X(TFIDF_VECTORIZER, "TfIdfVectorizer")				\
	X(RANDOM_UNIFORM, "RandomUniform")				\
	X(RANDOM_UNIFORM_LIKE, "RandomUniformLike")			\
	X(RANDOM_NORMAL, "RandomNormal")				\
	X(RANDOM_NORMAL_LIKE, "RandomNormalLike")			\
	X(BERNOULLI, "Bernoulli")					\
	/* made by passes (no ONNX counterpart, or a fused form) */	\
	X(ACTIVATION, "npu.Activation")					\
	X(LAYER_NORM, "LayerNormalization")				\
	X(GELU, "npu.Gelu")						\
	X(ATTENTION, "npu.Attention")					\
	X(TRANSDATA, "npu.TransData")					\
	X(RNN_TASK, "npu.Rnn")						\
	X(TOPK_TASK, "npu.TopK")					\
	X(NONZERO_TASK, "npu.NonZero") X(NMS_TASK, "npu.NMS")		\
	X(UNIQUE_TASK, "npu.Unique")					\
	X(SCATTER_TASK, "npu.Scatter")					\
	X(RANDOM_TASK, "npu.Random")					\
	/* int8 ops made by qdq-fuse (Documentation/quantization.rst) */\
	X(QCONV, "npu.QConv") X(QMATMUL, "npu.QMatMul")		\
	X(QADD, "npu.QAdd")						\
	X(AIPP, "npu.Aipp")						\
	X(CUSTOM, "npu.Custom")						\
	X(MATMUL_WQ, "npu.MatMulWQ")

enum ir_op {
	IR_OP_INVALID = 0,
#define IR_OP_ENUM(e, s) IR_OP_##e,
	IR_OPS(IR_OP_ENUM)
#undef IR_OP_ENUM
	IR_OP_COUNT
};

/* Activation kinds: the values equal enum drm_npu_act. */
enum ir_act_kind {
	IR_ACT_NONE = 0, IR_ACT_RELU = 1, IR_ACT_SIGMOID = 2, IR_ACT_TANH = 3,
	IR_ACT_GELU = 4, IR_ACT_EXP = 5, IR_ACT_SQRT = 6, IR_ACT_CLIP = 7,
	IR_ACT_LEAKY_RELU = 8, IR_ACT_HARDSIGMOID = 9, IR_ACT_HARDSWISH = 10,
	IR_ACT_ERF = 11, IR_ACT_NEG = 12, IR_ACT_ABS = 13, IR_ACT_LOG = 14,
	IR_ACT_RECIPROCAL = 15, IR_ACT_GELU_TANH = 16, IR_ACT_SILU = 17,
	IR_ACT_ELU = 18, IR_ACT_SOFTPLUS = 19, IR_ACT_FLOOR = 20,
	IR_ACT_CEIL = 21, IR_ACT_NOT = 22, IR_ACT_COUNT
};

/* A fused activation (Conv/Gemm/MatMul/binary ops) or IR_OP_ACTIVATION's. */
struct ir_act {
	enum ir_act_kind kind;
	float alpha;
	float beta;
};

enum ir_attr_type {
	IR_ATTR_INT, IR_ATTR_FLOAT, IR_ATTR_STRING,
	IR_ATTR_INTS, IR_ATTR_FLOATS, IR_ATTR_TENSOR, IR_ATTR_GRAPH
};

struct ir_tensor;

struct ir_attr {
	char *name;
	enum ir_attr_type type;
	int64_t i;
	float f;
	char *s;
	int64_t *ints;		/* IR_ATTR_INTS */
	float *floats;		/* IR_ATTR_FLOATS */
	int n;			/* entries of ints/floats */
	struct ir_tensor *t;	/* IR_ATTR_TENSOR: a constant of the graph */
	struct ir_graph *graph;	/* IR_ATTR_GRAPH: a subgraph, owned */
};

struct ir_node;

/* One consumer of a tensor: node->inputs[index] == tensor. */
struct ir_use {
	struct ir_node *node;
	int index;
};

struct ir_tensor {
	int id;				/* unique in the graph, stable */
	char *name;			/* unique in the graph */
	enum ir_dtype dtype;
	struct ir_shape shape;
	bool shape_known;		/* false until shape inference */
	enum ir_layout layout;
	/*
	 * A constant Conv weight [O][C][KH][KW] whose data is stored with O
	 * innermost ([C][KH][KW][O]): emit gives its operand the strides of
	 * that order (pass_conv_weight_olast()).
	 */
	bool w_olast;
	/*
	 * An INT8 constant imported from ONNX INT4 (data type 22): its
	 * values fit 4 bits, the weight-only pass stores them packed.
	 */
	bool int4;
	void *data;			/* constant data (row-major), or NULL */
	size_t nbytes;			/* bytes of data */
	/*
	 * @data is memory the tensor does not own, read-only: the model
	 * file's mapping (ir_graph.mapped; aligned to nothing) or a
	 * partition cache entry's (ir_tensor_borrow_data()). Its bytes are
	 * read as bytes (hashes, copies) or through ir_const_get_f() /
	 * ir_const_get_i(); code that reads it as a typed array, or writes
	 * it, first calls ir_tensor_own(). After a cache miss only the
	 * weights of 2-D products and convolutions stay mapped
	 * (onnx_import_materialize_except_weights(), Documentation/
	 * compiler-ir.rst, "Weights left in the file").
	 */
	bool data_mapped;
	/*
	 * XXH3-128 of @data's bytes (ir_tensor_digest()), kept only while
	 * @data is mapped: a read-only mapping cannot change under it.
	 */
	bool digest_valid;
	uint64_t digest[2];
	struct ir_node *producer;	/* NULL for inputs and constants */
	struct ir_use *uses;
	int num_uses, cap_uses;
	bool is_input, is_output;	/* graph inputs / outputs */
	void *priv;			/* free for the current pass/lowering */
	/*
	 * Shape value: for small integer tensors that carry shape data
	 * (Shape -> Gather -> Concat -> Reshape chains), the value of each
	 * element as far as shape inference can tell: a plain integer, or a
	 * symbolic dim encoded with IR_SVAL_SYM(). NULL if unknown. Owned by
	 * the tensor; refreshed by every shape_infer() run.
	 */
	int64_t *sval;
	int sval_len;
	/*
	 * Provenance: the name of the ONNX value this tensor holds (set at
	 * import; a pass that makes a tensor holding the same value in
	 * another layout copies it), NULL for tensors the compiler made.
	 * Names may change (ir_graph_replace_output() swaps them); the
	 * origin does not. Lowering records it per task (om-format.rst).
	 */
	char *origin;
	/*
	 * A data-dependent extent (legalize_count.c): dim @count_dim of
	 * this tensor is its bound, and the device writes the real extent
	 * to @count (int64, one element). NULL for every other tensor.
	 */
	struct ir_tensor *count;
	int count_dim;
	/* ... and its padding rows are zero (not garbage computed from it) */
	bool count_zeroed;
};

struct ir_node {
	int id;				/* unique in the graph, stable */
	char *name;
	enum ir_op op;
	int opset;			/* of the op's domain at import */
	struct ir_tensor **inputs;	/* NULL entries: absent optional inputs */
	int num_inputs;
	struct ir_tensor **outputs;
	int num_outputs;
	struct ir_attr *attrs;
	int num_attrs;
	struct ir_act act;		/* fused activation, IR_ACT_NONE if none */
	/*
	 * Conv/Gemm/MatMul/binary ops fused with a residual Add: inputs carry
	 * one extra trailing tensor added after the op (before @act).
	 */
	bool has_residual;
	/*
	 * Removed by ir_node_remove(): disconnected and out of g->nodes,
	 * but its memory lives until ir_graph_purge(), so a pass iterating
	 * over a snapshot of the node array can skip it.
	 */
	bool dead;
	struct ir_graph *graph;		/* the owner (edit counting) */
	void *priv;			/* free for the current pass/lowering */
	/*
	 * Provenance: the names of the ONNX nodes this node was made from,
	 * in graph order (import: the node itself; a fusion adds the nodes
	 * it absorbs). Empty for nodes the compiler made (TransData).
	 */
	char **origins;
	int num_origins;
};

struct ir_graph {
	char *name;
	struct ir_tensor **tensors;
	int num_tensors, cap_tensors;
	struct ir_node **nodes;		/* topological after ir_graph_toposort */
	int num_nodes, cap_nodes;
	struct ir_tensor **inputs;	/* graph inputs (no constants) */
	int num_inputs, cap_inputs;
	struct ir_tensor **outputs;
	int num_outputs, cap_outputs;
	/*
	 * The output shapes the model file declares (ONNX graph.output),
	 * by output index; rank -1 where it declares none. Names a
	 * dynamic output dim ("batch") where symbolic shape inference
	 * cannot. Owned; NULL if the importer recorded none.
	 */
	struct ir_shape *out_decl;
	char **syms;			/* symbolic dim names, by id */
	int num_syms, cap_syms;
	int64_t opset;			/* default ONNX domain opset */
	/*
	 * Floating-point precision (npuc --precision, pass_precision()):
	 * enum ir_precision, and the nodes kept in their own dtype ("op
	 * type or node name, ..."; owned, NULL for none).
	 */
	int precision;
	char *keep_dtype;
	int next_id;
	/*
	 * Tensor names -> tensors: an open-addressing hash table kept by
	 * ir_graph.c (tensor creation, renames, output name swaps, gc), so
	 * ir_graph_find_tensor() and unique naming cost O(1), not a scan.
	 */
	struct ir_tensor **name_map;
	uint32_t name_map_cap, name_map_used, name_map_dead;
	/*
	 * Edits of the node array or of any edge bump @edits; a toposort
	 * that finds @edits == @sorted_at has nothing to do (passes that
	 * changed nothing cost no re-sort).
	 */
	uint64_t edits, sorted_at;
	/*
	 * A subgraph (the body of If, Loop, Scan; IR_ATTR_GRAPH): the
	 * values it reads from the scopes around it, placeholders of this
	 * graph (no producer, no data, not inputs). The node that owns the
	 * subgraph reads the same values, in this order, as the inputs
	 * after its ONNX ones (its implicit inputs), so that the outer
	 * graph keeps them alive and orders them before the node.
	 */
	struct ir_tensor **captures;
	int num_captures;
	int capture_base;		/* the first implicit input's index */
	int64_t unrolled;		/* nodes control flow added (budget) */
	/*
	 * The model file that mapped constants point into (data_mapped),
	 * owned: unmapped by ir_graph_free(); NULL when none.
	 */
	void *mapped;
	size_t mapped_len;
	struct ir_node **dead_nodes;	/* removed, freed by ir_graph_purge */
	int num_dead, cap_dead;
	/*
	 * Where passes find the constants they would derive from other
	 * constants, and leave the ones they derived (the partition cache:
	 * compiler/passes/derive.h, compiler/cache/partition.h). NULL:
	 * none. Not owned; a clone shares it.
	 */
	const struct ir_derive_store *derive;
	char err[IR_ERR_LEN];
};

/*
 * A store of derived constants, keyed by a digest of everything a
 * derivation reads (its name and version, its parameters, its input
 * constants' types, shapes and bytes; compiler/passes/derive.h).
 * @fetch copies the bytes kept under @key into @dst (exactly @nbytes)
 * and returns what computing them cost when they were kept (ms, >= 0),
 * or -1 when it has none; @t0 is when the caller began the key (for its
 * own accounting of what a hit costs). @borrow is @fetch without the
 * copy: the kept bytes where the store holds them, read-only
 * and valid until the store is closed (after the compile has written its
 * model), or NULL. @keep stores computed bytes. @owner is the constant
 * that gets the bytes (the store files them by the nodes that read it).
 */
struct ir_derive_store {
	double (*fetch)(void *ctx, const struct ir_tensor *owner,
			const uint64_t key[2], void *dst, size_t nbytes,
			double t0);
	const void *(*borrow)(void *ctx, const struct ir_tensor *owner,
			      const uint64_t key[2], size_t nbytes,
			      double t0);
	void (*keep)(void *ctx, const struct ir_tensor *owner,
		     const uint64_t key[2], const void *src, size_t nbytes,
		     double ms);
	void *ctx;
};

/*
 * IR_OP_CUSTOM: an op a plugin serves (compiler/plugin, npuc_plugin.h).
 * Its string attributes IR_CUSTOM_* name the ONNX domain and op type and
 * the plugin; n->opset is the opset of its domain. Names of the "npu."
 * prefix are never ONNX attributes of the node.
 */
#define IR_CUSTOM_DOMAIN	"npu.domain"
#define IR_CUSTOM_TYPE		"npu.op_type"
#define IR_CUSTOM_PLUGIN	"npu.plugin"

/* --- types --------------------------------------------------------------- */
size_t ir_dtype_size(enum ir_dtype dt);
/* Is @dt a storage type (IR_F64 ... IR_U64)? */
static inline bool ir_dtype_storage(enum ir_dtype dt)
{
	return dt >= IR_F64 && dt < IR_DTYPE_COUNT;
}
/* The type a storage type computes in (F32, I32, I64); @dt otherwise. */
enum ir_dtype ir_dtype_compute(enum ir_dtype dt);
/* ONNX TensorProto.DataType <-> IR dtype (IR_DTYPE_INVALID / 0: none). */
enum ir_dtype ir_dtype_from_onnx(int64_t onnx_type);
int ir_dtype_to_onnx(enum ir_dtype dt);
const char *ir_dtype_name(enum ir_dtype dt);
const char *ir_layout_name(enum ir_layout l);
const char *ir_op_name(enum ir_op op);		/* "Conv", "npu.Gelu", ... */
enum ir_op ir_op_from_name(const char *onnx_op_type);	/* INVALID if none */
/* Most inputs the op's ONNX schema allows; -1 when variadic or internal. */
int ir_op_max_inputs(enum ir_op op);
const char *ir_act_name(enum ir_act_kind k);

/* --- graph --------------------------------------------------------------- */
struct ir_graph *ir_graph_new(const char *name);
void ir_graph_free(struct ir_graph *g);
const char *ir_graph_error(const struct ir_graph *g);
/* printf-style: records the message in g->err, returns -EINVAL. */
int ir_error(struct ir_graph *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ir_graph_add_input(struct ir_graph *g, struct ir_tensor *t);
int ir_graph_add_output(struct ir_graph *g, struct ir_tensor *t);
/* Replace graph output @old by @new_t (same position, keeps old's name). */
int ir_graph_replace_output(struct ir_graph *g, struct ir_tensor *old,
			    struct ir_tensor *new_t);
/* Order g->nodes topologically (stable); -EINVAL on a cycle. */
int ir_graph_toposort(struct ir_graph *g);
/* Free tensors that nothing produces, consumes or exports. */
void ir_graph_gc(struct ir_graph *g);
struct ir_tensor *ir_graph_find_tensor(const struct ir_graph *g,
				       const char *name);
/* The hash of the graph's name table (FNV-1a), for other name sets. */
uint64_t ir_name_hash(const char *s);
/* A deep copy (used by tests to compare before/after a pass). */
struct ir_graph *ir_graph_clone(const struct ir_graph *g);

/* --- symbols ------------------------------------------------------------- */
int ir_sym_intern(struct ir_graph *g, const char *name);	/* id or < 0 */
const char *ir_sym_name(const struct ir_graph *g, int64_t dim);
/* Replace symbol @name by @value in every tensor shape. */
int ir_graph_bind_sym(struct ir_graph *g, const char *name, int64_t value);

/* --- shapes -------------------------------------------------------------- */
bool ir_shape_is_static(const struct ir_shape *s);
bool ir_shape_equal(const struct ir_shape *a, const struct ir_shape *b);
int64_t ir_shape_numel(const struct ir_shape *s);	/* -1 if symbolic */
/* "[1,3,224,224]" or "[batch,seq,512]"; returns buf. */
char *ir_shape_str(const struct ir_graph *g, const struct ir_shape *s,
		   char *buf, size_t len);
struct ir_shape ir_shape_make(int rank, const int64_t *dims);

/* --- tensors ------------------------------------------------------------- */
/* @name may be NULL (a unique name is made); a taken name is made unique. */
struct ir_tensor *ir_tensor_new(struct ir_graph *g, const char *name,
				enum ir_dtype dt, const struct ir_shape *shape);
/*
 * Give @t a new name, made unique as ir_tensor_new() does (@name NULL: an
 * automatic one). @t still holds its old name while the new one is chosen,
 * so the new name differs from it.
 */
int ir_tensor_rename(struct ir_graph *g, struct ir_tensor *t,
		     const char *name);
/* A constant: copies @nbytes of @data (must equal numel * dtype size). */
struct ir_tensor *ir_const_new(struct ir_graph *g, const char *name,
			       enum ir_dtype dt, const struct ir_shape *shape,
			       const void *data, size_t nbytes);
struct ir_tensor *ir_const_scalar_f32(struct ir_graph *g, const char *name,
				      float v);
int ir_tensor_set_data(struct ir_tensor *t, const void *data, size_t nbytes);
/*
 * Give @t's data memory of its own if it is mapped (data_mapped): aligned,
 * writable, the same bytes. Return: 0, or -ENOMEM (@t unchanged).
 */
int ir_tensor_own(struct ir_tensor *t);
/*
 * @t's data becomes @data (malloc'ed or om_bigbuf_alloc()'ed, @nbytes
 * of it used), owned by @t from now on; the old data is released.
 */
void ir_tensor_adopt_data(struct ir_tensor *t, void *data, size_t nbytes);
/*
 * @t's data becomes @data, read-only memory that outlives @t's use
 * (derive_borrow()), not owned (data_mapped); the old data is released.
 */
void ir_tensor_borrow_data(struct ir_tensor *t, const void *data,
			   size_t nbytes);
/*
 * XXH3-128 of @t's data bytes into @out (zeros without data). Computed
 * once per mapped tensor (its bytes cannot change), on every call
 * otherwise: the key hashes of the cache, CSE and derive.h use it, so a
 * large model's weights are read once per compile, not once per use.
 */
void ir_tensor_digest(const struct ir_tensor *t, uint64_t out[2]);
/*
 * Does @n read or write a tensor of data-dependent extent (ir_tensor.
 * count)? Such a node is never folded into constants: they would have
 * the bound's shape.
 */
static inline bool ir_node_counted(const struct ir_node *n)
{
	for (int i = 0; i < n->num_inputs; i++)
		if (n->inputs[i] && n->inputs[i]->count)
			return true;
	for (int i = 0; i < n->num_outputs; i++)
		if (n->outputs[i] && n->outputs[i]->count)
			return true;
	return false;
}

/*
 * Does @n draw random numbers (ONNX's random ops, npu.Random)? Such a
 * node is never folded, nor merged with an equal one by CSE: two draws
 * are two draws, and each run draws anew.
 */
static inline bool ir_node_is_random(const struct ir_node *n)
{
	switch (n->op) {
	case IR_OP_RANDOM_UNIFORM: case IR_OP_RANDOM_UNIFORM_LIKE:
	case IR_OP_RANDOM_NORMAL: case IR_OP_RANDOM_NORMAL_LIKE:
	case IR_OP_BERNOULLI: case IR_OP_RANDOM_TASK:
		return true;
	default:
		return false;
	}
}

static inline bool ir_tensor_is_const(const struct ir_tensor *t)
{
	return t && t->data != NULL;
}
int64_t ir_tensor_numel(const struct ir_tensor *t);	/* -1 if symbolic */
/* Constant element @i converted to double / int64 (any dtype). */
double ir_const_get_f(const struct ir_tensor *t, int64_t i);
int64_t ir_const_get_i(const struct ir_tensor *t, int64_t i);
/* double -> int64 without undefined behaviour (saturates, NaN is 0). */
int64_t ir_f64_to_i64(double v);

/* --- nodes --------------------------------------------------------------- */
/* Appends a node; @inputs may hold NULL for absent optional inputs. */
struct ir_node *ir_node_new(struct ir_graph *g, enum ir_op op,
			    const char *name, int num_inputs,
			    struct ir_tensor *const *inputs, int num_outputs,
			    struct ir_tensor *const *outputs);
int ir_node_set_input(struct ir_node *n, int index, struct ir_tensor *t);
int ir_node_add_input(struct ir_node *n, struct ir_tensor *t);
/* Drops inputs [@count, num_inputs). */
void ir_node_truncate_inputs(struct ir_node *n, int count);
int ir_node_set_output(struct ir_node *n, int index, struct ir_tensor *t);
/*
 * Detach a node and take it out of g->nodes (its outputs lose their
 * producer). It is marked dead and freed by ir_graph_purge() (or
 * ir_graph_free()).
 */
void ir_node_remove(struct ir_graph *g, struct ir_node *n);
/* Free the nodes removed so far (no pointer to them may be kept). */
void ir_graph_purge(struct ir_graph *g);
/* Every use of @old (and a graph output) now reads @new_t. */
void ir_replace_uses(struct ir_graph *g, struct ir_tensor *old,
		     struct ir_tensor *new_t);
static inline struct ir_tensor *ir_in(const struct ir_node *n, int i)
{
	return i < n->num_inputs ? n->inputs[i] : NULL;
}
/*
 * Provenance (see ir_node.origins, ir_tensor.origin): add one ONNX node
 * name (kept once), all of @src's, or set a tensor's. 0 or -ENOMEM.
 */
int ir_node_add_origin(struct ir_node *n, const char *name);
int ir_node_add_origins(struct ir_node *dst, const struct ir_node *src);
int ir_tensor_set_origin(struct ir_tensor *t, const char *name);
/* The single consumer of @t, or NULL when it has 0 or >1 or is an output. */
struct ir_node *ir_sole_consumer(const struct ir_tensor *t);

/* --- attributes ---------------------------------------------------------- */
const struct ir_attr *ir_attr_find(const struct ir_node *n, const char *name);
int64_t ir_attr_int(const struct ir_node *n, const char *name, int64_t def);
float ir_attr_float(const struct ir_node *n, const char *name, float def);
const char *ir_attr_str(const struct ir_node *n, const char *name,
			const char *def);
/* Returns the count (0 if absent), *out points into the node. */
int ir_attr_ints(const struct ir_node *n, const char *name,
		 const int64_t **out);
int ir_attr_floats(const struct ir_node *n, const char *name,
		   const float **out);
int ir_attr_set_int(struct ir_node *n, const char *name, int64_t v);
int ir_attr_set_float(struct ir_node *n, const char *name, float v);
int ir_attr_set_str(struct ir_node *n, const char *name, const char *v);
int ir_attr_set_ints(struct ir_node *n, const char *name,
		     const int64_t *v, int count);
int ir_attr_set_floats(struct ir_node *n, const char *name,
		       const float *v, int count);
/*
 * A copy of attribute @a onto @dst; a tensor attribute names @t (the
 * caller's copy of a->t), a graph attribute gets a deep copy.
 */
int ir_attr_copy(struct ir_node *dst, const struct ir_attr *a,
		 struct ir_tensor *t);
/* Takes ownership of @sub (freed with the node, or here on error). */
int ir_attr_set_graph(struct ir_node *n, const char *name,
		      struct ir_graph *sub);
/* The subgraph attribute @name, NULL if absent. */
struct ir_graph *ir_attr_graph(const struct ir_node *n, const char *name);
/*
 * The ONNX inputs of a node with subgraphs: those before its implicit
 * inputs (ir_graph.captures), recorded at import.
 */
#define IR_ATTR_FORMAL_INPUTS	"npu.formal_inputs"
int ir_attr_set_tensor(struct ir_node *n, const char *name,
		       struct ir_tensor *t);
void ir_attr_remove(struct ir_node *n, const char *name);

/* --- verification and dumps ---------------------------------------------- */
/*
 * Check the bookkeeping: every input has a producer, is a constant or a
 * graph input; uses match inputs; outputs have this node as producer; no
 * cycle; names unique; constant data sizes match shapes. 0 or -EINVAL.
 */
int ir_verify(struct ir_graph *g);
/* True when NPUC_VERIFY=1 in the environment or built with NPUC_DEBUG. */
bool ir_verify_enabled(void);
void ir_dump_text(const struct ir_graph *g, FILE *f);
void ir_dump_dot(const struct ir_graph *g, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* NPUC_IR_H */
