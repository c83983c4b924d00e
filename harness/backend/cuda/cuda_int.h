/*
 * cuda_int.h - the CUDA backend's state and the functions its files share
 * (private to harness/backend/cuda/; everything else reaches the backend
 * through backend_cuda, the table's row, backend.h).
 *
 * The backend is a family of files, one concern each:
 *   backend_cuda.c    open and close, cases, slots, samples, notes: the ops
 *   cuda_span.c       one timed span of events (the spin of launch_gaps =
 *                     hide, the probes, the host time of the arm's call)
 *   cuda_graph.c      timing = graph: capture, replay, the flushes' baseline
 *   cuda_calibrate.c  the span's own cost and CUPTI's overhead, at open
 *   cupti.c, nvml.c   the libraries opened at run time
 * Every CUDA call goes through CK (cuda_check.h) with cuda_api.
 */
#ifndef AB_CUDA_INT_H
#define AB_CUDA_INT_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/copy_floor.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cupti.h"
#include "backend/cuda/harness_kernels.h"
#include "backend/cuda/nvml.h"

/* How long the spin kernel of launch_gaps = hide holds the stream for the
 * host: a sample queues its launches in microseconds (a Python arm's call,
 * 40 us and more, included), so a second means the host cannot release it
 * (its arm waits for the GPU while queueing). */
#define CUDA_SPIN_TIMEOUT_NS 1000000000ull
#define CUDA_PROBE_WINDOW_NS 4000u  /* per probe; a 1 us timer tick keeps the error near 1% */
#define CUDA_THROTTLE_RATIO 0.75    /* effective / default SM clock under which a sample is dropped */
#define CUDA_OVERHEAD_SAMPLES 30
#define CUDA_OVERHEAD_LAUNCHES 8
#define CUDA_GRAPH_FLUSH_HISTORY 63

extern const struct ab_api cuda_api;

#define CK(d, call) AB_CHECK(d, &cuda_api, call)

struct backend {
	struct bk_options opt;
	int dev;
	struct results_device info;
	int default_sm_khz;
	cudaStream_t stream;
	cudaEvent_t ev_start, ev_stop, ev_flush; /* ev_flush: before the flushes-only graph */
	bool legacy_span;                        /* ABBENCH_SPAN=legacy */
	cudaGraphExec_t g_flush, g_arm;          /* timing = graph: the flushes alone; the slot's arm */
	/* timing = graph: the slot's latest flushes-only replays (ms), whose
	 * median is subtracted from each arm replay (one replay's own is as
	 * noisy as a small arm's time) */
	double flush_ms[CUDA_GRAPH_FLUSH_HISTORY];
	int n_flush_ms;
	double span_empty_ns, span_tiny_ns, span_tiny_kernel_ns; /* the span's floor, measured at open */
	void *l2_buf;
	size_t l2_bytes;
	unsigned *flags_host, *flags_dev; /* mapped: [0] spin release, [1] spin timeouts */
	unsigned spin_seq, spin_timeouts;
	unsigned long long *probe_host, *probe_dev; /* mapped: [0..2] before, [4..6] after */
	unsigned *tiny_sink;
	struct nvml *nvml;
	struct cupti *cupti;
	struct cupti_counts counts;
	double cupti_overhead; /* relative, NAN when not measured */
	int64_t selfcheck_tied; /* of the overhead chain's tagged launches */
	bool runtime_fallback;  /* runtime API records were needed to tie them */
	char cupti_note[200], nvml_note[200];
	char notes[512];
	char env[32];           /* cuda_environment's words */
	const struct site_desc *site;
	struct site_args args;
	size_t bytes[SITE_MAX_TENSORS];
	char case_name[64], arm[32];
	bool range_open;
	char ext_err[AB_DIAG_MAX / 2]; /* what an arm from outside said when it failed */
	/* the copy floor's methods (hk_floor_method): variants of our own */
	struct cuda_floor {
		struct backend *b;
		int method;
		struct copy_floor_plan plan; /* planned when its slot begins */
	} floor[HK_FLOOR_N];
	struct site_ext_arm floor_ext[HK_FLOOR_N];
	struct site_variant floor_var[HK_FLOOR_N];
	const struct site_ext_arm *ext; /* the slot's arm from outside, for slot_end */
};

/* A timed region's launches: the arm, or the calibration's chain of tiny
 * kernels. Returns a cudaError_t. */
typedef int (*region_fn)(struct backend *b, const void *ctx);

/* ---- one timed span (cuda_span.c) ------------------------------------------ */

/* One sample of fn in events mode, tagged with tag for CUPTI
 * (ATTRIB_UNTIMED: no tag): out's wall time, clock verdict and the host
 * time of fn's call. Under launch_gaps = hide the spin kernel holds the
 * stream until fn has returned; a spin that gave up fails the sample,
 * saying whether fn outlived it (it waited for the GPU while queueing). */
enum ab_rc cuda_timed_run(struct backend *b, region_fn fn, const void *ctx, uint32_t tag, struct bk_sample *out,
			  struct ab_diag *d);
/* What fn's cudaError_t e means: the arm's own message (ext_err) when it
 * gave one, else the CUDA error of `what`. */
enum ab_rc cuda_launched(struct backend *b, int e, const char *what, struct ab_diag *d);
/* Pops the sample's CUPTI tag; its error is kept only when rc has none. */
enum ab_rc cuda_pop(struct backend *b, enum ab_rc rc, struct ab_diag *d);
/* The probes' clock ratio and the throttle verdict into out. */
void cuda_probe_verdict(const struct backend *b, struct bk_sample *out);

/* ---- timing = graph (cuda_graph.c) ------------------------------------------- */

/* Captures BACKEND_GRAPH_LAUNCHES x ([flush] fn) (fn NULL: the flushes
 * alone) into *exec; the capture is always ended. */
enum ab_rc cuda_graph_capture(struct backend *b, region_fn fn, const void *ctx, cudaGraphExec_t *exec,
			      struct ab_diag *d);
/* The flushes-only graph, once per run (none without a flush). */
enum ab_rc cuda_graph_flushes(struct backend *b, struct ab_diag *d);
/* One sample of the slot's graph (b->g_arm): its time per launch. */
enum ab_rc cuda_graph_sample(struct backend *b, uint32_t tag, struct bk_sample *out, struct ab_diag *d);
void cuda_graph_drop(cudaGraphExec_t *g);

/* ---- the span's own cost, CUPTI's overhead (cuda_calibrate.c) ---------------- */

/* In the run's mode, at open: the empty span and the span around one
 * one-warp kernel (b->span_*). */
enum ab_rc cuda_measure_span(struct backend *b, struct ab_diag *d);
/* A chain of tiny launches with CUPTI's collection off, then on
 * (b->cupti_overhead), and the join's self-check (b->selfcheck_tied). */
enum ab_rc cuda_measure_overhead(struct backend *b, struct ab_diag *d);

#endif
