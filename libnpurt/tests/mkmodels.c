// SPDX-License-Identifier: MIT
/*
 * mkmodels - writes the runtime's test models with inputs and host
 * references as .npy, for the npu-run and example tests:
 *   DIR/mlp.om          static MLP, batch 2; DIR/mlp_in/x.npy,
 *                       DIR/mlp_ref/output_0.npy, DIR/mlp_bad/output_0.npy
 *   DIR/mlp_dyn.om      batch gears 1, 2, 4; DIR/dyn_in/input_0.npy (batch
 *                       4), DIR/dyn_ref/y.npy
 *   DIR/two_branch.om   two streams; DIR/tb_in/x.npy, DIR/tb_ref/y.npy
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"
#include "rt_models.h"

static int save(const char *dir, const char *sub, const char *name,
		uint64_t rows, uint64_t cols, const float *data)
{
	char path[1024], err[256];
	uint64_t dims[2] = { rows, cols };

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	if (npy_write(path, DRM_NPU_DTYPE_F32, 2, dims, data, err)) {
		fprintf(stderr, "mkmodels: %s\n", err);
		return 1;
	}
	return 0;
}

static int save_om(const char *dir, const char *name, void *data, size_t n)
{
	char path[1024];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	bad = !f || fwrite(data, 1, n, f) != n;
	if (f)
		bad |= fclose(f) != 0;
	free(data);
	if (bad)
		fprintf(stderr, "mkmodels: cannot write %s\n", path);
	return bad;
}

int main(int argc, char **argv)
{
	const uint32_t two = 2, gears[3] = { 1, 2, 4 };
	float x[4 * MLP_IN], y[4 * MLP_OUT], tx[TB_K], ty[TB_N];
	void *data;
	size_t size;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkmodels DIR\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	if (rt_build_mlp(&two, 1, 0, &data, &size))
		return 1;
	bad |= save_om(argv[1], "mlp.om", data, size);
	rt_fill(x, 2 * MLP_IN, 42);
	rt_mlp_reference(x, 2, y);
	bad |= save(argv[1], "mlp_in", "x.npy", 2, MLP_IN, x);
	bad |= save(argv[1], "mlp_ref", "output_0.npy", 2, MLP_OUT, y);
	y[3] += 0.5f;
	bad |= save(argv[1], "mlp_bad", "output_0.npy", 2, MLP_OUT, y);
	bad |= save(argv[1], "mlp_wrong", "x.npy", 3, MLP_IN, x);

	if (rt_build_mlp(gears, 3, 1, &data, &size))
		return 1;
	bad |= save_om(argv[1], "mlp_dyn.om", data, size);
	rt_fill(x, 4 * MLP_IN, 43);
	rt_mlp_reference(x, 4, y);
	bad |= save(argv[1], "dyn_in", "input_0.npy", 4, MLP_IN, x);
	bad |= save(argv[1], "dyn_ref", "y.npy", 4, MLP_OUT, y);

	if (rt_build_two_branch(3, &data, &size))
		return 1;
	bad |= save_om(argv[1], "two_branch.om", data, size);
	rt_fill(tx, TB_K, 44);
	rt_two_branch_reference(tx, 3, ty);
	bad |= save(argv[1], "tb_in", "x.npy", 1, TB_K, tx);
	bad |= save(argv[1], "tb_ref", "y.npy", 1, TB_N, ty);
	return bad;
}
