// SPDX-License-Identifier: MIT
/*
 * fuzz_om.c - libFuzzer target for the .om reader (make fuzz-om).
 * The checksum is skipped so that the fuzzer reaches the structural checks;
 * an accepted input is walked through every accessor.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "om.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct om_model *m;
	char err[OM_ERR_MAX];
	volatile uint64_t sink = 0;
	const struct om_model_desc *d;
	uint64_t wsize;

	if (om_open_memory_ex(data, size, OM_OPEN_SKIP_CHECKSUM, &m, err))
		return 0;
	d = om_get_model(m);
	om_get_weights(m, &wsize);
	for (uint32_t v = 0; v < d->num_variants; v++) {
		const struct om_variant_desc *vd = om_get_variant(m, v);

		for (uint32_t s = 0; s < vd->num_programs; s++) {
			const struct om_program_desc *p = om_get_program(m, v, s);
			const struct drm_npu_task *t =
				om_get_tasks(m, p->first_task, p->num_tasks);

			for (uint32_t k = 0; k < p->num_tasks; k++) {
				const struct om_task_debug *dbg =
					om_get_task_debug(m, p->first_task + k);

				sink += t[k].opcode;
				if (dbg)
					sink += strlen(om_string(m, dbg->op));
			}
		}
		for (uint32_t i = 0; i < d->num_inputs + d->num_outputs; i++) {
			const struct om_tensor_desc *io =
				om_get_io(m, v, i < d->num_inputs ? OM_IO_INPUT :
					  OM_IO_OUTPUT,
					  i < d->num_inputs ? i :
					  i - d->num_inputs);

			sink += strlen(om_string(m, io->name)) + io->size_bytes;
		}
	}
	om_close(m);
	(void)sink;
	return 0;
}
