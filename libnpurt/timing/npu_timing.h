/* SPDX-License-Identifier: MIT */
/*
 * npu_timing.h - the device's timing model: modeled cycles of a compiled
 * model on a target, deterministic on any host.
 *
 * The emulated device's wall time says how fast the host CPU runs the
 * kernels, not how the NPU would: a 2-core host cannot show four AI cores
 * busy. The timing model answers the NPU question. Each task is charged
 * cycles from its work (MACs on the cube unit, element operations on the
 * vector unit, pixels on the media unit, bytes to and from VRAM at the
 * core's share of the bandwidth, with an access-efficiency factor for
 * layouts the unit reads badly) plus a fixed launch cost; a discrete-event
 * schedule then runs the model's streams over the target's cores, their
 * units and the semaphores, as the device's scheduler would: tasks of a
 * stream in order, one task per unit per core at a time, a semaphore wait
 * released when the signal it waits for has completed.
 *
 * Documentation/timing-model.rst gives the parameters, their defaults (an
 * Ascend 310-like device) and the limits of the model.
 */
#ifndef NPU_TIMING_H
#define NPU_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <drm/npu_drm.h>

struct om_model;

/* The execution units of an AI core (and the scheduler's own tasks). */
enum npu_unit {
	NPU_UNIT_CUBE = 0,	/* CONV2D, MATMUL, ATTENTION */
	NPU_UNIT_VECTOR = 1,	/* elementwise, reductions, norms, layout */
	NPU_UNIT_MEDIA = 2,	/* resize, crop, colour conversion (DVPP) */
	NPU_UNIT_SCHED = 3,	/* semaphore tasks: no unit, queue time only */
	NPU_UNIT_COUNT
};

/**
 * struct npu_timing_params - the modeled device
 * @cores: AI cores (each has one unit of every kind)
 * @clock_mhz: core clock; cycles / clock_mhz = microseconds
 * @cube_macs: f32 multiply-accumulates per cycle of one cube unit
 * @vector_ops: f32 element operations per cycle of one vector unit
 * @media_pixels: pixels per cycle of one media unit
 * @vram_bytes: VRAM bytes per cycle for the whole device; a task moves its
 *	bytes at @vram_bytes / @cores (each core's fair share)
 * @nchw_efficiency: fraction of the bandwidth a CONV2D or POOL2D reaches
 *	when it reads an NCHW (not NC1HWC0) feature map, whose channels of
 *	one pixel lie a plane apart (the cube's fractal loads want C0
 *	channels contiguous)
 * @launch_cycles: fixed cost of dispatching one compute task
 * @sem_cycles: cost of a semaphore signal or wait on its queue
 */
struct npu_timing_params {
	uint32_t cores;
	uint32_t clock_mhz;
	double cube_macs;
	double vector_ops;
	double media_pixels;
	double vram_bytes;
	double nchw_efficiency;
	uint32_t launch_cycles;
	uint32_t sem_cycles;
};

/**
 * struct npu_task_cost - the work of one task and what it is charged
 * @unit: enum npu_unit the task runs on
 * @macs: multiply-accumulates (cube tasks)
 * @ops: element operations (vector tasks) or pixels (media tasks)
 * @bytes: bytes read and written, as the access pattern charges them
 *	(an operand broadcast along a dim is read once)
 * @compute_cycles, @memory_cycles: the two bounds of the task's time
 * @cycles: @launch_cycles + the larger bound (0 work: launch only)
 */
struct npu_task_cost {
	uint32_t unit;
	uint64_t macs;
	uint64_t ops;
	uint64_t bytes;
	uint64_t compute_cycles;
	uint64_t memory_cycles;
	uint64_t cycles;
};

/**
 * struct npu_timed_task - one task placed in modeled time
 * @task: global index in the .om's TASKS section
 * @stream: the model stream that runs it
 * @core: the AI core (UINT32_MAX for semaphore tasks)
 * @start, @end: cycles from the start of the execution
 * @cost: its work and charge
 */
struct npu_timed_task {
	uint32_t task;
	uint32_t stream;
	uint32_t core;
	uint64_t start;
	uint64_t end;
	struct npu_task_cost cost;
};

/**
 * struct npu_timing_report - one modeled execution of a variant
 * @params: the device it was modeled on
 * @latency_cycles: end of the last task
 * @num_tasks, @tasks: every task, in the order the scheduler started them
 * @busy: cycles each kind of unit was busy, summed over cores
 * @macs, @ops, @bytes: the execution's totals
 * @overlap_cycles: cycles during which a cube unit and a vector unit
 *	were both busy with tasks of different streams
 */
struct npu_timing_report {
	struct npu_timing_params params;
	uint64_t latency_cycles;
	uint32_t num_tasks;
	struct npu_timed_task *tasks;
	uint64_t busy[NPU_UNIT_COUNT];
	uint64_t macs;
	uint64_t ops;
	uint64_t bytes;
	uint64_t overlap_cycles;
};

/* The default device: an Ascend 310-like one (timing-model.rst). */
void npu_timing_params_default(struct npu_timing_params *p);

/*
 * Overrides parameters from "key=value,key=value" (the field names above;
 * NPU_TIMING in the tools). Return: 0, or -EINVAL with @err naming the key
 * or value that is wrong and the accepted range.
 */
int npu_timing_params_parse(struct npu_timing_params *p, const char *spec,
			    char *err, size_t errlen);

/* The unit a task of @opcode runs on. */
enum npu_unit npu_timing_unit(uint32_t opcode);
const char *npu_timing_unit_name(uint32_t unit);

/* Work and charge of one task (one that the .om reader accepted). */
void npu_timing_task_cost(const struct drm_npu_task *t,
			  const struct npu_timing_params *p,
			  struct npu_task_cost *c);

/*
 * Models one execution of @variant of @m on @p. Return: 0, -ENOMEM, or
 * -EDEADLK with @err naming the stream and task whose semaphore wait no
 * task of the variant ever satisfies.
 */
int npu_timing_model(const struct om_model *m, uint32_t variant,
		     const struct npu_timing_params *p,
		     struct npu_timing_report *r, char *err, size_t errlen);
void npu_timing_report_free(struct npu_timing_report *r);

/* Microseconds of @cycles on @p. */
double npu_timing_us(const struct npu_timing_params *p, uint64_t cycles);

/*
 * Fractions of the modeled execution: a unit kind's busy time over
 * latency x cores; cube MACs over the cube's peak; bytes over bandwidth.
 */
double npu_timing_unit_busy(const struct npu_timing_report *r, uint32_t unit);
double npu_timing_cube_efficiency(const struct npu_timing_report *r);
double npu_timing_bandwidth_util(const struct npu_timing_report *r);

/* The report as one JSON object (no trailing newline). */
void npu_timing_report_json(const struct npu_timing_report *r, FILE *f);

/*
 * The tasks of @r as Chrome trace events, comma-separated (a comma first
 * unless *@first; *@first is cleared): process @pid_base + core per AI
 * core (named "modeled core N"), a thread per unit; semaphore tasks in
 * process @pid_base + 1000 + stream. Times in modeled microseconds.
 */
void npu_timing_trace_events(FILE *f, const struct om_model *m,
			     uint32_t variant,
			     const struct npu_timing_report *r,
			     uint32_t pid_base, int *first);

#endif /* NPU_TIMING_H */
