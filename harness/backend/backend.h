/*
 * backend.h - the one interface both backends implement.
 *
 * The runner drives a backend through a case's life:
 *
 *   open -> describe
 *   for each case:  case_begin (copy the host inputs in, allocate outputs)
 *     for each slot: slot_begin (poison outputs, clocks before, NVTX range)
 *                    sample(warm-up) x warmup, sample(measured) until the
 *                    stopping rule says enough
 *                    slot_end (kernel records into the collector, clocks after)
 *                    read_tensor (outputs of the slot's last sample)
 *     case_end
 *   close
 *
 * A measured sample carries a 1-based sample id; the backend tags every
 * kernel it launches for that sample with the id (CUPTI external
 * correlation on CUDA), so attribution never guesses from time windows.
 */
#ifndef AB_BACKEND_H
#define AB_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/attrib.h"
#include "common/diag.h"
#include "common/results.h"
#include "kernels/common/site.h"

struct backend;

/* The backend a run asks for (a scenario's `backend =`, `run --backend`):
 * its names are parsed here and nowhere else. */
enum backend_choice { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA };

/* "auto", "cpu", "cuda" in enum order, NULL-terminated: the one list of
 * names (for messages that list them). */
extern const char *const backend_choice_names[];

/* Parses "auto", "cpu" or "cuda"; false for anything else. */
bool backend_choice_parse(const char *name, enum backend_choice *out);
const char *backend_choice_name(enum backend_choice c);

/* Launch gaps between the arm's kernels: measured as they are, or hidden
 * (CUDA: the launches captured in one graph). */
enum backend_launch_gaps { BACKEND_GAPS_INCLUDE, BACKEND_GAPS_HIDE };

struct bk_options {
	bool l2_flush;
	enum backend_launch_gaps launch_gaps;
	bool cupti;           /* per-kernel records (CUDA); the CPU always times steps */
	int device_index;     /* --device: the CUDA device; the CPU has only 0 (else AB_ERR_USAGE) */
};

struct bk_sample {
	double wall_ns;       /* events (CUDA) or monotonic clock (CPU) around the arm */
	bool discarded;       /* throttle probe: effective SM clock under 75% of default */
	double clock_ratio;   /* effective / default SM clock, NAN when not probed */
};

/* What one case would take from a backend, and what there is: the memory
 * admission of a run (run/admission.h) adds the runner's own share. */
struct bk_memory {
	uint64_t host_bytes;   /* the backend's own host allocations for the case */
	uint64_t device_bytes; /* its device allocations: inputs, outputs, scratch, guard bytes */
	uint64_t device_free;  /* device memory free now, the backend's fixed buffers already out */
	bool has_device;       /* false: device_bytes and device_free mean nothing */
};

struct backend_ops {
	const char *name; /* "cpu", "cuda" */
	/* Whether this backend can run here at all (a device answers). Fills a
	 * reason when not. Cheap; no state. */
	bool (*available)(char *why, size_t len);
	/* How many devices `--devices all` spreads over (0 when none answers). */
	int (*device_count)(void);
	enum ab_rc (*open)(struct backend **out, const struct bk_options *o, struct ab_diag *d);
	void (*close)(struct backend *b);
	void (*describe)(struct backend *b, struct results_device *dev);
	/* Measures the device copy bandwidth (GB/s, read + write); may be slow. */
	enum ab_rc (*measure_copy_gbps)(struct backend *b, double *gbps, struct ab_diag *d);
	/* host holds pointers to host copies of every present input tensor. */
	enum ab_rc (*case_begin)(struct backend *b, const struct site_desc *s, const struct site_args *host,
				 const char *case_name, struct ab_diag *d);
	enum ab_rc (*slot_begin)(struct backend *b, const struct site_variant *v, const char *range_name,
				 struct results_clocks *before, struct ab_diag *d);
	/* sample_id: 1-based for measured samples, ATTRIB_UNTIMED for warm-up. */
	enum ab_rc (*sample)(struct backend *b, const struct site_variant *v, uint32_t sample_id,
			     struct attrib_collector *kernels, struct bk_sample *out, struct ab_diag *d);
	enum ab_rc (*slot_end)(struct backend *b, struct attrib_collector *kernels, struct results_clocks *after,
			       struct ab_diag *d);
	enum ab_rc (*read_tensor)(struct backend *b, int tensor_index, void *host, size_t bytes,
				  struct ab_diag *d);
	void (*case_end)(struct backend *b);
	/* The memory case_begin would allocate for site s at shape's dims and
	 * affine flag, and the device's free memory; allocates nothing. */
	enum ab_rc (*case_memory)(struct backend *b, const struct site_desc *s, const struct site_args *shape,
				  struct bk_memory *m, struct ab_diag *d);
	/* The backend's remarks for the run's notes (CUDA: where CUPTI came
	 * from, its measured overhead, record counts, whether NVML answered;
	 * "" when it has none). Asked after the last case, before close; the
	 * string belongs to the backend (valid until the next call or close)
	 * and fits results_run.notes. */
	const char *(*notes)(struct backend *b);
};

extern const struct backend_ops backend_cpu;
/* Whether the CPU backend runs on its fake timer (ABBENCH_FAKE_TIMER=1). */
bool backend_cpu_fake_timer(void);
/* NULL in a build without nvcc. */
extern const struct backend_ops *const backend_cuda_ops;

/* Picks the backend for a choice. auto takes CUDA when a device answers,
 * else the CPU (and *fell_back is set, with the reason in why). */
enum ab_rc backend_choose(enum backend_choice want, const struct backend_ops **out, bool *fell_back, char *why,
			  size_t why_len, struct ab_diag *d);

#endif
