// SPDX-License-Identifier: MIT
/*
 * onnx_import.c - ONNX ModelProto (protobuf-c) -> IR graph.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx/onnx.pb-c.h"
#include "onnx_import.h"
#include "om_bigbuf.h"
#include "onnx/onnx_lift.h"
#include "../plugin/plugin_load.h"

/* ONNX TensorProto.DataType values. */
enum {
	ONNX_FLOAT = 1, ONNX_UINT8 = 2, ONNX_INT8 = 3, ONNX_UINT16 = 4,
	ONNX_INT16 = 5, ONNX_INT32 = 6, ONNX_INT64 = 7, ONNX_STRING = 8,
	ONNX_BOOL = 9, ONNX_FLOAT16 = 10, ONNX_DOUBLE = 11, ONNX_UINT32 = 12,
	ONNX_UINT64 = 13, ONNX_BFLOAT16 = 16, ONNX_INT4 = 22,
};

struct onnx_ctx {
	struct ir_graph *g;
	const char *base_dir;
	const struct onnx_import_opts *opts;
	char *err;
	size_t errlen;
	int64_t opset;
	const Onnx__ModelProto *model;	/* for the opsets of other domains */
	/*
	 * Initializers take their raw_data buffer from the unpacked protobuf
	 * instead of copying it (protobuf-c allocates it with malloc(), and
	 * free_unpacked() skips a NULL one): one copy of the weights less.
	 */
	bool take_raw;
	/*
	 * map_weights: the initializers onnx_lift() took out of the
	 * protobuf, and the file they lie in. An initializer of a type the
	 * IR keeps as it is stored points into the file (map_raw while it
	 * is imported); the others are copied.
	 */
	const struct onnx_lift *lift;
	const uint8_t *file;
	bool map_raw;
	/*
	 * Tensors the importer names itself (tensor attributes, unnamed
	 * optional outputs): their automatic names must not take a user's.
	 * User names win: a user name that one of these holds is claimed
	 * (onnx_claim()) and the private tensor renamed out of its way.
	 */
	struct ir_tensor **priv;
	int num_priv, cap_priv;
	int depth;			/* of subgraph nesting, 0 for the model */
	enum ir_dtype *out_dt;		/* the graph outputs' declared dtypes */
};

/* Subgraphs (If, Loop, Scan bodies) nest at most this deep. */
#define ONNX_MAX_SUBGRAPH_DEPTH	8

static int onnx_subgraph(struct onnx_ctx *c, const Onnx__NodeProto *np,
			 const Onnx__AttributeProto *a, struct ir_node *n);

static int onnx_fail(struct onnx_ctx *c, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int onnx_fail(struct onnx_ctx *c, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static enum ir_dtype onnx_dtype(int32_t t)
{
	switch (t) {
	case ONNX_FLOAT: return IR_F32;
	case ONNX_UINT8: return IR_U8;
	case ONNX_INT8: return IR_I8;
	case ONNX_INT32: return IR_I32;
	case ONNX_INT64: return IR_I64;
	case ONNX_BOOL: return IR_BOOL;
	case ONNX_FLOAT16: return IR_F16;
	case ONNX_INT4: return IR_I8;	/* unpacked, ir_tensor.int4 */
	/* storage types, narrowed after import (onnx_storage.c) */
	case ONNX_DOUBLE: return IR_F64;
	case ONNX_BFLOAT16: return IR_BF16;
	case ONNX_INT16: return IR_I16;
	case ONNX_UINT16: return IR_U16;
	case ONNX_UINT32: return IR_U32;
	case ONNX_UINT64: return IR_U64;
	default: return IR_DTYPE_INVALID;
	}
}

static const char *onnx_dtype_name(int32_t t)
{
	static const char *const names[] = {
		"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
		"INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
		"UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
		"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
		"FLOAT8E5M2FNUZ", "UINT4", "INT4",
	};

	return t >= 0 && t < (int32_t)(sizeof(names) / sizeof(names[0])) ?
	       names[t] : "unknown";
}

/* --- external data -------------------------------------------------------- */

/* A location must stay inside the model's directory. */
static int onnx_check_location(struct onnx_ctx *c, const char *tname,
			       const char *loc)
{
	const char *p = loc;

	if (!loc || !*loc)
		return onnx_fail(c, -EINVAL, "initializer '%s': external data "
				 "without a location", tname);
	if (loc[0] == '/')
		return onnx_fail(c, -EINVAL, "initializer '%s': external data "
				 "location '%s' is absolute; it must be a "
				 "path relative to the model", tname, loc);
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2))
			return onnx_fail(c, -EINVAL, "initializer '%s': "
					 "external data location '%s' leaves "
					 "the model's directory", tname, loc);
		p += n;
		while (*p == '/')
			p++;
	}
	if (!c->base_dir)
		return onnx_fail(c, -EINVAL, "initializer '%s': external data "
				 "'%s' but the model was not loaded from a "
				 "file", tname, loc);
	return 0;
}

static int onnx_read_external(struct onnx_ctx *c, const Onnx__TensorProto *tp,
			      void *dst, size_t nbytes)
{
	const char *loc = NULL;
	int64_t offset = 0, length = -1;
	char path[PATH_MAX];
	struct stat st;
	size_t i, maxb;
	FILE *f;
	int err;

	for (i = 0; i < tp->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = tp->external_data[i];

		if (!e || !e->key || !e->value)
			continue;
		if (!strcmp(e->key, "location"))
			loc = e->value;
		else if (!strcmp(e->key, "offset"))
			offset = strtoll(e->value, NULL, 10);
		else if (!strcmp(e->key, "length"))
			length = strtoll(e->value, NULL, 10);
	}
	err = onnx_check_location(c, tp->name ? tp->name : "?", loc);
	if (err)
		return err;
	if (offset < 0 || (length >= 0 && (size_t)length != nbytes))
		return onnx_fail(c, -EINVAL, "initializer '%s': external data "
				 "offset %lld length %lld, its shape needs %zu "
				 "bytes", tp->name, (long long)offset,
				 (long long)length, nbytes);
	maxb = c->opts && c->opts->max_external_bytes ?
	       c->opts->max_external_bytes : (size_t)4 << 30;
	if (nbytes > maxb)
		return onnx_fail(c, -EINVAL, "initializer '%s': %zu bytes of "
				 "external data exceed the limit %zu",
				 tp->name, nbytes, maxb);
	if (snprintf(path, sizeof(path), "%s/%s", c->base_dir, loc) >=
	    (int)sizeof(path))
		return onnx_fail(c, -EINVAL, "initializer '%s': external path "
				 "too long", tp->name);
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return onnx_fail(c, -ENOENT, "initializer '%s': external data "
				 "file '%s' not found (it must lie next to "
				 "the model)", tp->name, path);
	if ((uint64_t)offset + nbytes > (uint64_t)st.st_size)
		return onnx_fail(c, -EINVAL, "initializer '%s': external file "
				 "'%s' holds %lld bytes, need %lld + %zu",
				 tp->name, path, (long long)st.st_size,
				 (long long)offset, nbytes);
	f = fopen(path, "rb");
	if (!f)
		return onnx_fail(c, -EIO, "initializer '%s': cannot open '%s'",
				 tp->name, path);
	if (fseeko(f, offset, SEEK_SET) ||
	    (nbytes && fread(dst, 1, nbytes, f) != nbytes)) {
		fclose(f);
		return onnx_fail(c, -EIO, "initializer '%s': short read of "
				 "'%s'", tp->name, path);
	}
	fclose(f);
	return 0;
}

/* --- tensors -------------------------------------------------------------- */

/* Copy typed data field values into @dst (of dtype @dt, @n elements). */
static int onnx_typed_data(struct onnx_ctx *c, const Onnx__TensorProto *tp,
			   enum ir_dtype dt, void *dst, size_t n)
{
	size_t i;

	switch (tp->data_type) {
	case ONNX_FLOAT:
		if (tp->n_float_data != n)
			break;
		if (n)
			memcpy(dst, tp->float_data, n * 4);
		return 0;
	case ONNX_INT64:
		if (tp->n_int64_data != n)
			break;
		if (n)
			memcpy(dst, tp->int64_data, n * 8);
		return 0;
	case ONNX_DOUBLE:
		if (tp->n_double_data != n)
			break;
		if (n)
			memcpy(dst, tp->double_data, n * 8);
		return 0;
	case ONNX_UINT32: case ONNX_UINT64:
		if (tp->n_uint64_data != n)
			break;
		for (i = 0; i < n; i++) {
			if (dt == IR_U32)
				((uint32_t *)dst)[i] = (uint32_t)tp->uint64_data[i];
			else
				((uint64_t *)dst)[i] = tp->uint64_data[i];
		}
		return 0;
	case ONNX_INT32: case ONNX_INT8: case ONNX_UINT8: case ONNX_BOOL:
	case ONNX_FLOAT16: case ONNX_INT16: case ONNX_UINT16: case ONNX_BFLOAT16:
		if (tp->n_int32_data != n)
			break;
		for (i = 0; i < n; i++) {
			int32_t v = tp->int32_data[i];

			switch (dt) {
			case IR_I32: ((int32_t *)dst)[i] = v; break;
			case IR_I8: ((int8_t *)dst)[i] = (int8_t)v; break;
			case IR_U8: ((uint8_t *)dst)[i] = (uint8_t)v; break;
			case IR_BOOL: ((uint8_t *)dst)[i] = v != 0; break;
			case IR_F16: case IR_BF16: case IR_I16: case IR_U16:
				((uint16_t *)dst)[i] = (uint16_t)v;
				break;
			default: break;
			}
		}
		return 0;
	}
	return onnx_fail(c, -EINVAL, "tensor '%s': typed data holds a "
			 "different number of elements than its shape "
			 "(%zu expected)", tp->name ? tp->name : "?", n);
}

/* Elements in the typed field that @tp's data type uses. */
static size_t onnx_typed_count(const Onnx__TensorProto *tp)
{
	switch (tp->data_type) {
	case ONNX_FLOAT: return tp->n_float_data;
	case ONNX_INT64: return tp->n_int64_data;
	case ONNX_DOUBLE: return tp->n_double_data;
	case ONNX_UINT32: case ONNX_UINT64: return tp->n_uint64_data;
	default: return tp->n_int32_data;
	}
}

/*
 * An ONNX INT4 tensor (data type 22, opset 21): two values a byte in the
 * flattened order, the low nibble first, in raw_data, external data or
 * int32_data (one packed byte per entry). Imported unpacked as INT8
 * values with ir_tensor.int4 set; the weight-only pass packs them again
 * in the device's layout.
 */
static int onnx_int4_tensor(struct onnx_ctx *c, const Onnx__TensorProto *tp,
			    const char *name, const struct ir_shape *s,
			    size_t n, struct ir_tensor **out)
{
	size_t packed = n / 2 + (n & 1), i;
	uint8_t *p = malloc(packed ? packed : 1);
	int8_t *v = malloc(n ? n : 1);
	struct ir_tensor *t;
	int err = 0;

	if (!p || !v) {
		free(p);
		free(v);
		return onnx_fail(c, -ENOMEM, "out of memory");
	}
	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		err = onnx_read_external(c, tp, p, packed);
	} else if (tp->has_raw_data) {
		if (tp->raw_data.len != packed)
			err = onnx_fail(c, -EINVAL, "tensor '%s': INT4 "
					"raw_data holds %zu bytes, its shape "
					"needs %zu", name, tp->raw_data.len,
					packed);
		else if (packed)
			memcpy(p, tp->raw_data.data, packed);
	} else if (tp->n_int32_data == packed) {
		for (i = 0; i < packed; i++)
			p[i] = (uint8_t)tp->int32_data[i];
	} else {
		err = onnx_fail(c, -EINVAL, "tensor '%s': INT4 int32_data "
				"holds %zu entries, its shape needs %zu",
				name, tp->n_int32_data, packed);
	}
	for (i = 0; !err && i < n; i++) {
		uint8_t b = (i & 1) ? p[i / 2] >> 4 : p[i / 2] & 15;

		v[i] = (int8_t)((int)b - ((b & 8) << 1));
	}
	free(p);
	if (err) {
		free(v);
		return err;
	}
	t = ir_tensor_new(c->g, name, IR_I8, s);
	if (!t) {
		free(v);
		return onnx_fail(c, -ENOMEM, "out of memory");
	}
	t->data = v;
	t->nbytes = n;
	t->int4 = true;
	*out = t;
	return 0;
}

/*
 * The types whose stored bytes are the IR's: a mapped initializer of one
 * of them needs no conversion (onnx_narrow_storage() rewrites the others,
 * bool is normalised to 0/1, int4 unpacked).
 */
static bool onnx_mappable(int32_t data_type)
{
	switch (data_type) {
	case ONNX_FLOAT: case ONNX_FLOAT16: case ONNX_INT8: case ONNX_UINT8:
	case ONNX_INT32: case ONNX_INT64:
		return true;
	default:
		return false;
	}
}

/* Make a constant IR tensor from a TensorProto. */
static int onnx_tensor(struct onnx_ctx *c, const Onnx__TensorProto *tp,
		       const char *name, struct ir_tensor **out)
{
	enum ir_dtype dt = onnx_dtype(tp->data_type);
	struct ir_shape s = { 0 };
	struct ir_tensor *t;
	size_t i, n = 1, nbytes;
	bool mapped = false;
	void *buf;
	int err;

	if (dt == IR_DTYPE_INVALID)
		return onnx_fail(c, -ENOTSUP, "tensor '%s': data type %s (%d) "
				 "is not supported (f32, f16, i8, u8, i32, "
				 "i64, bool are)", name,
				 onnx_dtype_name(tp->data_type),
				 tp->data_type);
	if (tp->n_dims > IR_MAX_RANK)
		return onnx_fail(c, -ENOTSUP, "tensor '%s': rank %zu exceeds "
				 "%d", name, tp->n_dims, IR_MAX_RANK);
	s.rank = (int)tp->n_dims;
	for (i = 0; i < tp->n_dims; i++) {
		if (tp->dims[i] < 0 || tp->dims[i] > (1LL << 40) ||
		    __builtin_mul_overflow(n, (size_t)tp->dims[i], &n) ||
		    n > ((size_t)1 << 40))
			return onnx_fail(c, -EINVAL, "tensor '%s': dim %zu "
					 "is %lld", name, i,
					 (long long)tp->dims[i]);
		s.dim[i] = tp->dims[i];
	}
	nbytes = n * ir_dtype_size(dt);
	if (tp->data_type == ONNX_INT4)
		return onnx_int4_tensor(c, tp, name, &s, n, out);
	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		buf = malloc(nbytes ? nbytes : 1);
		if (!buf)
			return onnx_fail(c, -ENOMEM, "tensor '%s': out of "
					 "memory for %zu bytes", name, nbytes);
		err = onnx_read_external(c, tp, buf, nbytes);
	} else if (tp->has_raw_data) {
		if (tp->raw_data.len != nbytes)
			return onnx_fail(c, -EINVAL, "tensor '%s': raw_data "
					 "holds %zu bytes, its shape needs %zu",
					 name, tp->raw_data.len, nbytes);
		if (c->map_raw && nbytes && onnx_mappable(tp->data_type)) {
			buf = tp->raw_data.data;
			mapped = true;
		} else if (c->take_raw && nbytes) {
			Onnx__TensorProto *own = (Onnx__TensorProto *)tp;

			buf = own->raw_data.data;
			own->raw_data.data = NULL;
			own->raw_data.len = 0;
			own->has_raw_data = false;
		} else {
			buf = malloc(nbytes ? nbytes : 1);
			if (!buf)
				return onnx_fail(c, -ENOMEM, "out of memory");
			if (nbytes)
				memcpy(buf, tp->raw_data.data, nbytes);
		}
		err = 0;
	} else {
		/* check the element count before allocating for it */
		size_t have = onnx_typed_count(tp);

		if (have != n)
			return onnx_fail(c, -EINVAL, "tensor '%s': typed data "
					 "holds %zu elements, its shape needs "
					 "%zu", name, have, n);
		buf = calloc(1, nbytes ? nbytes : 1);
		if (!buf)
			return onnx_fail(c, -ENOMEM, "out of memory");
		err = onnx_typed_data(c, tp, dt, buf, n);
	}
	if (!err && dt == IR_BOOL && !mapped)
		for (i = 0; i < n; i++)
			((uint8_t *)buf)[i] = ((uint8_t *)buf)[i] != 0;
	if (err) {
		free(buf);
		return err;
	}
	t = ir_tensor_new(c->g, name, dt, &s);
	if (!t) {
		free(buf);
		return onnx_fail(c, -ENOMEM, "out of memory");
	}
	t->data = buf;
	t->nbytes = nbytes;
	t->data_mapped = mapped;
	*out = t;
	return 0;
}

/* --- names ---------------------------------------------------------------- */

/* A private tensor: named by the importer, never by the model. */
static struct ir_tensor *onnx_private(struct onnx_ctx *c, struct ir_tensor *t)
{
	if (!t)
		return NULL;
	if (c->num_priv == c->cap_priv) {
		int cap = c->cap_priv ? c->cap_priv * 2 : 16;
		void *p = realloc(c->priv, (size_t)cap * sizeof(*c->priv));

		if (!p)
			return NULL;
		c->priv = p;
		c->cap_priv = cap;
	}
	c->priv[c->num_priv++] = t;
	return t;
}

/* Make @name free for the model's own tensor: move a private one away. */
static int onnx_claim(struct onnx_ctx *c, const char *name)
{
	struct ir_tensor *t = ir_graph_find_tensor(c->g, name);

	for (int i = 0; t && i < c->num_priv; i++)
		if (c->priv[i] == t)
			return ir_tensor_rename(c->g, t, NULL);
	return 0;
}

/* The tensor called @name: existing, or a fresh placeholder. */
static struct ir_tensor *onnx_lookup(struct onnx_ctx *c, const char *name)
{
	struct ir_tensor *t;

	if (onnx_claim(c, name))
		return NULL;
	t = ir_graph_find_tensor(c->g, name);

	if (t)
		return t;
	return ir_tensor_new(c->g, name, IR_DTYPE_INVALID, NULL);
}

/* --- graph inputs --------------------------------------------------------- */

static int onnx_value_shape(struct onnx_ctx *c, const Onnx__ValueInfoProto *vi,
			    enum ir_dtype *dt, struct ir_shape *s, bool *known)
{
	const Onnx__TypeProto__Tensor *tt;
	size_t i;

	*known = false;
	if (!vi->type || vi->type->value_case !=
	    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
		return onnx_fail(c, -ENOTSUP, "value '%s': only tensor types "
				 "are supported (no sequences, maps, "
				 "optionals)", vi->name);
	tt = vi->type->tensor_type;
	*dt = onnx_dtype(tt->elem_type);
	if (*dt == IR_DTYPE_INVALID)
		return onnx_fail(c, -ENOTSUP, "value '%s': data type %s is not "
				 "supported", vi->name,
				 onnx_dtype_name(tt->elem_type));
	memset(s, 0, sizeof(*s));
	if (!tt->shape)
		return 0;
	if (tt->shape->n_dim > IR_MAX_RANK)
		return onnx_fail(c, -ENOTSUP, "value '%s': rank %zu exceeds %d",
				 vi->name, tt->shape->n_dim, IR_MAX_RANK);
	s->rank = (int)tt->shape->n_dim;
	for (i = 0; i < tt->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
		char sym[300];
		int id;

		if (d && d->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value >= 0) {
			s->dim[i] = d->dim_value;
			continue;
		}
		if (d && d->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		    d->dim_param && *d->dim_param)
			snprintf(sym, sizeof(sym), "%.250s", d->dim_param);
		else
			snprintf(sym, sizeof(sym), "%.200s_dim%zu", vi->name,
				 i);
		id = ir_sym_intern(c->g, sym);
		if (id < 0)
			return onnx_fail(c, -ENOMEM, "out of memory");
		s->dim[i] = IR_DIM_SYM(id);
	}
	*known = true;
	return 0;
}

/*
 * Record the shape graph.output #@i declares (for the names of its dynamic
 * dims in the .om); a declaration the importer cannot read is no error, the
 * outputs' shapes come from shape inference.
 */
static int onnx_declare_output(struct onnx_ctx *c,
			       const Onnx__ValueInfoProto *vi, int i, int n)
{
	const Onnx__TensorShapeProto *sp;
	struct ir_shape s = { 0 };

	if (!c->g->out_decl) {
		c->g->out_decl = calloc((size_t)n, sizeof(*c->g->out_decl));
		if (!c->g->out_decl)
			return onnx_fail(c, -ENOMEM, "out of memory");
		for (int k = 0; k < n; k++)
			c->g->out_decl[k].rank = -1;
	}
	if (!vi->type || vi->type->value_case !=
	    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type ||
	    !vi->type->tensor_type->shape)
		return 0;
	sp = vi->type->tensor_type->shape;
	if (sp->n_dim > IR_MAX_RANK)
		return 0;
	for (size_t d = 0; d < sp->n_dim; d++) {
		const Onnx__TensorShapeProto__Dimension *dm = sp->dim[d];
		int id;

		if (dm && dm->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    dm->dim_value >= 0) {
			s.dim[d] = dm->dim_value;
			continue;
		}
		if (!dm || dm->value_case !=
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
		    !dm->dim_param || !*dm->dim_param)
			return 0;	/* an unnamed dim: nothing to name */
		id = ir_sym_intern(c->g, dm->dim_param);
		if (id < 0)
			return onnx_fail(c, -ENOMEM, "out of memory");
		s.dim[d] = IR_DIM_SYM(id);
	}
	s.rank = (int)sp->n_dim;
	c->g->out_decl[i] = s;
	return 0;
}

/* Apply "name:1,3,224,224;..." overrides to the graph inputs. */
static int onnx_apply_input_shapes(struct onnx_ctx *c, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *item;
	int err = 0;

	if (!copy)
		return onnx_fail(c, -ENOMEM, "out of memory");
	for (item = strtok_r(copy, ";", &save); item && !err;
	     item = strtok_r(NULL, ";", &save)) {
		char *colon = strrchr(item, ':'), *dsave = NULL, *tok;
		struct ir_tensor *t;
		struct ir_shape s = { 0 };

		if (!colon) {
			err = onnx_fail(c, -EINVAL, "--input-shape '%s': "
					"expected NAME:D0,D1,...", item);
			break;
		}
		*colon = 0;
		t = ir_graph_find_tensor(c->g, item);
		if (!t || !t->is_input) {
			err = onnx_fail(c, -EINVAL, "--input-shape: the model "
					"has no input '%s'", item);
			break;
		}
		for (tok = strtok_r(colon + 1, ",", &dsave); tok;
		     tok = strtok_r(NULL, ",", &dsave)) {
			char *end;
			long long v = strtoll(tok, &end, 10);

			if (s.rank == IR_MAX_RANK) {
				err = onnx_fail(c, -EINVAL, "--input-shape "
						"'%s': too many dims", item);
				break;
			}
			if (*end || end == tok) {
				int id = ir_sym_intern(c->g, tok);

				if (id < 0) {
					err = -ENOMEM;
					break;
				}
				s.dim[s.rank++] = IR_DIM_SYM(id);
			} else if (v < 0) {
				err = onnx_fail(c, -EINVAL, "--input-shape "
						"'%s': negative dim", item);
				break;
			} else {
				s.dim[s.rank++] = v;
			}
		}
		t->shape = s;
		t->shape_known = true;
	}
	free(copy);
	return err;
}

/* --- attributes ----------------------------------------------------------- */

static int onnx_attr(struct onnx_ctx *c, const Onnx__NodeProto *np,
		     struct ir_node *n, const Onnx__AttributeProto *a)
{
	const char *nn = np->name ? np->name : "";
	char *s;
	int err = 0;
	struct ir_tensor *t;

	if (!a->name || !*a->name)
		return onnx_fail(c, -EINVAL, "node '%s' (%s): attribute "
				 "without a name", nn, np->op_type);
	switch (a->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		err = ir_attr_set_int(n, a->name, a->i);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		err = ir_attr_set_float(n, a->name, a->f);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		s = calloc(1, a->s.len + 1);
		if (!s)
			return -ENOMEM;
		if (a->s.len)
			memcpy(s, a->s.data, a->s.len);
		err = ir_attr_set_str(n, a->name, s);
		free(s);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: {
		/* kept as one string, the entries joined by ',' (RNN's
		 * activations) */
		size_t len = 1, at = 0, k;

		for (k = 0; k < a->n_strings; k++)
			len += a->strings[k].len + 1;
		s = calloc(1, len);
		if (!s)
			return -ENOMEM;
		for (k = 0; k < a->n_strings; k++) {
			if (k)
				s[at++] = ',';
			if (a->strings[k].len)
				memcpy(s + at, a->strings[k].data,
				       a->strings[k].len);
			at += a->strings[k].len;
		}
		err = ir_attr_set_str(n, a->name, s);
		free(s);
		break;
	}
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		if (a->n_ints > INT_MAX)
			return -EINVAL;
		err = ir_attr_set_ints(n, a->name, a->ints, (int)a->n_ints);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		if (a->n_floats > INT_MAX)
			return -EINVAL;
		err = ir_attr_set_floats(n, a->name, a->floats,
					 (int)a->n_floats);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		if (!a->t)
			return onnx_fail(c, -EINVAL, "node '%s' (%s): tensor "
					 "attribute '%s' is empty", nn,
					 np->op_type, a->name);
		err = onnx_tensor(c, a->t, NULL, &t);
		if (err)
			return err;
		if (!onnx_private(c, t))
			return onnx_fail(c, -ENOMEM, "out of memory");
		err = ir_attr_set_tensor(n, a->name, t);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
		return onnx_subgraph(c, np, a, n);
	default:
		return onnx_fail(c, -ENOTSUP, "node '%s' (%s, opset %lld): "
				 "attribute '%s' of type %d (lists of graphs, "
				 "sparse tensors, type protos) is not "
				 "supported",
				 nn, np->op_type, (long long)c->opset,
				 a->name, a->type);
	}
	return err ? onnx_fail(c, err, "out of memory") : 0;
}

/* A Constant node becomes a constant tensor named like its output. */
static int onnx_constant(struct onnx_ctx *c, const Onnx__NodeProto *np)
{
	const char *out = np->n_output == 1 ? np->output[0] : NULL;
	const Onnx__AttributeProto *a;
	struct ir_tensor *t = NULL;
	struct ir_shape s = { 0 };
	int err;

	if (!out || !*out || np->n_attribute != 1 || !np->attribute[0] ||
	    !np->attribute[0]->name)
		return onnx_fail(c, -EINVAL, "node '%s' (Constant): needs one "
				 "output and exactly one value attribute",
				 np->name ? np->name : "");
	if (onnx_claim(c, out))
		return onnx_fail(c, -ENOMEM, "out of memory");
	if (ir_graph_find_tensor(c->g, out))
		return onnx_fail(c, -EINVAL, "node '%s' (Constant): output "
				 "'%s' is produced twice",
				 np->name ? np->name : "", out);
	a = np->attribute[0];
	if (!strcmp(a->name, "value") && a->t) {
		err = onnx_tensor(c, a->t, out, &t);
		return err;
	}
	if (!strcmp(a->name, "value_float")) {
		t = ir_const_new(c->g, out, IR_F32, &s, &a->f, 4);
	} else if (!strcmp(a->name, "value_int")) {
		t = ir_const_new(c->g, out, IR_I64, &s, &a->i, 8);
	} else if (!strcmp(a->name, "value_floats")) {
		s.rank = 1;
		s.dim[0] = (int64_t)a->n_floats;
		t = ir_const_new(c->g, out, IR_F32, &s, a->floats,
				 a->n_floats * 4);
	} else if (!strcmp(a->name, "value_ints")) {
		s.rank = 1;
		s.dim[0] = (int64_t)a->n_ints;
		t = ir_const_new(c->g, out, IR_I64, &s, a->ints,
				 a->n_ints * 8);
	} else {
		return onnx_fail(c, -ENOTSUP, "node '%s' (Constant, opset "
				 "%lld): attribute '%s' is not supported",
				 np->name ? np->name : "", (long long)c->opset,
				 a->name);
	}
	return t ? 0 : onnx_fail(c, -ENOMEM, "out of memory");
}

/*
 * Ops whose opset 1..6 definitions compute what their current ones do
 * (legacy attributes such as consumed_inputs are ignored).
 */
static bool onnx_legacy_ok(enum ir_op op)
{
	switch (op) {
	case IR_OP_CONSTANT: case IR_OP_IDENTITY: case IR_OP_RELU:
	case IR_OP_SIGMOID: case IR_OP_TANH: case IR_OP_EXP: case IR_OP_LOG:
	case IR_OP_SQRT: case IR_OP_NEG: case IR_OP_ABS: case IR_OP_RECIPROCAL:
	case IR_OP_FLOOR: case IR_OP_CEIL: case IR_OP_NOT: case IR_OP_ELU:
	case IR_OP_LEAKY_RELU: case IR_OP_HARD_SIGMOID: case IR_OP_SOFTPLUS:
	case IR_OP_GLOBAL_AVERAGE_POOL: case IR_OP_GLOBAL_MAX_POOL:
	case IR_OP_CONV: case IR_OP_MAX_POOL: case IR_OP_AVERAGE_POOL:
	case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX: case IR_OP_TRANSPOSE:
	case IR_OP_FLATTEN: case IR_OP_MATMUL:
	case IR_OP_REDUCE_SUM: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX:
	case IR_OP_REDUCE_MIN: case IR_OP_REDUCE_PROD:
	case IR_OP_REDUCE_SUM_SQUARE: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
	case IR_OP_GATHER: case IR_OP_SHAPE: case IR_OP_SLICE:
	case IR_OP_SELU: case IR_OP_SOFTSIGN: case IR_OP_SIZE:
	case IR_OP_INSTANCE_NORM: case IR_OP_LRN: case IR_OP_DEPTH_TO_SPACE:
	case IR_OP_SPACE_TO_DEPTH: case IR_OP_ARG_MAX: case IR_OP_ARG_MIN:
	case IR_OP_UPSAMPLE:
		return true;
	default:
		return false;
	}
}

/* The opset the model imports of @domain (the default one: c->opset). */
static int64_t onnx_domain_opset(const struct onnx_ctx *c, const char *domain)
{
	if (!*domain || !strcmp(domain, "ai.onnx"))
		return c->opset;
	for (size_t i = 0; c->model && i < c->model->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = c->model->opset_import[i];

		if (o && o->domain && !strcmp(o->domain, domain))
			return o->version;
	}
	return 1;	/* ONNX: a domain the model does not import */
}

/* Whether npuc itself imports @np (its op, domain and opset). */
static bool onnx_op_native(const struct onnx_ctx *c, const Onnx__NodeProto *np)
{
	const char *domain = np->domain ? np->domain : "";
	enum ir_op op;

	if (*domain && strcmp(domain, "ai.onnx"))
		return false;
	op = ir_op_from_name(np->op_type);
	return op != IR_OP_INVALID &&
	       !(op == IR_OP_LAYER_NORM && c->opset < 17);
}

/* The plugin op serving @np, or NULL. */
static const struct npuc_plugin_op *onnx_plugin_op(const struct onnx_ctx *c,
		const Onnx__NodeProto *np, const struct npu_plugin_lib **lib)
{
	const char *domain = np->domain ? np->domain : "";

	return npu_plugin_find_op(domain, np->op_type,
				  onnx_domain_opset(c, domain), lib);
}

/* Whether npuc imports @np at all: natively or through a plugin. */
static bool onnx_op_known(const struct onnx_ctx *c, const Onnx__NodeProto *np)
{
	return onnx_op_native(c, np) || onnx_plugin_op(c, np, NULL);
}

static const char *const onnx_attr_type_names[] = {
	"int", "float", "string", "ints", "floats", "tensor"
};

/*
 * A node a plugin serves: its arity and attributes checked against the
 * op's schema, the op's identity recorded (IR_CUSTOM_*).
 */
static int onnx_custom(struct onnx_ctx *c, const Onnx__NodeProto *np,
		       struct ir_node *n, const char *name)
{
	const struct npu_plugin_lib *lib = NULL;
	const struct npuc_plugin_op *op = onnx_plugin_op(c, np, &lib);
	const char *pname = lib->desc->name;
	int a, k;

	if ((int)np->n_input < op->min_inputs ||
	    (int)np->n_input > op->max_inputs ||
	    (int)np->n_output < op->min_outputs ||
	    (int)np->n_output > op->max_outputs)
		return onnx_fail(c, -EINVAL, "node '%s' (%s, plugin %s): %zu "
				 "inputs and %zu outputs; the op takes %d..%d "
				 "inputs and %d..%d outputs", name,
				 np->op_type, pname, np->n_input, np->n_output,
				 op->min_inputs, op->max_inputs,
				 op->min_outputs, op->max_outputs);
	for (a = 0; a < n->num_attrs; a++) {
		const struct ir_attr *at = &n->attrs[a];

		for (k = 0; k < op->num_attrs; k++)
			if (!strcmp(op->attrs[k].name, at->name))
				break;
		if (k == op->num_attrs)
			return onnx_fail(c, -EINVAL, "node '%s' (%s, plugin %s):"
					 " attribute '%s' is not in the op's "
					 "schema", name, np->op_type, pname,
					 at->name);
		if ((int)at->type != op->attrs[k].type)
			return onnx_fail(c, -EINVAL, "node '%s' (%s, plugin %s):"
					 " attribute '%s' is of type %s; the "
					 "schema wants %s", name, np->op_type,
					 pname, at->name,
					 onnx_attr_type_names[at->type],
					 op->attrs[k].type >= 0 &&
					 op->attrs[k].type < 5 ?
					 onnx_attr_type_names[op->attrs[k].type]
					 : "?");
	}
	for (k = 0; k < op->num_attrs; k++)
		if (op->attrs[k].required && !ir_attr_find(n, op->attrs[k].name))
			return onnx_fail(c, -EINVAL, "node '%s' (%s, plugin %s):"
					 " required attribute '%s' is missing",
					 name, np->op_type, pname,
					 op->attrs[k].name);
	if (ir_attr_set_str(n, IR_CUSTOM_DOMAIN, np->domain ? np->domain : "") ||
	    ir_attr_set_str(n, IR_CUSTOM_TYPE, np->op_type) ||
	    ir_attr_set_str(n, IR_CUSTOM_PLUGIN, pname))
		return onnx_fail(c, -ENOMEM, "out of memory");
	return 0;
}

static int onnx_node(struct onnx_ctx *c, const Onnx__NodeProto *np, int idx)
{
	const char *domain = np->domain ? np->domain : "";
	char namebuf[64];
	const char *name = np->name;
	struct ir_node *n;
	enum ir_op op;
	size_t i;
	int err;

	if (!np->op_type)
		return onnx_fail(c, -EINVAL, "node #%d has no op_type", idx);
	if (!name || !*name) {
		snprintf(namebuf, sizeof(namebuf), "%s_%d", np->op_type, idx);
		name = namebuf;
	}
	if (!onnx_op_native(c, np)) {
		const struct npu_plugin_lib *lib = NULL;
		const struct npuc_plugin_op *pop = onnx_plugin_op(c, np, &lib);

		if (!pop)
			return onnx_fail(c, -ENOTSUP, "node '%s': op '%s' of "
					 "domain '%s' (opset %lld) is not "
					 "supported by npuc and no plugin "
					 "serves it", name, np->op_type,
					 *domain ? domain : "ai.onnx",
					 (long long)onnx_domain_opset(c,
								domain));
		op = IR_OP_CUSTOM;
	} else {
		op = ir_op_from_name(np->op_type);
	}
	if (op != IR_OP_CUSTOM && c->opset < ONNX_IMPORT_LEGACY_OPSET &&
	    !onnx_legacy_ok(op))
		return onnx_fail(c, -ENOTSUP, "node '%s': op '%s' at opset %lld "
				 "has semantics npuc does not support (they "
				 "changed at opset 7); re-export with "
				 "opset_version >= 7", name, np->op_type,
				 (long long)c->opset);
	if (op == IR_OP_CONSTANT)
		return onnx_constant(c, np);
	if (np->n_input > 64 || np->n_output > 64)
		return onnx_fail(c, -EINVAL, "node '%s' (%s): %zu inputs, %zu "
				 "outputs", name, np->op_type, np->n_input,
				 np->n_output);
	if (ir_op_max_inputs(op) >= 0 &&
	    np->n_input > (size_t)ir_op_max_inputs(op))
		return onnx_fail(c, -EINVAL, "node '%s' (%s): %zu inputs; its "
				 "ONNX schema allows at most %d: the model is "
				 "invalid (check it with onnx.checker)", name,
				 np->op_type, np->n_input,
				 ir_op_max_inputs(op));
	n = ir_node_new(c->g, op, name, (int)np->n_input, NULL,
			(int)np->n_output, NULL);
	if (!n)
		return onnx_fail(c, -ENOMEM, "out of memory");
	n->opset = (int)onnx_domain_opset(c, domain);
	for (i = 0; i < np->n_input; i++) {
		struct ir_tensor *t;

		if (!np->input[i] || !*np->input[i])
			continue;	/* absent optional input */
		t = onnx_lookup(c, np->input[i]);
		if (!t || ir_node_set_input(n, (int)i, t))
			return onnx_fail(c, -ENOMEM, "out of memory");
	}
	for (i = 0; i < np->n_output; i++) {
		struct ir_tensor *t;

		if (!np->output[i] || !*np->output[i]) {
			/* unused optional output: give it a private tensor */
			t = onnx_private(c, ir_tensor_new(c->g, NULL,
						IR_DTYPE_INVALID, NULL));
		} else {
			t = onnx_lookup(c, np->output[i]);
			if (t && (t->producer || t->data || t->is_input))
				return onnx_fail(c, -EINVAL, "node '%s' (%s): "
						 "output '%s' is already "
						 "produced elsewhere", name,
						 np->op_type, np->output[i]);
		}
		if (!t || (np->output[i] && *np->output[i] &&
			   ir_tensor_set_origin(t, np->output[i])))
			return onnx_fail(c, -ENOMEM, "out of memory");
		ir_node_set_output(n, (int)i, t);
	}
	if (ir_node_add_origin(n, name))
		return onnx_fail(c, -ENOMEM, "out of memory");
	for (i = 0; i < np->n_attribute; i++) {
		if (!np->attribute[i])
			continue;
		err = onnx_attr(c, np, n, np->attribute[i]);
		if (err)
			return err;
	}
	if (op == IR_OP_CUSTOM)
		return onnx_custom(c, np, n, name);
	return 0;
}

#define ONNX_UNSUPPORTED_SHOWN	12

/*
 * Every operator of the graph that npuc does not import, named at once
 * (one message, not one re-export per op): each distinct op with its
 * domain, its node count and its first node, then where the supported
 * ones are listed.
 */
static int onnx_unsupported_ops(struct onnx_ctx *c, const Onnx__GraphProto *gp)
{
	struct onnx_seen_op {
		size_t first, count;
	} seen[ONNX_UNSUPPORTED_SHOWN];
	size_t nseen = 0, more = 0, i, k, used;
	char msg[1024];

	for (i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *np = gp->node[i];

		if (!np || !np->op_type || onnx_op_known(c, np))
			continue;
		for (k = 0; k < nseen; k++) {
			const Onnx__NodeProto *f = gp->node[seen[k].first];

			if (!strcmp(f->op_type, np->op_type) &&
			    !strcmp(f->domain ? f->domain : "",
				    np->domain ? np->domain : ""))
				break;
		}
		if (k < nseen)
			seen[k].count++;
		else if (nseen < ONNX_UNSUPPORTED_SHOWN)
			seen[nseen++] = (struct onnx_seen_op){ i, 1 };
		else
			more++;
	}
	if (!nseen)
		return 0;
	used = (size_t)snprintf(msg, sizeof(msg), "%s not supported by npuc "
				"(opset %lld): ", nseen + more == 1 ?
				"an op of the model is" : "ops of the model are",
				(long long)c->opset);
	for (k = 0; k < nseen && used < sizeof(msg); k++) {
		const Onnx__NodeProto *np = gp->node[seen[k].first];
		const char *domain = np->domain ? np->domain : "";
		char name[64], count[48] = "node";

		if (seen[k].count > 1)
			snprintf(count, sizeof(count), "%zu nodes, first",
				 seen[k].count);
		if (!np->name || !*np->name)
			snprintf(name, sizeof(name), "%s_%zu", np->op_type,
				 seen[k].first);
		used += (size_t)snprintf(msg + used, sizeof(msg) - used,
				 "%sop '%s'%s%s%s (%s '%s')", k ? ", " : "",
				 np->op_type, *domain ? " of domain '" : "",
				 domain, *domain ? "'" : "", count,
				 np->name && *np->name ? np->name : name);
	}
	if (more && used < sizeof(msg))
		used += (size_t)snprintf(msg + used, sizeof(msg) - used,
					 " and %zu more", more);
	return onnx_fail(c, -ENOTSUP, "%s; the supported operators are "
			 "listed by `npuc --list-ops` and in "
			 "Documentation/ops.rst (ONNX operators); provide "
			 "the others with an operator plugin (npuc --plugin "
			 "PATH or $%s; %d loaded; Documentation/plugins.rst), "
			 "or export them as supported ones",
			 msg, NPU_PLUGIN_ENV, npu_plugin_count());
}

static int onnx_opset(struct onnx_ctx *c, const Onnx__ModelProto *m)
{
	size_t i;

	c->opset = -1;
	for (i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];

		if (o && (!o->domain || !*o->domain ||
			  !strcmp(o->domain, "ai.onnx")))
			c->opset = o->version;
	}
	if (c->opset < 0)
		return onnx_fail(c, -EINVAL, "model imports no opset of the "
				 "default ONNX domain");
	if (c->opset < ONNX_IMPORT_MIN_OPSET || c->opset > ONNX_IMPORT_MAX_OPSET)
		return onnx_fail(c, -ENOTSUP, "model uses opset %lld; npuc "
				 "supports opsets %d to %d (re-export with "
				 "opset_version in that range)",
				 (long long)c->opset, ONNX_IMPORT_MIN_OPSET,
				 ONNX_IMPORT_MAX_OPSET);
	c->g->opset = c->opset;
	return 0;
}

/*
 * Give the initializers onnx_lift() took out their bytes back, as
 * pointers into the file (@on), or take them away again before the
 * protobuf is freed (free_unpacked() would free them).
 */
static void onnx_relift(const struct onnx_ctx *c, Onnx__GraphProto *gp,
			bool on)
{
	for (size_t k = 0; c->lift && k < c->lift->n; k++) {
		const struct onnx_lifted *l = &c->lift->v[k];
		Onnx__TensorProto *tp;

		if (l->index >= gp->n_initializer || !gp->initializer[l->index])
			continue;
		tp = gp->initializer[l->index];
		tp->raw_data.data = on ? (uint8_t *)c->file + l->offset : NULL;
		tp->raw_data.len = on ? l->len : 0;
		tp->has_raw_data = on;
	}
}

static bool onnx_is_lifted(const struct onnx_ctx *c, size_t index)
{
	size_t lo = 0, hi = c->lift ? c->lift->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->lift->v[mid].index == index)
			return true;
		if (c->lift->v[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int onnx_initializers(struct onnx_ctx *c, const Onnx__GraphProto *gp)
{
	size_t i;
	int err;

	for (i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *tp = gp->initializer[i];
		struct ir_tensor *t;

		if (!tp || !tp->name || !*tp->name)
			return onnx_fail(c, -EINVAL, "initializer #%zu has no "
					 "name", i);
		if (ir_graph_find_tensor(c->g, tp->name))
			return onnx_fail(c, -EINVAL, "initializer '%s' is "
					 "defined twice", tp->name);
		c->map_raw = c->depth == 0 && onnx_is_lifted(c, i);
		c->take_raw = c->depth == 0 && !c->map_raw;
		err = onnx_tensor(c, tp, tp->name, &t);
		c->take_raw = false;
		c->map_raw = false;
		if (err)
			return err;
	}
	if (gp->n_sparse_initializer)
		return onnx_fail(c, -ENOTSUP, "sparse initializers are not "
				 "supported");
	return 0;
}

static int onnx_nodes(struct onnx_ctx *c, const Onnx__GraphProto *gp)
{
	int err = onnx_unsupported_ops(c, gp);

	for (size_t i = 0; !err && i < gp->n_node; i++) {
		if (!gp->node[i])
			return onnx_fail(c, -EINVAL, "node #%zu is empty", i);
		err = onnx_node(c, gp->node[i], (int)i);
	}
	return err;
}

static int onnx_graph(struct onnx_ctx *c, const Onnx__GraphProto *gp)
{
	size_t i;
	int err;

	err = onnx_initializers(c, gp);
	if (err)
		return err;
	for (i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *vi = gp->input[i];
		struct ir_tensor *t;
		struct ir_shape s;
		enum ir_dtype dt;
		bool known;

		if (!vi || !vi->name || !*vi->name)
			return onnx_fail(c, -EINVAL, "graph input #%zu has no "
					 "name", i);
		t = ir_graph_find_tensor(c->g, vi->name);
		if (t && t->data)
			continue;	/* an initializer listed as input */
		if (t)
			return onnx_fail(c, -EINVAL, "graph input '%s' is "
					 "listed twice", vi->name);
		err = onnx_value_shape(c, vi, &dt, &s, &known);
		if (err)
			return err;
		if (!known)
			return onnx_fail(c, -EINVAL, "graph input '%s' has no "
					 "shape; give one with --input-shape",
					 vi->name);
		t = ir_tensor_new(c->g, vi->name, dt, &s);
		if (!t || ir_graph_add_input(c->g, t) ||
		    ir_tensor_set_origin(t, vi->name))
			return onnx_fail(c, -ENOMEM, "out of memory");
	}
	if (c->opts && c->opts->input_shapes) {
		err = onnx_apply_input_shapes(c, c->opts->input_shapes);
		if (err)
			return err;
	}
	err = onnx_nodes(c, gp);
	if (err)
		return err;
	if (!gp->n_output)
		return onnx_fail(c, -EINVAL, "the graph has no outputs");
	for (i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vi = gp->output[i];
		struct ir_tensor *t;

		if (!vi || !vi->name)
			return onnx_fail(c, -EINVAL, "graph output #%zu has no "
					 "name", i);
		if (onnx_claim(c, vi->name))
			return onnx_fail(c, -ENOMEM, "out of memory");
		t = ir_graph_find_tensor(c->g, vi->name);
		if (!t)
			return onnx_fail(c, -EINVAL, "graph output '%s' is not "
					 "produced by any node", vi->name);
		if (ir_graph_add_output(c->g, t))
			return onnx_fail(c, -ENOMEM, "out of memory");
		if (!c->out_dt)
			c->out_dt = calloc(gp->n_output, sizeof(*c->out_dt));
		if (!c->out_dt)
			return onnx_fail(c, -ENOMEM, "out of memory");
		if (vi->type && vi->type->value_case ==
		    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && vi->type->tensor_type)
			c->out_dt[i] = onnx_dtype(vi->type->tensor_type->elem_type);
		err = onnx_declare_output(c, vi, (int)i, (int)gp->n_output);
		if (err)
			return err;
	}
	/* every tensor read must come from somewhere */
	for (i = 0; i < (size_t)c->g->num_tensors; i++) {
		struct ir_tensor *t = c->g->tensors[i];

		if (!t->producer && !t->data && !t->is_input &&
		    (t->num_uses || t->is_output))
			return onnx_fail(c, -EINVAL, "tensor '%s' (read by "
					 "node '%s') is never produced",
					 t->name, t->num_uses ?
					 t->uses[0].node->name : "output");
	}
	err = ir_graph_toposort(c->g);
	if (err)
		return onnx_fail(c, err, "%s", ir_graph_error(c->g));
	return 0;
}

/*
 * A formal input of a subgraph: Loop's and Scan's bodies often declare
 * them without a type or shape (the values come from the node's inputs),
 * which is fine: the body is inlined where those are known.
 */
static int onnx_formal_input(struct onnx_ctx *c, const Onnx__ValueInfoProto *vi)
{
	struct ir_shape s = { 0 };
	enum ir_dtype dt = IR_DTYPE_INVALID;
	struct ir_tensor *t;
	bool known = false;
	int err;

	if (!vi || !vi->name || !*vi->name)
		return onnx_fail(c, -EINVAL, "graph '%s': an input has no name",
				 c->g->name);
	if (ir_graph_find_tensor(c->g, vi->name))
		return onnx_fail(c, -EINVAL, "graph '%s': input '%s' is listed "
				 "twice", c->g->name, vi->name);
	if (vi->type && (vi->type->value_case !=
			 ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
			 (vi->type->tensor_type &&
			  vi->type->tensor_type->elem_type))) {
		err = onnx_value_shape(c, vi, &dt, &s, &known);
		if (err)
			return err;
	}
	t = ir_tensor_new(c->g, vi->name, dt, known ? &s : NULL);
	if (!t || ir_graph_add_input(c->g, t))
		return onnx_fail(c, -ENOMEM, "out of memory");
	return 0;
}

/* The values @sub reads from outer scopes: its captures (ir_graph). */
static int onnx_find_captures(struct ir_graph *sub)
{
	int i, k = 0;

	for (i = 0; i < sub->num_tensors; i++) {
		struct ir_tensor *t = sub->tensors[i];

		if (!t->producer && !t->data && !t->is_input &&
		    (t->num_uses || t->is_output))
			k++;
	}
	sub->captures = calloc((size_t)k + 1, sizeof(*sub->captures));
	if (!sub->captures)
		return -ENOMEM;
	for (i = 0; i < sub->num_tensors; i++) {
		struct ir_tensor *t = sub->tensors[i];

		if (!t->producer && !t->data && !t->is_input &&
		    (t->num_uses || t->is_output))
			sub->captures[sub->num_captures++] = t;
	}
	return 0;
}

static int onnx_subgraph_body(struct onnx_ctx *c, const Onnx__GraphProto *gp)
{
	size_t i;
	int err;

	err = onnx_initializers(c, gp);
	for (i = 0; !err && i < gp->n_input; i++)
		err = onnx_formal_input(c, gp->input[i]);
	if (!err)
		err = onnx_nodes(c, gp);
	if (err)
		return err;
	if (!gp->n_output)
		return onnx_fail(c, -EINVAL, "graph '%s' has no outputs",
				 c->g->name);
	for (i = 0; i < gp->n_output; i++) {
		const Onnx__ValueInfoProto *vi = gp->output[i];
		struct ir_tensor *t;

		if (!vi || !vi->name || !*vi->name)
			return onnx_fail(c, -EINVAL, "graph '%s': output #%zu "
					 "has no name", c->g->name, i);
		/* an output may be a value of an outer scope */
		t = onnx_lookup(c, vi->name);
		if (!t || ir_graph_add_output(c->g, t))
			return onnx_fail(c, -ENOMEM, "out of memory");
	}
	if (onnx_find_captures(c->g))
		return onnx_fail(c, -ENOMEM, "out of memory");
	err = ir_graph_toposort(c->g);
	return err ? onnx_fail(c, err, "graph '%s': %s", c->g->name,
			       ir_graph_error(c->g)) : 0;
}

/*
 * A graph attribute (If's branches, Loop's and Scan's bodies) becomes a
 * subgraph of its own; the outer values it reads become the node's
 * implicit inputs (ir_graph.captures), so that the outer graph orders
 * their producers first and keeps them alive.
 */
static int onnx_subgraph(struct onnx_ctx *c, const Onnx__NodeProto *np,
			 const Onnx__AttributeProto *a, struct ir_node *n)
{
	const char *nn = np->name ? np->name : "";
	struct onnx_ctx sc = {
		.base_dir = c->base_dir, .err = c->err, .errlen = c->errlen,
		.opset = c->opset, .model = c->model, .depth = c->depth + 1,
	};
	char name[300];
	int err, i;

	if (!a->g)
		return onnx_fail(c, -EINVAL, "node '%s' (%s): graph attribute "
				 "'%s' is empty", nn, np->op_type, a->name);
	if (sc.depth > ONNX_MAX_SUBGRAPH_DEPTH)
		return onnx_fail(c, -ENOTSUP, "node '%s' (%s): subgraphs nest "
				 "deeper than %d levels", nn, np->op_type,
				 ONNX_MAX_SUBGRAPH_DEPTH);
	snprintf(name, sizeof(name), "%.140s/%.140s", n->name, a->name);
	sc.g = ir_graph_new(a->g->name && *a->g->name ? a->g->name : name);
	if (!sc.g)
		return onnx_fail(c, -ENOMEM, "out of memory");
	sc.g->opset = c->opset;
	err = onnx_subgraph_body(&sc, a->g);
	free(sc.priv);
	if (err) {
		ir_graph_free(sc.g);
		return err;
	}
	if (!ir_attr_find(n, IR_ATTR_FORMAL_INPUTS) &&
	    ir_attr_set_int(n, IR_ATTR_FORMAL_INPUTS, n->num_inputs)) {
		ir_graph_free(sc.g);
		return onnx_fail(c, -ENOMEM, "out of memory");
	}
	sc.g->capture_base = n->num_inputs;
	for (i = 0; i < sc.g->num_captures; i++) {
		struct ir_tensor *t = onnx_lookup(c, sc.g->captures[i]->name);

		if (!t || ir_node_add_input(n, t)) {
			ir_graph_free(sc.g);
			return onnx_fail(c, -ENOMEM, "out of memory");
		}
	}
	err = ir_attr_set_graph(n, a->name, sc.g);
	return err ? onnx_fail(c, err, "out of memory") : 0;
}

/*
 * The unpacked protobuf holds the initializers' raw_data, which the IR
 * takes over (and frees with free()): malloc()'ed, on huge pages when
 * large (om_bigbuf.h; half of resnet50's compile was page faults).
 */
static void *pb_alloc(void *data, size_t size)
{
	(void)data;
	return om_bigbuf_alloc(size);
}

static void pb_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static ProtobufCAllocator pb_allocator = {
	.alloc = pb_alloc, .free = pb_free,
};

/*
 * Import the protobuf @data; with @lift, @data is the model without the
 * lifted payloads, which lie in @file (the mapped model).
 */
static int import_pb(const void *data, size_t len, const char *base_dir,
		     const struct onnx_import_opts *opts,
		     const struct onnx_lift *lift, const void *file,
		     struct ir_graph **out, char *err, size_t errlen)
{
	struct onnx_ctx c = {
		.base_dir = base_dir, .opts = opts, .err = err,
		.errlen = errlen, .lift = lift, .file = file,
	};
	Onnx__ModelProto *m;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	m = onnx__model_proto__unpack(&pb_allocator, len, data);
	if (!m)
		return onnx_fail(&c, -EINVAL, "not a valid ONNX model: the "
				 "protobuf does not parse (truncated or "
				 "corrupt file?)");
	if (!m->graph) {
		onnx__model_proto__free_unpacked(m, &pb_allocator);
		return onnx_fail(&c, -EINVAL, "ONNX model has no graph");
	}
	c.g = ir_graph_new(m->graph->name);
	if (!c.g) {
		onnx__model_proto__free_unpacked(m, &pb_allocator);
		return onnx_fail(&c, -ENOMEM, "out of memory");
	}
	c.model = m;
	onnx_relift(&c, m->graph, true);
	ret = onnx_opset(&c, m);
	if (!ret)
		ret = onnx_graph(&c, m->graph);
	onnx_relift(&c, m->graph, false);
	if (!ret && onnx_narrow_storage(c.g, c.out_dt))
		ret = onnx_fail(&c, -ENOMEM, "out of memory");
	if (!ret && ir_graph_toposort(c.g))	/* the casts it added */
		ret = onnx_fail(&c, -EINVAL, "%s", ir_graph_error(c.g));
	free(c.out_dt);
	free(c.priv);
	onnx__model_proto__free_unpacked(m, &pb_allocator);
	if (ret) {
		if (errlen && !err[0])
			snprintf(err, errlen, "import failed (%d)", ret);
		ir_graph_free(c.g);
		return ret;
	}
	ir_graph_gc(c.g);
	*out = c.g;
	return 0;
}

/*
 * map_weights: the protobuf without the large payloads, whose tensors
 * then point into @data.
 */
int onnx_import_buffer(const void *data, size_t len, const char *base_dir,
		       const struct onnx_import_opts *opts,
		       struct ir_graph **out, char *err, size_t errlen)
{
	struct onnx_lift lift = { 0 };
	int ret;

	if (opts && opts->map_weights) {
		ret = onnx_lift(data, len, opts->map_min_bytes ?
				opts->map_min_bytes : ONNX_MAP_MIN_BYTES,
				&lift);
		if (ret) {
			*out = NULL;
			snprintf(err, errlen, "out of memory taking the weights "
				 "out of the %zu-byte model; free memory and try "
				 "again", len);
			return ret;
		}
	}
	if (lift.n)
		ret = import_pb(lift.pb, lift.pb_len, base_dir, opts, &lift,
				data, out, err, errlen);
	else
		ret = import_pb(data, len, base_dir, opts, NULL, NULL, out,
				err, errlen);
	onnx_lift_free(&lift);
	return ret;
}

/*
 * A weight of a product or a convolution, in the layouts whose readers
 * (the BatchNormalization fold, the weight transposes, emit) take it as
 * bytes, through ir_const_get_f(), or after ir_tensor_own().
 */
static bool product_weight(const struct ir_tensor *t)
{
	if (t->dtype != IR_F32 || t->is_output || !t->num_uses)
		return false;
	for (int i = 0; i < t->num_uses; i++) {
		const struct ir_use *u = &t->uses[i];
		enum ir_op op = u->node->op;

		if (u->index != 1 ||
		    !((op == IR_OP_CONV && t->shape.rank == 4) ||
		      ((op == IR_OP_GEMM || op == IR_OP_MATMUL) &&
		       t->shape.rank == 2)))
			return false;
	}
	return true;
}

static int materialize(struct ir_graph *g, bool keep_weights)
{
	bool kept = false;

	for (int i = 0; i < g->num_tensors; i++) {
		struct ir_tensor *t = g->tensors[i];

		if (!t->data_mapped)
			continue;
		if (keep_weights && product_weight(t)) {
			kept = true;
			continue;
		}
		if (ir_tensor_own(t))
			return -ENOMEM;
	}
	if (kept)
		return 0;
	if (g->mapped)
		munmap(g->mapped, g->mapped_len);
	g->mapped = NULL;
	g->mapped_len = 0;
	return 0;
}

int onnx_import_materialize(struct ir_graph *g)
{
	return materialize(g, false);
}

int onnx_import_materialize_except_weights(struct ir_graph *g)
{
	return materialize(g, true);
}

static bool any_mapped(const struct ir_graph *g)
{
	for (int i = 0; i < g->num_tensors; i++)
		if (g->tensors[i]->data_mapped)
			return true;
	return false;
}

int onnx_import_file(const char *path, const struct onnx_import_opts *opts,
		     struct ir_graph **out, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;
	void *buf;
	int fd, ret;

	*out = NULL;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: no such model file", path);
		return -ENOENT;
	}
	if (st.st_size > ((off_t)2 << 30)) {
		snprintf(err, errlen, "%s: %lld bytes; models above 2 GiB must "
			 "keep their weights as external data", path,
			 (long long)st.st_size);
		return -EINVAL;
	}
	/*
	 * Mapped, not read: the unpacker copies what it keeps anyway.
	 * Populated at once: one call maps the file's cached pages instead of
	 * a fault per 4 KiB page as the unpacker reads them (resnet50's
	 * import: median 163 -> 145 ms on the development VM).
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf = fd < 0 || !st.st_size ? MAP_FAILED :
	      mmap(NULL, (size_t)st.st_size, PROT_READ,
		   MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (st.st_size && buf == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot read the file: %s", path,
			 strerror(errno));
		return -EIO;
	}
	if (!st.st_size)
		buf = NULL;
	slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	ret = onnx_import_buffer(buf ? buf : "", (size_t)st.st_size, dir, opts,
				 out, err, errlen);
	if (!ret && any_mapped(*out)) {
		(*out)->mapped = buf;	/* the graph's until materialized */
		(*out)->mapped_len = (size_t)st.st_size;
	} else if (buf) {
		munmap(buf, (size_t)st.st_size);
	}
	return ret;
}
