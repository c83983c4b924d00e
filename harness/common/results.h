/*
 * results.h - the in-memory shape of one run's results.
 *
 * The runner fills a results_run while it measures; the store writes it in one
 * transaction and reads it back (store_load_run) for show, export, report,
 * compare and gate. Every printer works from this structure, so measuring
 * code never formats and formatting code never measures.
 *
 * Times are nanoseconds as doubles. Strings are fixed arrays except the few
 * that can be long (scenario text, command line), which are malloc'd.
 */
#ifndef AB_RESULTS_H
#define AB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RESULTS_MAX_OUTPUTS 16     /* outputs of a site (a declared site may have several) */
#define RESULTS_MAX_ARM_SOURCES 16 /* user arms of a run, each once per side it runs on */
/* The form of results_run.env and results_arm_source.versions: words
 * KEY=VALUE separated by one blank, KEY of [a-z0-9_] (at most 31), VALUE
 * non-empty printable ASCII without blank, '=' or '"' (results_check_env). */

struct results_clocks {
	bool valid;             /* false when NVML (or the CPU backend) gave nothing */
	int sm_mhz;
	int mem_mhz;
	uint64_t throttle_reasons; /* NVML clocks-event reasons bit mask */
	int temp_c;
};

struct results_kernel {
	char name[256];         /* demangled, possibly shortened */
	char family[32];        /* "LayerNorm", "elementwise", "fused", ... */
	int64_t launches;
	double total_ns, min_ns, max_ns;
};

struct results_output {
	char tensor[32];
	char md5[33];
	int64_t bytes;
	bool bit_exact;         /* bytes equal those of the bracket's first A slot */
	int64_t mismatches;     /* elements whose bytes differ from that slot's */
	double max_abs_err;     /* against the float64 reference, comparable elements only */
	double max_err_ratio;   /* max over elements of |err| / tolerance */
	bool has_ref;           /* the site has a float64 reference (a declared site has none) */
	bool ref_ok;            /* every comparable element within tolerance, NaN where NaN; false without a reference */
	int64_t ref_skipped;    /* elements outside float32's range, not compared */
};

/* ---- where the bits differ (issue 29; run/divergence.h computes it) ----
 *
 * A slot whose output, or a statistic or scratch tensor that both its arm
 * and the first A slot's write, is not byte-equal to the first A slot's
 * gets one results_divergence per such tensor. Distances are in ULPs of
 * the tensor's dtype (common/ulp.h: ordered-integer distance). */

#define RESULTS_ULP_BUCKETS 5      /* 1 | 2 | 3-10 | 11-1000 | >1000 */
#define RESULTS_DIV_MAP_ROWS 256   /* the per-row map's grid, at most */
#define RESULTS_DIV_MAP_COLS 64
#define RESULTS_MAX_DIV 32         /* tensors of a site (SITE_MAX_TENSORS) */

/* One element: where (its index in memory order, row-major) and what each
 * side holds there (raw bits, common/ulp.h's widening). */
struct results_div_elem {
	int64_t index;          /* -1: none */
	int64_t a_bits, b_bits; /* the first A slot's, this slot's */
	double ref;             /* the float64 reference there; NAN: none */
};

struct results_divergence {
	char tensor[32];
	char role[8];           /* "output", "stat", "scratch" */
	char dtype[8];          /* "bf16" ... (site_dtype_name) */
	int stage;              /* its place in the slot's compared list (results_slot_check) */
	char axes[64];          /* the tensor's axes by the site's names, "B,T,W" ("" for a scalar) */
	char dims[96];          /* their extents, "1,17,4096" */
	int64_t elems;
	int64_t n_diff;         /* elements whose bytes differ: the histogram, n_class and n_nan_bits sum to it */
	int64_t ulp_hist[RESULTS_ULP_BUCKETS]; /* pairs of one class (not NaN), by distance */
	int64_t n_class;        /* NaN / Inf / finite on one side, another class on the other */
	int64_t n_nan_bits;     /* NaN on both sides, in other bits */
	int64_t n_sign;         /* sign flips among pairs without a NaN (-0 against +0 included) */
	int64_t max_ulp;        /* the largest distance of the histogram's pairs (at most INT64_MAX); 0: none */
	struct results_div_elem at_max_ulp; /* the first element at that distance */
	double max_abs;         /* the largest |B - A| of pairs both finite; NAN: none */
	struct results_div_elem at_max_abs;
	struct results_div_elem first; /* the first differing element */
	int64_t rows;           /* vectors along the last axis (a LayerNorm's rows; 1 for a scalar) */
	int64_t rows_touched;   /* those holding a difference */
	/* The map: differing elements per cell of a map_rows x map_cols grid.
	 * A map row is map_row_bin consecutive rows (rank 4 and more: of the
	 * axes before the last two, B*T); a column is map_col_bin heads (axis
	 * rank-2, map_by_head) or map_col_bin consecutive elements of a row. */
	bool map_by_head;
	int map_rows, map_cols;
	int64_t map_row_bin, map_col_bin;
	uint32_t *map;          /* [map_rows * map_cols], malloc'd; NULL when map_rows is 0 */
	bool has_ref;           /* the tensor has a float64 reference (a built-in site's output) */
	int64_t ref_compared;   /* differing elements where A, B and the reference are all finite */
	int64_t b_closer, a_closer; /* of those, nearer the reference in B, in A (the rest tie) */
};

/* What a slot's checks found beyond its outputs' bytes. */
struct results_slot_check {
	/* The tensors compared with the first A slot, in the eager chain's
	 * order (statistics and scratch tensors both arms write, then the
	 * outputs), joined by ','; "" for the first A slot itself. */
	char compared[256];
	/* Determinism (run/determinism.h): the calls whose outputs were
	 * hashed (a fixed subset of the samples, and the slot's last), how
	 * many of them differ from the first hashed call's, the sample id of
	 * the first that did (0: none) and which output. */
	int calls_checked, calls_differ, first_differ;
	char differ_tensor[32];
};

/* Batch invariance of one arm in a case of a sweep declared with
 * `invariance = rows` (run/invariance.h): the arm's first slot's outputs,
 * row by row, against the rows earlier cases of the sweep produced. */
struct results_invariance {
	bool checked;           /* false: not asked for (no row is stored) */
	char slot[8];           /* the slot compared ("A1", "B") */
	int64_t rows_compared;  /* rows also produced by an earlier case (0 for the sweep's first) */
	int64_t first_row;      /* the first row that differs; -1: none */
	int64_t other_value;    /* the sweep value (T) of the case that produced it first; 0: none */
	char tensor[32];        /* the output it is in; "" */
	char note[128];         /* "" or why fewer rows than expected were compared */
};

struct results_slot {
	char label[8];          /* A1, B, A2, B2, A3 ... */
	char arm;               /* 'a' or 'b' */
	char variant[32];
	int position;           /* 0-based place in the bracket */
	int warmup;
	int n_samples;
	double *samples_ns;     /* wall time per kept sample (events on CUDA) */
	double *kernel_ns;      /* per sample: sum of kernel self-times; NAN if unknown */
	double *host_ns;        /* per sample: the host time of the arm's call (backend.h, bk_sample);
				 * NAN where not measured (the CPU backend, timing = graph); NULL: none */
	int n_discarded;        /* samples dropped by the throttle probe */
	char stopping_reason[32];   /* target_noise, noise_converged, max_samples, max_time */
	double elapsed_s;       /* wall time the slot took, warm-up included */
	double median_ns, p10_ns, p90_ns, min_ns, max_ns, mean_ns, noise;
	double kernel_median_ns; /* median of kernel_ns (NAN if unknown) */
	double host_median_ns, host_p90_ns; /* of the known host_ns; NAN when none is known */
	int n_kernels;
	struct results_kernel *kernels;
	int64_t kernel_records_bad; /* records with zero/invalid timestamps, not summed */
	struct results_clocks clocks_before, clocks_after;
	int n_outputs;
	struct results_output outputs[RESULTS_MAX_OUTPUTS];
	struct results_slot_check check;
	int n_div;              /* tensors not byte-equal to the first A slot's, in the compared list's order */
	struct results_divergence *div; /* [n_div], malloc'd */
};

struct results_case {
	int ordinal;            /* place in the whole scenario's case list (0-based);
				 * a shard's cases keep theirs, so shards merge in order */
	char name[64];
	char site[32];
	char shape[64];
	char dtype[8];
	double eps;
	bool affine;
	int count;
	char input[128];        /* scenario_input_describe() */
	char sweep[64];         /* the swept [case] this one was expanded from; '' when not swept */
	char axis[8];           /* the swept dimension ("T"); '' when not swept */
	int64_t axis_value;     /* its value in this case; 0 when not swept */
	int64_t bytes_min;      /* bytes an arm must move (site_min_bytes); 0 unknown */
	int64_t bytes_a, bytes_b; /* traffic credited to arm a and b (arms_bytes); 0 unknown */
	char arm_a[32], arm_b[32]; /* the arms this case ran (its own, or the run's); a run stored before
				    * schema 9 reads the run's */
	/* The copy floor (backend/copy_floor.h: a streaming copy of exactly
	 * bytes_min), measured on the case's buffers right after its last slot:
	 * the fastest method's median wall time (NAN, or 0 in a structure never
	 * filled: not measured, as in runs stored before schema version 8), its
	 * median kernel time (NAN: unknown), its name ("vec_cs"), its samples,
	 * and every method's median ("vec_cs 18.05 us, vec 18.10 us, ..."). */
	double copy_floor_ns, copy_floor_kernel_ns;
	char copy_floor_method[16];
	int copy_floor_samples;
	char copy_floor_detail[128];
	int n_slots;
	struct results_slot *slots;
	struct results_invariance inv[2]; /* arm a, arm b */
};

struct results_device {
	char name[128];
	char uuid[64];
	char backend[8];        /* "cpu" or "cuda" */
	int cc_major, cc_minor;
	int sm_count;
	int64_t l2_bytes, mem_bytes;
	char driver_version[32];
	char runtime_version[32];
	int default_sm_mhz;
	double copy_gbps;       /* measured device copy bandwidth (read + write), 0 if unknown */
};

/* Where a user arm came from (harness/arms/): what ran as arm a or b. */
struct results_arm_source {
	char arm;               /* 'a' or 'b' */
	char name[32];          /* the arm's name, as in results_case.arm_a/arm_b */
	char kind[16];          /* its kind's name (arms/arm_kind.c: "plugin", "cubin", "python" ...) */
	char path[512];         /* the library or the binary, absolute */
	char sha256[65];        /* of that file */
	char detail[256];       /* plugin: its name and the arm's; cubin: the kernel, Triton's version */
	/* Since schema 10 (a certificate's provenance, docs/CERTIFICATE.md):
	 * the function that ran (a python arm's function, a plugin's arm, a
	 * cubin's kernel) and the versions of what it ran under, as
	 * RESULTS_ENV words ("python=3.11.2 numpy=1.24.2 torch=2.11.0
	 * triton=3.6.0"); "" in runs stored before it. */
	char function[128];
	char versions[192];
};

struct results_run {
	int64_t id;             /* a run set read as one run: its first shard's id */
	char uuid[37];          /* random (v4), the run's identity across databases */
	char run_set[64];       /* '' or the run set this run is a shard of */
	int shard_index;        /* 1..shard_count; 0 for a whole run (or a whole set) */
	int shard_count;        /* 0 for a plain run */
	int n_set_runs;         /* a run set read as one run: its shards' run ids */
	int64_t *set_run_ids;
	char started_at[32];    /* UTC, ISO 8601 */
	char finished_at[32];
	char status[16];        /* running, ok, failed, interrupted */
	char error[512];
	char label[64];
	char scenario_name[64];
	char scenario_path[512];
	char *scenario_text;
	char scenario_hash[65];
	char *command_line;
	char git_commit[64];
	char host[128];
	char backend[8];
	char version[32];
	bool quick;
	bool fake_timer;        /* CPU backend under ABBENCH_FAKE_TIMER=1: the times are a cost model */
	int device_index;       /* --device N: the CUDA device (0 on the CPU) */
	char noise_measure[8];  /* the stopping rule's noise: "median" or "mean" */
	char bracket[17];
	char arm_a[32], arm_b[32]; /* the scenario's [arms] ("" on a side every case names its own) */
	int steps, forwards_per_step;
	char launch_gaps[16];
	char timing[8];         /* "events", "graph" or "cpu" (backend.h: backend_timing); '' read as events */
	bool l2_flush;
	char notes[1024];       /* the runner's (a resume, the phases' times) and the backend's remarks */
	/* Since schema 10: what the backend ran on beyond the device row, as
	 * RESULTS_ENV words (CUDA: "cupti=130100"); "" on the CPU and in runs
	 * stored before it. */
	char env[128];
	char only_cases[256];   /* run --only CASE: the cases the run was restricted to; "" = all */
	bool recheck;           /* run --recheck: cases another run found slower, measured again (a second
				 * opinion, not a run of its own: list and history leave it out) */
	/* Cases the run sets out to measure (its scenario's after --only and
	 * --shard); each is committed as it finishes, and 'ok' needs them all.
	 * A run that did not finish keeps its finished ones (n_cases of them).
	 * 0: not recorded (runs stored before schema version 8). */
	int cases_planned;
	int resumed;            /* times `run --resume` took the run up again */
	int n_arm_sources;      /* user arms the cases ran, once per side (0 to RESULTS_MAX_ARM_SOURCES) */
	struct results_arm_source arm_sources[RESULTS_MAX_ARM_SOURCES];
	struct results_device device;
	int n_cases;
	struct results_case *cases;
};

/* One line of `abbench list`. */
struct results_run_summary {
	int64_t id;
	char started_at[32];
	char status[16];
	char label[64];
	char scenario_name[64];
	char backend[8];
	char device[128];
	int n_cases;
	char git_commit[64];
	bool quick, fake_timer, recheck;
	char only_cases[256];
	char run_set[64];       /* '' or the run set this run is a shard of */
	int shard_index, shard_count; /* 0, 0 for a whole run */
};

void results_run_free(struct results_run *r);

/* Whether a and b hold the same results: every header field, the device's
 * identity, every case, slot, sample, kernel record and output (the row id
 * and the device's cached copy bandwidth aside). When they differ, why
 * names the first difference ("case 'x' slot 'A1' sample 3"). */
bool results_run_same(const struct results_run *a, const struct results_run *b, char *why, size_t len);

void results_slot_release(struct results_slot *s);

/* Slot of a case by label ("A1", "B"), NULL if absent. */
const struct results_slot *results_case_slot(const struct results_case *c, const char *label);

#endif
