// SPDX-License-Identifier: MIT
/*
 * test_om.c - the .om reader and writer: round trips, variants, dedup,
 * device checks, and the walk over every truncation point and every
 * single-byte corruption of a small model (each refused cleanly).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "om.h"
#include "om_internal.h"
#include "rt_models.h"
#include "tap.h"

/* Touches everything an accepted model exposes (for sanitizers). */
static uint64_t walk_model(const struct om_model *m)
{
	const struct om_model_desc *d = om_get_model(m);
	uint64_t sum = strlen(om_model_name(m)), wsize;
	const uint8_t *wb = om_get_weights(m, &wsize);

	for (uint32_t s = 0; s < om_num_sections(m); s++)
		sum += om_get_section(m, s)->size;
	for (uint32_t v = 0; v < d->num_variants; v++) {
		for (uint32_t i = 0; i < d->num_inputs; i++)
			sum += om_get_io(m, v, OM_IO_INPUT, i)->size_bytes;
		for (uint32_t i = 0; i < d->num_outputs; i++)
			sum += strlen(om_string(m, om_get_io(m, v, OM_IO_OUTPUT,
							    i)->name));
		for (uint32_t s = 0; s < om_get_variant(m, v)->num_programs;
		     s++) {
			const struct om_program_desc *p = om_get_program(m, v, s);
			const struct drm_npu_task *t =
				om_get_tasks(m, p->first_task, p->num_tasks);

			for (uint32_t k = 0; k < p->num_tasks; k++) {
				const struct om_task_debug *dbg =
					om_get_task_debug(m, p->first_task + k);

				sum += t[k].opcode;
				if (dbg)
					sum += strlen(om_string(m, dbg->op)) +
					       strlen(om_string(m, dbg->node));
			}
		}
		sum += om_get_plan(m, v)->workspace_size;
	}
	for (uint32_t i = 0; i < om_num_semaphores(m); i++)
		sum += om_get_semaphore(m, i)->increment;
	for (uint32_t i = 0; i < om_num_host_tasks(m); i++) {
		const struct om_host_task *h = om_get_host_task(m, i);
		const struct om_host_operand *o = om_get_host_operands(m, h);

		sum += strlen(om_string(m, h->op)) +
		       strlen(om_string(m, h->plugin)) +
		       strlen(om_string(m, h->attrs)) +
		       strlen(om_string(m, h->plugin_digest));
		for (uint32_t k = 0; k < (uint32_t)h->num_inputs +
					 h->num_outputs; k++)
			sum += o[k].size_bytes + o[k].dims[0];
	}
	for (uint64_t i = 0; i < wsize; i += 97)
		sum += wb[i];
	return sum;
}

static void test_crc(void)
{
	uint8_t buf[1000];
	int same = 1;

	tap_ok(om_crc32c(0, "123456789", 9) == 0xE3069283,
	       "CRC32C check value of \"123456789\" is 0xE3069283");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; len + off <= sizeof(buf); len += 37)
			same &= om_crc32c(5, buf + off, len) ==
				om_crc32c_portable(5, buf + off, len);
	tap_ok(same, "hardware and table CRC32C agree at every alignment");
	{
		/* the three-stream path: lengths around its 12 KiB blocks */
		size_t n = 100000 + 8;	/* the longest length at offset 2 */
		uint8_t *big = malloc(n);
		static const size_t lens[] = { 12287, 12288, 12289, 24576,
					       36863, 40000, 99999 };

		same = big != NULL;
		for (size_t i = 0; big && i < n; i++)
			big[i] = (uint8_t)(i * 131 + (i >> 9));
		for (size_t k = 0; big && k < sizeof(lens) / sizeof(lens[0]); k++)
			for (size_t off = 0; off < 3; off++)
				same &= om_crc32c(7, big + off, lens[k]) ==
					om_crc32c_portable(7, big + off, lens[k]);
		free(big);
		tap_ok(same, "three interleaved streams give the table's CRC32C (7 lengths x 3 alignments)");
	}
}

static void test_static_mlp(void)
{
	uint32_t batch = 2;
	struct om_model *m = NULL;
	char err[OM_ERR_MAX];
	void *data;
	size_t size;
	int ret;

	ret = rt_build_mlp(&batch, 1, 0, &data, &size);
	tap_ok(ret == 0, "static MLP serializes (%zu bytes)", size);
	if (ret)
		return;
	ret = om_open_memory(data, size, &m, err);
	tap_ok(ret == 0, "reader accepts it: %s", ret ? err : "ok");
	if (!ret) {
		const struct om_tensor_desc *x = om_get_io(m, 0, OM_IO_INPUT, 0);
		const struct om_program_desc *p = om_get_program(m, 0, 0);
		const struct om_task_debug *dbg =
			om_get_task_debug(m, p->first_task + 1);
		enum om_io_kind kind;
		uint32_t idx;

		tap_ok(!strcmp(om_model_name(m), "mlp") &&
		       om_get_model(m)->num_variants == 1 &&
		       om_get_model(m)->max_streams == 1,
		       "name, one variant, one stream");
		tap_ok(x && x->slot == 2 && x->rank == 2 && x->dims[0] == 2 &&
		       x->dims[1] == MLP_IN && x->size_bytes == 2 * MLP_IN * 4,
		       "input x: slot 2, shape [2,8], 64 bytes");
		tap_ok(om_get_io(m, 0, OM_IO_OUTPUT, 0)->slot == 3 &&
		       !om_get_io(m, 0, OM_IO_OUTPUT, 1) &&
		       !om_get_io(m, 5, OM_IO_INPUT, 0),
		       "output slot 3; out-of-range accessors return NULL");
		tap_ok(om_find_io(m, "y", &kind, &idx) == 0 &&
		       kind == OM_IO_OUTPUT && idx == 0 &&
		       om_find_io(m, "nope", NULL, NULL) == -ENOENT,
		       "find I/O by name");
		tap_ok(p->num_tasks == 2 && dbg &&
		       !strcmp(om_string(m, dbg->op), "Gemm") &&
		       !strcmp(om_string(m, dbg->node), "fc2"),
		       "program of 2 tasks with debug info op/node");
		tap_ok(om_get_plan(m, 0)->workspace_size == 2 * MLP_HID * 4 + 64 &&
		       om_get_plan(m, 0)->num_placements == 1,
		       "memory plan: workspace size and one placement");
		tap_ok(om_get_section(m, 0)->offset % 64 == 0 &&
		       om_get_header(m)->num_sections >= 8,
		       "partition table with aligned sections");
		walk_model(m);
	}
	om_close(m);
	free(data);
}

static void test_dynamic_mlp(void)
{
	const uint32_t batches[3] = { 1, 2, 4 };
	struct om_model *m = NULL;
	char err[OM_ERR_MAX];
	void *data;
	size_t size;
	int ret;

	ret = rt_build_mlp(batches, 3, 1, &data, &size);
	if (!tap_ok(ret == 0, "dynamic MLP with 3 batch gears serializes"))
		return;
	ret = om_open_memory(data, size, &m, err);
	tap_ok(ret == 0, "reader accepts it: %s", ret ? err : "ok");
	if (!ret) {
		const struct om_tensor_desc *g =
			om_get_io(m, OM_VARIANT_GENERIC, OM_IO_INPUT, 0);
		uint64_t shape4[2] = { 4, MLP_IN }, shape3[2] = { 3, MLP_IN };
		const uint64_t *s4[1] = { shape4 }, *s3[1] = { shape3 };

		tap_ok(g->dims[0] == OM_DIM_DYNAMIC &&
		       !strcmp(om_string(m, g->dim_names[0]), "batch") &&
		       (om_get_model(m)->flags & OM_MODELF_DYNAMIC),
		       "generic input has symbolic dim \"batch\"");
		tap_ok(om_find_variant(m, s4) == 2 &&
		       om_find_variant(m, s3) == -ENOENT &&
		       om_find_variant_by_name(m, "batch=2") == 1,
		       "variant lookup by shape and by name");
		tap_ok(om_get_io(m, 2, OM_IO_OUTPUT, 0)->dims[0] == 4,
		       "variant 2 output has batch 4");
	}
	om_close(m);
	free(data);
}

static void test_writer_rules(void)
{
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, 0, 1, { 4 },
				    { NULL } };
	struct om_tensor_info y = { "y", DRM_NPU_DTYPE_F32, 0, 1, { 4 },
				    { NULL } };
	struct om_writer *w = om_writer_create();
	uint8_t a[100], b[100];
	uint64_t o1, o2, o3;
	struct drm_npu_task t;
	void *data = NULL;
	size_t size;
	int v, ret;

	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	om_writer_add_weights(w, a, sizeof(a), 64, &o1);
	om_writer_add_weights(w, b, sizeof(b), 64, &o2);
	om_writer_add_weights(w, a, sizeof(a), 64, &o3);
	tap_ok(o1 == 0 && o2 == 128 && o3 == o1,
	       "weights aligned to 64 and deduplicated by content");
	om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
	ret = om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
	tap_ok(ret == -EEXIST && strstr(om_writer_error(w), "\"x\""),
	       "duplicate I/O name refused: %s", om_writer_error(w));
	om_writer_add_io(w, OM_IO_OUTPUT, &y, NULL);
	v = om_writer_add_variant(w, NULL);
	om_writer_set_plan(w, v, 16, 16);
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0].slot = 2;
	t.operands[0].dtype = DRM_NPU_DTYPE_F32;
	t.operands[0].rank = 1;
	t.operands[0].shape[0] = 4;
	t.operands[0].strides[0] = 1;
	t.operands[1] = t.operands[0];
	t.operands[1].slot = 3;
	t.operands[1].offset = 4;	/* 4 + 16 > 16 bytes of y */
	om_writer_add_program(w, v, 0, &t, 1, NULL);
	ret = om_writer_serialize(w, &data, &size);
	tap_ok(ret == -EINVAL && strstr(om_writer_error(w), "slot 3"),
	       "writer refuses an operand past its buffer: %s",
	       om_writer_error(w));
	free(data);
	om_writer_destroy(w);
}

/* Provenance (format 1.1): task origins and tensors read back, checked. */
static void test_provenance(void)
{
	const uint32_t gears[2] = { 1, 3 };
	const struct om_debug_tensor *dt;
	struct om_tensor_origin_info bad = {
		"h", 0, 1, 64, DRM_NPU_DTYPE_F32, DRM_NPU_LAYOUT_NC1HWC0, 4,
		{ 1, 17, 2, 2 } };
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, 0, 1, { 4 },
				    { NULL } };
	struct om_tensor_info y = { "y", DRM_NPU_DTYPE_F32, 0, 1, { 4 },
				    { NULL } };
	struct om_writer *w;
	struct drm_npu_task t;
	struct om_model *m;
	char err[OM_ERR_MAX];
	uint32_t n = 0, n1 = 0, var = 9, str = 9;
	void *data = NULL;
	size_t size;
	int ret, v;

	ret = rt_build_mlp(gears, 2, 1, &data, &size);
	if (!ret)
		ret = om_open_memory(data, size, &m, err);
	free(data);
	if (ret) {
		tap_ok(0, "provenance model: %d", ret);
		tap_ok(0, "provenance of the second variant");
		tap_ok(0, "NC1HWC0 sizes");
		tap_ok(0, "writer refuses a tensor past its buffer");
		return;
	}
	dt = om_task_tensors(m, 0, &n);
	tap_ok(om_has_provenance(m) && om_task_num_origins(m, 0) == 2 &&
	       !strcmp(om_task_origin(m, 0, 0), "fc1") &&
	       !strcmp(om_task_origin(m, 0, 1), "relu1") &&
	       !strcmp(om_task_origin(m, 1, 0), "fc2") && n == 1 &&
	       !strcmp(om_string(m, dt[0].name), "h") && dt[0].slot == 1 &&
	       dt[0].offset == 64 && dt[0].dims[0] == 1 &&
	       dt[0].size_bytes == MLP_HID * 4 && om_num_debug_tensors(m) == 4,
	       "task origins (fused fc1+relu1) and their tensors read back");
	dt = om_task_tensors(m, 3, &n1);
	tap_ok(n1 == 1 && !strcmp(om_string(m, dt[0].name), "y") &&
	       dt[0].dims[0] == 3 && dt[0].slot == 3 &&
	       !om_task_owner(m, 3, &var, &str) && var == 1 && str == 0,
	       "the second variant's tensors have its shapes, its task its "
	       "owner");
	om_close(m);
	{
		uint64_t d[4] = { 1, 17, 2, 2 };
		int ok = 1;

		tap_ok(om_storage_bytes(DRM_NPU_DTYPE_F32,
					DRM_NPU_LAYOUT_NC1HWC0, 4, d, &ok) ==
		       1 * 2 * 2 * 2 * 16 * 4 && ok &&
		       om_storage_bytes(DRM_NPU_DTYPE_I8,
					DRM_NPU_LAYOUT_NC1HWC0, 4, d, &ok) ==
		       1 * 1 * 2 * 2 * 32 && ok,
		       "NC1HWC0 storage pads C to C0 (16, 32 for int8)");
	}
	/* a tensor whose padded NC1HWC0 bytes pass the workspace */
	w = om_writer_create();
	om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
	om_writer_add_io(w, OM_IO_OUTPUT, &y, NULL);
	v = om_writer_add_variant(w, NULL);
	om_writer_set_plan(w, v, 64 + 300, 16);	/* dense 272 fits */
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0].slot = 2;
	t.operands[0].dtype = DRM_NPU_DTYPE_F32;
	t.operands[0].rank = 1;
	t.operands[0].shape[0] = 4;
	t.operands[0].strides[0] = 1;
	t.operands[1] = t.operands[0];
	t.operands[1].slot = 3;
	om_writer_add_program(w, v, 0, &t, 1, NULL);
	om_writer_add_tensor_origin(w, &bad);
	ret = om_writer_serialize(w, &data, &size);
	tap_ok(ret == -EINVAL && strstr(om_writer_error(w), "debug tensor"),
	       "a tensor past its buffer (C = 17 padded to 32) is refused: %s",
	       om_writer_error(w));
	free(data);
	om_writer_destroy(w);
}

/* Re-seal a patched file: CRC32C of everything, the checksum taken as 0. */
static void reseal(uint8_t *b, size_t size)
{
	size_t off = offsetof(struct om_header, checksum);
	uint32_t zero = 0, crc;

	crc = om_crc32c(0, b, off);
	crc = om_crc32c(crc, &zero, sizeof(zero));
	crc = om_crc32c(crc, b + off + 4, size - off - 4);
	memcpy(b + off, &crc, sizeof(crc));
}

/*
 * A hostile model with a valid checksum: a TRANSDATA whose NC1HWC0 side
 * has C1 = 0 for C = 2^32 - 15 channels (the 32-bit wrap of issue 11) is
 * refused at load by the device's own task rules, naming task and operand.
 */
static void test_hostile_task(void)
{
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, 0, 4,
				    { 1, 16, 1, 1 }, { NULL } };
	struct om_tensor_info y = { "y", DRM_NPU_DTYPE_F32, 0, 5,
				    { 1, 1, 1, 1, 16 }, { NULL } };
	struct om_writer *w = om_writer_create();
	struct drm_npu_task t, *hit;
	struct om_model *m = NULL;
	char err[OM_ERR_MAX] = "";
	void *data = NULL;
	size_t size = 0;
	int v, ret;

	om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
	om_writer_add_io(w, OM_IO_OUTPUT, &y, NULL);
	v = om_writer_add_variant(w, NULL);
	om_writer_set_plan(w, v, 0, 0);
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_TRANSDATA;
	t.num_operands = 2;
	t.operands[0] = (struct drm_npu_operand){
		.slot = 2, .dtype = DRM_NPU_DTYPE_F32, .rank = 4,
		.shape = { 1, 16, 1, 1 }, .strides = { 16, 1, 1, 1 } };
	t.operands[1] = (struct drm_npu_operand){
		.slot = 3, .dtype = DRM_NPU_DTYPE_F32,
		.layout = DRM_NPU_LAYOUT_NC1HWC0, .rank = 5,
		.shape = { 1, 1, 1, 1, 16 }, .strides = { 16, 16, 16, 16, 1 } };
	om_writer_add_program(w, v, 0, &t, 1, NULL);
	ret = om_writer_serialize(w, &data, &size);
	om_writer_destroy(w);
	tap_ok(!ret && !om_open_memory(data, size, &m, err),
	       "valid TRANSDATA model opens: %s",
	       ret ? "serialize failed" : err[0] ? err : "ok");
	om_close(m);
	hit = ret ? NULL : memmem(data, size, &t, sizeof(t));
	if (hit) {
		t.operands[0].shape[1] = 0xfffffff1u;
		t.operands[0].strides[1] = 0;
		t.operands[1].shape[1] = 0;
		memcpy(hit, &t, sizeof(t));
		reseal(data, size);
		m = NULL;
		ret = om_open_memory(data, size, &m, err);
	}
	tap_ok(hit && ret == -EINVAL && !m &&
	       strstr(err, "task 0 (TRANSDATA) operand 1") &&
	       strstr(err, "C1 must be ceil(C / C0)"),
	       "hostile TRANSDATA with a valid checksum refused: %s", err);
	free(data);
}

static void test_damage_walk(const char *what, const void *data,
			     size_t size);

/* A model of one host task (format 1.2), built with @signal_task, @dim. */
/* A host task between a SEM_SIGNAL/SEM_WAIT pair, reading slot @in_slot
 * (the input, or the weights: then 64 bytes of them). */
static int build_host(uint32_t signal_task, uint64_t dim, uint16_t in_slot,
		      void **data, size_t *size, char *err)
{
	static const float wts[16];
	uint64_t woff = 0;
	struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, 0, 1, { 16 },
				    { NULL } };
	struct om_writer *w = om_writer_create();
	struct drm_npu_task t[3];
	struct om_host_operand ops[2] = {
		{ .slot = in_slot, .dtype = DRM_NPU_DTYPE_F32, .rank = 1,
		  .size_bytes = 64, .dims = { 16 } },
		{ .slot = 3, .dtype = DRM_NPU_DTYPE_F32, .rank = 1,
		  .size_bytes = dim * 4, .dims = { dim } },
	};
	struct om_host_task_info h = {
		.variant = 0, .stream = 0, .signal_task = signal_task,
		.sem = 0, .op = "Twice", .domain = "com.example",
		.node = "twice1", .plugin = "example-ops",
		.plugin_version = "1.0.0", .plugin_digest = "0123456789abcdef",
		.attrs = "k=i:2;s=s:6869", .num_inputs = 1, .num_outputs = 1,
	};
	int v, ret;

	x.name = "x";
	om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
	x.name = "y";
	om_writer_add_io(w, OM_IO_OUTPUT, &x, NULL);
	if (in_slot == OM_SLOT_WEIGHTS)
		om_writer_add_weights(w, wts, sizeof(wts), 64, &woff);
	v = om_writer_add_variant(w, NULL);
	om_writer_set_plan(w, v, 0, 0);
	memset(t, 0, sizeof(t));
	t[0].opcode = DRM_NPU_OP_NOP;
	t[1].opcode = DRM_NPU_OP_SEM_SIGNAL;
	t[1].params.sem.index = 0;
	t[1].params.sem.value = 1;
	t[2].opcode = DRM_NPU_OP_SEM_WAIT;
	t[2].params.sem.index = 0;
	t[2].params.sem.value = 2;
	om_writer_add_program(w, v, 0, t, 3, NULL);
	om_writer_set_semaphores(w, 1, NULL);
	om_writer_add_host_task(w, &h, ops);
	ret = om_writer_serialize(w, data, size);
	snprintf(err, OM_ERR_MAX, "%s", om_writer_error(w));
	om_writer_destroy(w);
	return ret;
}

static void test_host_tasks(void)
{
	const struct om_host_task *h;
	const struct om_host_operand *o;
	struct om_model *m = NULL;
	char err[OM_ERR_MAX] = "";
	void *data = NULL;
	size_t size = 0;
	int ret;

	ret = build_host(1, 16, 2, &data, &size, err);
	if (!ret)
		ret = om_open_memory(data, size, &m, err);
	h = m ? om_get_host_task(m, 0) : NULL;
	o = h ? om_get_host_operands(m, h) : NULL;
	tap_ok(!ret && om_get_header(m)->format_minor >= 2 &&
	       om_num_host_tasks(m) == 1 && h->signal_task == 1 &&
	       !strcmp(om_string(m, h->plugin), "example-ops") &&
	       !strcmp(om_string(m, h->plugin_digest), "0123456789abcdef") &&
	       !strcmp(om_string(m, h->attrs), "k=i:2;s=s:6869") &&
	       om_get_semaphore(m, 0)->increment == 2 && o[1].slot == 3 &&
	       o[1].size_bytes == 64,
	       "host task: written and read back (format 1.2): %s",
	       ret ? err : "ok");
	om_close(m);
	if (!ret) {
		test_damage_walk("host task", data, size);
		free(data);
	}
	data = NULL;
	ret = build_host(1, 16, OM_SLOT_WEIGHTS, &data, &size, err);
	if (!ret)
		ret = om_open_memory(data, size, &m, err);
	tap_ok(!ret && om_drop_weights(m) == -EBUSY &&
	       om_get_weights(m, &(uint64_t){ 0 }) != NULL,
	       "a host task reads the weights: they stay (%s)",
	       ret ? err : "EBUSY");
	om_close(m);
	free(data);
	data = NULL;
	ret = build_host(0, 16, 2, &data, &size, err);
	tap_ok(ret && strstr(err, "are not SEM_SIGNAL(0, 1), SEM_WAIT(0, 2)"),
	       "a host task not between its semaphore pair is refused: %s",
	       err);
	free(data);
	data = NULL;
	ret = build_host(1, 32, 2, &data, &size, err);
	tap_ok(ret && strstr(err, "operand 1: slot 3 [0, +128) past its 64"),
	       "a host operand past its buffer is refused: %s", err);
	free(data);
}

static void test_target(void)
{
	uint32_t batch = 1;
	struct om_writer *w;
	struct om_model *m;
	char err[OM_ERR_MAX];
	void *data;
	size_t size;
	int ret;

	if (rt_build_mlp(&batch, 1, 0, &data, &size))
		return;
	om_open_memory(data, size, &m, err);
	ret = om_check_target(m, DRM_NPU_MODEL_SIM910,
			      DRM_NPU_FEATURE_FP32 | DRM_NPU_FEATURE_INT8,
			      DRM_NPU_UAPI_VERSION, OM_VERSION(1, 0, 0), err);
	tap_ok(ret == 0, "model runs on a device with a superset of features");
	ret = om_check_target(m, 0x920, DRM_NPU_FEATURE_FP32,
			      DRM_NPU_UAPI_VERSION, OM_VERSION(1, 0, 0), err);
	tap_ok(ret == -ENODEV && strstr(err, "0x910") && strstr(err, "0x920"),
	       "other device model refused: %s", err);
	ret = om_check_target(m, DRM_NPU_MODEL_SIM910, 0,
			      DRM_NPU_UAPI_VERSION, OM_VERSION(1, 0, 0), err);
	tap_ok(ret == -ENODEV && strstr(err, "missing FP32"),
	       "missing feature named: %s", err);
	ret = om_check_target(m, DRM_NPU_MODEL_SIM910, DRM_NPU_FEATURE_FP32,
			      2 << 16, OM_VERSION(1, 0, 0), err);
	tap_ok(ret == -ENODEV && strstr(err, "uapi"),
	       "uapi major mismatch refused: %s", err);
	om_close(m);
	free(data);

	/* min runtime version */
	w = om_writer_create();
	{
		struct om_tensor_info x = { "x", DRM_NPU_DTYPE_F32, 0, 1, { 4 },
					    { NULL } };
		struct drm_npu_task t;
		int v;

		om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
		x.name = "y";
		om_writer_add_io(w, OM_IO_OUTPUT, &x, NULL);
		om_writer_set_min_runtime_version(w, OM_VERSION(9, 1, 0));
		v = om_writer_add_variant(w, NULL);
		om_writer_set_plan(w, v, 0, 0);
		memset(&t, 0, sizeof(t));
		om_writer_add_program(w, v, 0, &t, 1, NULL);
		ret = om_writer_serialize(w, &data, &size);
	}
	om_writer_destroy(w);
	if (!ret && !om_open_memory(data, size, &m, err)) {
		ret = om_check_target(m, DRM_NPU_MODEL_SIM910, ~0ull,
				      DRM_NPU_UAPI_VERSION, OM_VERSION(1, 0, 0),
				      err);
		tap_ok(ret == -ENODEV && strstr(err, "9.1.0") &&
		       strstr(err, "1.0.0"),
		       "newer min runtime refused: %s", err);
		om_close(m);
	} else {
		tap_ok(0, "NOP model with min runtime 9.1.0 builds");
	}
	free(data);
}

/* A model named @name that copies 16 bytes from its input to its output. */
static void add_copy_model(struct om_writer *w, const char *name)
{
	struct om_tensor_info x = { "in", DRM_NPU_DTYPE_I8, 0, 1, { 16 },
				    { NULL } };
	struct drm_npu_task t;
	int v;

	om_writer_set_name(w, name);
	om_writer_add_io(w, OM_IO_INPUT, &x, NULL);
	x.name = "out";
	om_writer_add_io(w, OM_IO_OUTPUT, &x, NULL);
	v = om_writer_add_variant(w, NULL);
	om_writer_set_plan(w, v, 0, 0);
	memset(&t, 0, sizeof(t));
	t.opcode = DRM_NPU_OP_COPY;
	t.num_operands = 2;
	t.operands[0].slot = 2;
	t.operands[0].dtype = DRM_NPU_DTYPE_I8;
	t.operands[0].rank = 1;
	t.operands[0].shape[0] = 16;
	t.operands[0].strides[0] = 1;
	t.operands[1] = t.operands[0];
	t.operands[1].slot = 3;
	om_writer_add_program(w, v, 0, &t, 1, NULL);
}

static void test_file_roundtrip(void)
{
	char path[] = "/tmp/test_om_XXXXXX";
	char err[OM_ERR_MAX];
	struct om_writer *w = om_writer_create();
	struct om_model *m = NULL;
	int fd = mkstemp(path), ret;

	close(fd);
	add_copy_model(w, "file");
	ret = om_writer_write_file(w, path);
	tap_ok(ret == 0, "write_file: %s", ret ? om_writer_error(w) : "ok");
	ret = om_open_file(path, &m, err);
	tap_ok(ret == 0 && !strcmp(om_model_name(m), "file"),
	       "open_file reads it back: %s", ret ? err : "ok");
	om_close(m);
	unlink(path);
	om_writer_destroy(w);
	ret = om_open_file("/nonexistent/x.om", &m, err);
	tap_ok(ret == -ENOENT && strstr(err, "/nonexistent/x.om"),
	       "missing file: %s", err);
}

/* Bytes of @img outside the header, the section table and the sections
 * that are not zero; *@gaps: how many bytes that is outside. */
static uint64_t nonzero_gaps(const uint8_t *img, size_t size, uint64_t *gaps)
{
	const struct om_header *h = (const struct om_header *)img;
	const struct om_section *sec =
		(const struct om_section *)(img + h->section_table_offset);
	uint64_t nonzero = 0;

	*gaps = 0;
	for (uint64_t i = 0; i < size; i++) {
		bool in = i < h->section_table_offset +
			      (uint64_t)h->num_sections * sizeof(*sec);

		for (uint32_t s = 0; s < h->num_sections && !in; s++)
			in = i >= sec[s].offset &&
			     i < sec[s].offset + sec[s].size;
		*gaps += !in;
		nonzero += !in && img[i];
	}
	return nonzero;
}

/* Serialized into a reused, dirty heap block: the gaps are still zero. */
static void test_gaps_zeroed(void)
{
	struct om_writer *w = om_writer_create();
	uint64_t gaps = 0, nonzero = 1;
	uint8_t *dirty = malloc(64 << 10), *img = NULL;
	size_t size = 0;

	memset(dirty, 0xa5, 64 << 10);
	free(dirty);		/* the next block of this size may reuse it */
	add_copy_model(w, "gaps");
	if (!om_writer_serialize(w, (void **)&img, &size))
		nonzero = nonzero_gaps(img, size, &gaps);
	tap_ok(nonzero == 0 && gaps > 0,
	       "small model: every byte between sections is zero (%llu non-zero of %llu)",
	       (unsigned long long)nonzero, (unsigned long long)gaps);
	free(img);
	om_writer_destroy(w);
}

/*
 * A model with 5 MiB of weights: the image is made in the writer's weights
 * buffer (the weights moved up behind the tables), so the writer refuses
 * a second serialization and more weights; every byte outside the header,
 * the section table and the sections is zero (the serializer zeroes only
 * the gaps, and the moved weights leave bytes behind in them);
 * OM_OPEN_NO_COPY reads the caller's bytes in place and om_close() leaves
 * them to the caller; the default open copies.
 */
static void test_big_weights(void)
{
	const size_t nw = (size_t)5 << 20;
	struct om_writer *w = om_writer_create();
	uint8_t *wt = malloc(nw), *img = NULL;
	struct om_model *m = NULL;
	char err[OM_ERR_MAX];
	uint64_t off = 0, got = 0, gaps = 0, nonzero;
	size_t size = 0;
	const void *p;
	int ret;

	for (size_t i = 0; i < nw; i++)
		wt[i] = (uint8_t)(i * 7 + 1);
	add_copy_model(w, "big");
	ret = om_writer_add_weights(w, wt, nw, 64, &off);
	if (!ret)
		ret = om_writer_serialize(w, (void **)&img, &size);
	tap_ok(ret == 0, "5 MiB of weights serialize: %s",
	       ret ? om_writer_error(w) : "ok");
	if (ret) {
		om_writer_destroy(w);
		free(wt);
		return;
	}
	{
		void *again = NULL;
		size_t n2 = 0;
		int r2 = om_writer_serialize(w, &again, &n2);
		int r3 = om_writer_add_weights(w, wt, 64, 64, &off);

		tap_ok(r2 == -EINVAL && !again && r3 == -EINVAL &&
		       strstr(om_writer_error(w), "serialized"),
		       "the writer gave its weights to the image: a second serialize and more weights are refused (%s)",
		       om_writer_error(w));
	}
	if (ret) {
		om_writer_destroy(w);
		free(wt);
		return;
	}
	nonzero = nonzero_gaps(img, size, &gaps);
	tap_ok(nonzero == 0 && size - gaps >= nw,
	       "every byte between sections is zero (%llu non-zero of %llu)",
	       (unsigned long long)nonzero, (unsigned long long)gaps);
	ret = om_open_memory_ex(img, size, OM_OPEN_NO_COPY, &m, err);
	p = ret ? NULL : om_get_weights(m, &got);
	tap_ok(ret == 0 && got == nw && p >= (const void *)img &&
	       p < (const void *)(img + size) && !memcmp(p, wt, nw),
	       "OM_OPEN_NO_COPY reads the caller's bytes in place: %s",
	       ret ? err : "ok");
	ret = ret ? ret : om_drop_weights(m);
	p = om_get_weights(m, &got);
	tap_ok(ret == -EINVAL && got == nw && !memcmp(p, wt, nw),
	       "the caller's bytes are not dropped (%d)", ret);
	om_close(m);	/* not the caller's buffer: ASan would see a double free */
	ret = om_open_memory(img, size, &m, err);
	p = ret ? NULL : om_get_weights(m, &got);
	tap_ok(ret == 0 && got == nw && (p < (const void *)img ||
	       p >= (const void *)(img + size)) && !memcmp(p, wt, nw),
	       "the default open copies: %s", ret ? err : "ok");
	ret = ret ? ret : om_drop_weights(m);
	p = om_get_weights(m, &got);
	tap_ok(ret == 0 && !p && got == 0 && !strcmp(om_model_name(m), "big") &&
	       om_get_header(m)->num_sections > 0,
	       "its weights dropped: none left, the rest reads (%d)", ret);
	om_close(m);
	free(img);
	free(wt);
	om_writer_destroy(w);
}

/* Every truncation and every single-byte change is refused. */
static void test_damage_walk(const char *what, const void *data, size_t size)
{
	uint8_t *buf = malloc(size);
	struct om_model *m;
	char err[OM_ERR_MAX];
	size_t bad_trunc = 0, bad_corrupt = 0, accepted_nocrc = 0;
	static const uint8_t xors[3] = { 0xff, 0x01, 0x80 };

	for (size_t len = 0; len < size; len++) {
		err[0] = 0;
		if (om_open_memory(data, len, &m, err) != -EINVAL || m ||
		    !strstr(err, "invalid .om file")) {
			if (!bad_trunc)
				tap_diag("truncation at %zu not refused: %s",
					 len, err);
			bad_trunc++;
			om_close(m);
		}
	}
	tap_ok(!bad_trunc, "%s: all %zu truncations refused", what, size);

	for (size_t i = 0; i < size; i++) {
		for (int x = 0; x < 3; x++) {
			memcpy(buf, data, size);
			buf[i] ^= xors[x];
			if (om_open_memory(buf, size, &m, err) != -EINVAL ||
			    m || !err[0]) {
				if (!bad_corrupt)
					tap_diag("byte %zu ^ 0x%02x accepted",
						 i, xors[x]);
				bad_corrupt++;
				om_close(m);
			}
			/* Structural checks alone: refuse or stay safe. */
			if (!om_open_memory_ex(buf, size,
					       OM_OPEN_SKIP_CHECKSUM, &m,
					       err)) {
				accepted_nocrc++;
				walk_model(m);
				om_close(m);
			}
		}
	}
	tap_ok(!bad_corrupt, "%s: all %zu single-byte corruptions refused",
	       what, size * 3);
	tap_diag("%s: without the checksum, %zu of %zu corruptions pass the "
		 "structural checks (payload bytes such as weights)", what,
		 accepted_nocrc, size * 3);
	free(buf);
}

static int write_file(const char *dir, const char *name, const void *data,
		      size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size) {
		if (f)
			fclose(f);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

/* Seeds for make fuzz-om. */
static int write_corpus(const char *dir)
{
	const uint32_t gears[3] = { 1, 2, 4 };
	void *data;
	size_t size;
	int ret = 0;

	if (!rt_build_mlp(gears, 1, 0, &data, &size)) {
		ret |= write_file(dir, "mlp.om", data, size);
		free(data);
	}
	if (!rt_build_mlp(gears, 3, 1, &data, &size)) {
		ret |= write_file(dir, "mlp_dyn.om", data, size);
		free(data);
	}
	if (!rt_build_two_branch(1, &data, &size)) {
		ret |= write_file(dir, "two_branch.om", data, size);
		free(data);
	}
	return ret;
}

int main(int argc, char **argv)
{
	uint32_t batch = 2;
	void *data;
	size_t size;

	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	tap_plan(53);
	test_crc();
	test_provenance();
	test_static_mlp();
	test_dynamic_mlp();
	test_writer_rules();
	test_hostile_task();
	test_host_tasks();
	test_target();
	test_file_roundtrip();
	test_gaps_zeroed();
	test_big_weights();
	if (!rt_build_mlp(&batch, 1, 0, &data, &size)) {
		test_damage_walk("MLP", data, size);
		free(data);
	}
	if (!rt_build_two_branch(2, &data, &size)) {
		struct om_model *m;
		char err[OM_ERR_MAX];
		int ret = om_open_memory(data, size, &m, err);

		tap_ok(ret == 0 && om_get_model(m)->max_streams == 2 &&
		       om_num_semaphores(m) == 1 &&
		       om_get_semaphore(m, 0)->increment == 1,
		       "two-branch: 2 streams, 1 semaphore, increment 1: %s",
		       ret ? err : "ok");
		if (!ret)
			om_close(m);
		free(data);
	}
	{
		const uint32_t gears[2] = { 1, 3 };

		if (!rt_build_mlp(gears, 2, 1, &data, &size)) {
			test_damage_walk("dynamic MLP", data, size);
			free(data);
		}
	}
	return tap_done();
}
