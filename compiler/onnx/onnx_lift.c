// SPDX-License-Identifier: MIT
/*
 * onnx_lift.c - a model's protobuf without its large initializer payloads
 * (see onnx_lift.h).
 *
 * The walk reads tags and lengths only: a lifted payload's bytes are never
 * touched, so a model's weights stay in the page cache until something
 * needs them. The fields kept are copied verbatim, in their order; only
 * the length prefixes of the tensors and of the graph that shrank are
 * written anew.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_lift.h"

/* Field numbers (onnx.proto). */
enum {
	MODEL_GRAPH = 7,		/* ModelProto.graph */
	GRAPH_INITIALIZER = 5,		/* GraphProto.initializer */
	TENSOR_RAW_DATA = 9,		/* TensorProto.raw_data */
};

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* One field as it lies in the buffer. */
struct field {
	uint64_t num;
	int wt;
	const uint8_t *start, *end;	/* the whole field, tag included */
	const uint8_t *val;		/* a LEN field's payload */
	size_t val_len;
};

static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;		/* more than 10 bytes */
}

/* The next field at *@p; false at a malformed or unknown encoding. */
static bool next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t tag, len;

	f->start = *p;
	if (!get_varint(p, end, &tag) || !(tag >> 3))
		return false;
	f->num = tag >> 3;
	f->wt = (int)(tag & 7);
	f->val = NULL;
	f->val_len = 0;
	switch (f->wt) {
	case WT_VARINT:
		if (!get_varint(p, end, &len))
			return false;
		break;
	case WT_I64:
	case WT_I32:
		len = f->wt == WT_I64 ? 8 : 4;
		if ((size_t)(end - *p) < len)
			return false;
		*p += len;
		break;
	case WT_LEN:
		if (!get_varint(p, end, &len) || len > (size_t)(end - *p))
			return false;
		f->val = *p;
		f->val_len = (size_t)len;
		*p += len;
		break;
	default:		/* groups (3, 4) and reserved types */
		return false;
	}
	f->end = *p;
	return true;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_varint(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

/* A LEN field's encoding with a payload of @len bytes. */
static size_t len_field_size(uint64_t num, size_t len)
{
	return varint_size(num << 3 | WT_LEN) + varint_size(len) + len;
}

/*
 * The raw_data field of the TensorProto @f holds, when it is the only one
 * and at least @min bytes: *@raw is that field; false otherwise (the
 * tensor is kept whole). A malformed tensor is kept whole too.
 */
static bool liftable(const struct field *f, size_t min, struct field *raw)
{
	const uint8_t *p = f->val, *end = f->val + f->val_len;
	struct field sub;
	int count = 0;

	while (p < end) {
		if (!next_field(&p, end, &sub))
			return false;
		if (sub.num == TENSOR_RAW_DATA) {
			if (sub.wt != WT_LEN)
				return false;
			*raw = sub;
			count++;
		}
	}
	return count == 1 && raw->val_len >= min;
}

struct walk {
	const uint8_t *base;		/* the file */
	size_t min;
	struct onnx_lift *out;
	size_t cap;
};

static int push_lifted(struct walk *w, size_t index, const struct field *raw)
{
	struct onnx_lift *l = w->out;

	if (l->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct onnx_lifted *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		w->cap = cap;
	}
	l->v[l->n++] = (struct onnx_lifted){
		.index = index, .offset = (size_t)(raw->val - w->base),
		.len = raw->val_len,
	};
	return 0;
}

/*
 * The GraphProto @g's size once its liftable payloads are gone, listing
 * them; -1 where the graph does not walk (nothing is lifted then).
 */
static int graph_plan(struct walk *w, const struct field *g, size_t *size)
{
	const uint8_t *p = g->val, *end = g->val + g->val_len;
	size_t index = 0, total = 0;
	struct field f, raw;

	while (p < end) {
		if (!next_field(&p, end, &f))
			return -1;
		if (f.num == GRAPH_INITIALIZER && f.wt != WT_LEN)
			return -1;	/* protobuf-c refuses it */
		if (f.num == GRAPH_INITIALIZER) {
			if (liftable(&f, w->min, &raw)) {
				size_t tlen = f.val_len -
					      (size_t)(raw.end - raw.start);

				if (push_lifted(w, index, &raw))
					return -ENOMEM;
				total += len_field_size(f.num, tlen);
				index++;
				continue;
			}
			index++;
		}
		total += (size_t)(f.end - f.start);
	}
	*size = total;
	return 0;
}

/* Copy the tensor @f without its raw_data field @raw. */
static uint8_t *put_tensor(uint8_t *q, const struct field *f,
			   const struct field *raw)
{
	size_t before = (size_t)(raw->start - f->val);
	size_t after = (size_t)(f->val + f->val_len - raw->end);

	q = put_varint(q, f->num << 3 | WT_LEN);
	q = put_varint(q, before + after);
	memcpy(q, f->val, before);
	memcpy(q + before, raw->end, after);
	return q + before + after;
}

/* Write the graph as graph_plan() sized it; the lifted list says which. */
static uint8_t *put_graph(const struct walk *w, uint8_t *q,
			  const struct field *g, size_t size)
{
	const uint8_t *p = g->val, *end = g->val + g->val_len;
	const struct onnx_lift *l = w->out;
	size_t index = 0, next = 0;
	struct field f, raw;

	q = put_varint(q, g->num << 3 | WT_LEN);
	q = put_varint(q, size);
	while (p < end && next_field(&p, end, &f)) {
		if (f.num == GRAPH_INITIALIZER && f.wt == WT_LEN) {
			bool lifted = next < l->n && l->v[next].index == index;

			index++;
			if (lifted && liftable(&f, w->min, &raw)) {
				q = put_tensor(q, &f, &raw);
				next++;
				continue;
			}
		}
		memcpy(q, f.start, (size_t)(f.end - f.start));
		q += f.end - f.start;
	}
	return q;
}

static void lift_reset(struct onnx_lift *l)
{
	free(l->v);
	free(l->pb);
	memset(l, 0, sizeof(*l));
}

int onnx_lift(const void *buf, size_t len, size_t min_bytes,
	      struct onnx_lift *out)
{
	const uint8_t *base = buf, *p = base, *end = base + len;
	struct walk w = { .base = base, .min = min_bytes ? min_bytes : 1,
			  .out = out };
	struct field f, graph = { 0 };
	size_t graph_size = 0, total = 0;
	int graphs = 0, ret;
	uint8_t *q;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		if (!next_field(&p, end, &f))
			return 0;	/* protobuf-c reports it */
		if (f.num == MODEL_GRAPH) {
			if (f.wt != WT_LEN || graphs++)
				return 0;
			graph = f;
		}
	}
	if (!graphs)
		return 0;
	ret = graph_plan(&w, &graph, &graph_size);
	if (ret || !out->n) {
		lift_reset(out);
		return ret == -ENOMEM ? ret : 0;
	}
	total = len - (size_t)(graph.end - graph.start) +
		len_field_size(MODEL_GRAPH, graph_size);
	out->pb = malloc(total ? total : 1);
	if (!out->pb) {
		lift_reset(out);
		return -ENOMEM;
	}
	q = out->pb;
	memcpy(q, base, (size_t)(graph.start - base));
	q += graph.start - base;
	q = put_graph(&w, q, &graph, graph_size);
	memcpy(q, graph.end, (size_t)(end - graph.end));
	q += end - graph.end;
	out->pb_len = (size_t)(q - (uint8_t *)out->pb);
	if (out->pb_len != total) {	/* the two walks disagree: a bug */
		lift_reset(out);
		return 0;
	}
	return 0;
}

void onnx_lift_free(struct onnx_lift *l)
{
	if (l)
		lift_reset(l);
}
