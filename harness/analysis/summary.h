/*
 * summary.h - every per-case figure of a run, computed once, for every
 * printer and judge: show, report, export, compare and gate read a
 * summary_run and never derive a figure of their own (google/benchmark's
 * ComputeStats, nvbench's named summaries: compute once, print many).
 *
 * summary_compute walks a stored run (struct results_run) once:
 *
 *   per slot   the stored slot figures (median, p10, p90, noise ...: the
 *              runner computed them with stats.c) and the verdicts folded
 *              over the slot's outputs (md5s joined, bit-exact, reference)
 *   per arm    its slots' samples pooled in slot order (A1 and A2 for the A
 *              arm of an ABA bracket): median, p10, p90, count; the arm's
 *              variant; its kernels merged by name over its slots; the
 *              host time of a call against its GPU time (hosttime.h)
 *   per case   speedup = median(A) / median(B) with its seeded bootstrap
 *              interval; A drift; exactness counts; its share of the model
 *              projection (count x median per forward, per step); each
 *              arm's median interval and bandwidth (GB/s, % of the run's
 *              copy bandwidth, bandwidth.h), whether it is cache-resident, and
 *              its floor: the copy floor measured in the run, each arm as
 *              a multiple of it; launch-bound when an arm's host time
 *              per call exceeds its GPU time
 *   per run    the projection totals (per forward, per step, per image),
 *              the report's verdict (enum summary_verdict) and the counts
 *              behind it, the clock readings' span
 *
 * The judgments a printer shows are made here too, so that print/ only
 * formats: the run's verdict word, each case's drift against the device
 * profile's noise floor, each arm over its floor, throttled slots, the per-sample
 * kernel figures and their operation names (backend/attrib.h).
 *
 * The device profile comes from the command (cli/load.c looks it up once)
 * as a struct summary_profile: analysis/ reads no file.
 *
 * One set of constants below (level, resamples, seed): the same samples give
 * the same interval in every command. The bootstrap runs once per case per
 * summary_compute, and not at all under SUMMARY_NO_INTERVALS (compare and
 * gate, which print no A/B speedup, ask for that).
 *
 * A summary points into the run it was computed from: keep the run alive
 * until summary_free. analysis/ never writes output; print/ formats these
 * figures.
 */
#ifndef AB_SUMMARY_H
#define AB_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/bandwidth.h"
#include "analysis/hosttime.h"
#include "common/diag.h"
#include "common/results.h"
#include "common/stats.h"
#include "kernels/common/site.h"

/* The one set of bootstrap constants (summary, compare, gate). */
#define SUMMARY_CI_LEVEL 0.95
#define SUMMARY_RESAMPLES 2000
#define SUMMARY_SEED UINT64_C(0x61626265) /* "abbe" */

/* The fewest samples an arm needs for its interval to mean anything: the
 * percentile bootstrap of a median from a handful of samples can only
 * return those samples' own values (its coverage falls far below 95%), and
 * a Mann-Whitney test needs 6 a side to reach p < 0.01 at all. Below it the
 * speedup's interval is not computed (low, high NAN: printed n/a), and the
 * gate lets no case pass (GATE_MIN_SAMPLES). */
#define SUMMARY_MIN_SAMPLES 10

/* What a device profile (profiles/NAME.ini, config/profile.h) tells the
 * summary: the command looked it up once and passes these down. */
struct summary_profile {
	char name[64];      /* the profile's name */
	double dram_gbps;   /* its copy bandwidth, GB/s: used when the run measured none (0: unknown) */
	double noise_floor; /* an A drift above it is environmental (> 0) */
};

/* The one verdict on a case, computed once here and printed by every
 * printer (show, report, CSV, JSON, run's closing table, the charts, the
 * dashboard), in this order of precedence: bytes first (a case that lost
 * bit-exactness is that, whatever its time), then whether its time can be
 * trusted at all (environmental drift above the device profile's noise
 * floor; too few samples for an interval), then time. */
enum summary_case_verdict {
	SUMMARY_CASE_NOT_EXACT,       /* a B output is not byte-equal to the first A slot's, or an arm's
				       * outputs changed between its calls (nondeterministic) */
	SUMMARY_CASE_DRIFTED,         /* A_k moved from A1 beyond the profile's noise floor: not trusted */
	SUMMARY_CASE_FEW_SAMPLES,     /* under SUMMARY_MIN_SAMPLES an arm: no interval, not trusted */
	SUMMARY_CASE_FASTER,          /* B faster beyond noise (summary_beyond_noise) */
	SUMMARY_CASE_SLOWER,          /* B slower beyond noise */
	SUMMARY_CASE_NO_CLEAR_CHANGE, /* neither */
	SUMMARY_CASE_KINDS,
};

/* The report's one-word verdict on a run, from the per-case verdicts:
 * bytes first, then evidence, then time. Untrusted cases (drifted, too few
 * samples) do not decide the word; the headline counts them. */
enum summary_verdict {
	SUMMARY_NOT_BIT_EXACT,   /* a case lost bit-exactness */
	SUMMARY_INCONCLUSIVE,    /* a --quick run, or no case whose time can be trusted */
	SUMMARY_SLOWER,          /* a trusted case is slower beyond noise */
	SUMMARY_FASTER,          /* every trusted case is faster beyond noise */
	SUMMARY_PARTLY_FASTER,   /* some trusted cases faster, the others no clear change, none slower */
	SUMMARY_NO_CLEAR_CHANGE,
};

/* A case's drift held to the device profile's noise floor. */
enum summary_drift {
	SUMMARY_DRIFT_ONE_SLOT,      /* fewer than two A slots: no drift */
	SUMMARY_DRIFT_NO_PROFILE,    /* no profile, so no noise floor to hold it to */
	SUMMARY_DRIFT_OK,            /* within the noise floor */
	SUMMARY_DRIFT_ENVIRONMENTAL, /* above it: the device changed under the measurement */
};

enum summary_detail {
	SUMMARY_FULL,          /* every figure, the bootstrap intervals included */
	SUMMARY_NO_INTERVALS,  /* the speedup's point without its interval (low, high NAN) */
};

/* Median, 10th and 90th percentile (type 7) and count of pooled samples:
 * the shape in which every printer shows an arm's time. NAN when n == 0. */
struct summary_spread {
	double median_ns, p10_ns, p90_ns;
	int n;
};

/* A batch-invariance verdict (run/invariance.h): a case's arms, a sweep. */
enum summary_invariance {
	SUMMARY_INVARIANCE_NOT_CHECKED, /* its sweep did not ask (invariance = rows), or a run before schema 10 */
	SUMMARY_INVARIANCE_YES,         /* every row compared was equal */
	SUMMARY_INVARIANCE_NO,          /* a row differs from the same row of another case of the sweep */
};

/* An element's place in its tensor's axes: [b=0, t=17, w=64]
 * (divergence_coords_of, divergence_coords_text). rank 0: not known. */
struct divergence_coords {
	int rank;
	char axis[SITE_MAX_RANK][SITE_AXIS_NAME_MAX];
	int64_t at[SITE_MAX_RANK];
};

/* Where a case's B outputs differ from the first A slot's
 * (analysis/divergence.c, from the divergences the run stored). */
struct summary_divergence {
	bool measured;          /* byte-equal (every figure 0), or a divergence stored for each B output
				 * that is not; false: a run stored before schema 10 */
	const char *slot, *tensor; /* the B slot and output with the most differing elements; NULL: none */
	int64_t n_diff, elems;  /* its differing elements, of its elements */
	int64_t rows_touched, rows; /* its rows (vectors along the last axis) holding a difference, of its rows */
	int64_t first_index;    /* its first differing element in memory order; -1: none */
	struct divergence_coords first_at; /* where that is in the site's axes */
	double pct;             /* 100 n_diff / elems (0 when byte-equal); NAN when not measured */
	int64_t max_ulp;        /* the largest ULP over every B output; 0: none measured (byte-equal, or
				 * only class mismatches and NaN payloads) */
	const char *max_ulp_tensor; /* the output it is in; NULL when max_ulp is 0 */
	int64_t max_ulp_index;  /* its element (the first at that distance); -1: none */
	struct divergence_coords max_ulp_at;
	int64_t n_class;        /* NaN/Inf/finite class mismatches over the B outputs */
	const char *departure;  /* the first tensor in the eager chain's order that differs in the first
				 * B slot that differs (an intermediate when both arms write them); NULL */
	bool has_ref;           /* the outputs have a float64 reference */
	int64_t ref_compared, b_closer; /* over the B outputs' differing elements: compared with it, and
					 * nearer it in B */
};

/* Whether the case's arms gave the same outputs on every hashed call. */
struct summary_determinism {
	int slots_checked;      /* slots whose calls were hashed (0: a run stored before schema 10) */
	bool nondeterministic;  /* a slot's outputs changed between its hashed calls */
	const char *slot;       /* the slot with the most differing calls; NULL: none */
	int calls_differ, calls; /* in it: the calls that differed from its first, of its hashed calls;
				  * deterministic: 0, of the most calls a slot hashed */
};

/* The case's batch invariance over its arms. */
struct summary_case_invariance {
	enum summary_invariance verdict;
	char arm;               /* NO: the arm that broke it ('a' first) */
	int64_t first_row, other_value, rows_compared; /* NO: the row, and the sweep value of the case it is
							 * compared with; rows compared (the larger arm's) */
	const char *tensor;
};

/* One slot: the stored figures through `slot`, and its outputs folded. */
struct summary_slot {
	const struct results_slot *slot;
	char md5[RESULTS_MAX_OUTPUTS * 33 + 1]; /* the outputs' md5s joined by '+', in tensor order */
	bool bit_exact;      /* every output byte-equal to the bracket's first A slot (true without outputs) */
	bool has_ref;        /* every output had a float64 reference (a declared site's have none) */
	bool ref_ok;         /* every output with a reference within its tolerance */
	int64_t mismatches;  /* elements differing from the first A slot, summed over outputs */
	double max_abs_err, max_err_ratio; /* largest over outputs; NAN when none is known */
	struct bandwidth_arm bw; /* its arm's bytes over the slot's median, against the run's copy */
	bool throttled;      /* a clock reading before or after it names a reason that slows
			      * the clock (power, heat, hardware: summary_throttle_reasons) */
	bool clock_moved;    /* both readings valid and the SM clock differs between them, or
			      * the reading after names any reason: show warns */
};

/* A kernel of an arm, per sample of the arm (its slots pooled). */
struct summary_kernel {
	double per_sample_ns;        /* total self-time / samples */
	double share;                /* total self-time / the arm's wall time (a fraction) */
	double launches_per_sample;
	double of_median_ns;         /* share x the arm's median: its part of the median sample, the
				      * figure the kernel charts stack (so a bar is the headline's
				      * median, not the mean); NAN without wall time */
	char operation[48];          /* attrib_operation: "mul", "layer_norm"; "" when none */
};

/* One arm of a case, all its slots together. */
struct summary_arm {
	char arm;               /* 'a' or 'b' */
	char variant[32];       /* its slots' variant; "" when they disagree or there are none */
	int n_slots;
	double *samples;        /* the pooled samples, slot order; NULL when none */
	struct summary_spread time;
	struct stats_interval median_ci; /* the median's 95% distribution-free interval (NAN under 6 samples) */
	struct bandwidth_arm bw;  /* the case's bytes for this arm over time.median_ns, against the run's copy */
	/* kernel attribution: its slots' kernels merged by name, the largest
	 * total self-time first */
	int n_kernels;
	struct results_kernel *kernels;
	struct summary_kernel *kfig; /* [n_kernels], beside kernels */
	double wall_ns;         /* sum of the pooled samples: the window */
	double kernel_ns;       /* sum of every kernel's total self-time */
	int64_t kernel_records_bad;
	/* per sample, NAN without samples (window and gaps) or without wall
	 * time (share) */
	double window_ns;       /* wall_ns / samples: a sample's mean wall time */
	double kernels_per_sample_ns; /* kernel_ns / samples */
	double gaps_ns;         /* max(0, wall - kernel) / samples: launch gaps and host overhead */
	double kernel_share;    /* kernel_ns / wall_ns */
	double gaps_of_median_ns; /* (1 - kernel_share) x time.median_ns: the gaps' part of the median */
	/* the pooled samples' 1st and 99th percentiles: a chart's zoom */
	double p1_ns, p99_ns;
	double kernel_median_ns; /* median of the pooled per-sample kernel sums; NAN when none is known */
	/* the host time of one call (median, p90 over its slots' samples)
	 * against the GPU time it queues, and whether it is launch-bound
	 * (analysis/hosttime.h); n 0 where not measured (CPU, timing = graph) */
	struct hosttime_arm host;
};

/* Time per forward, per step or per image: the A arm's, the B arm's and the
 * saving A - B. */
struct summary_share {
	double a_ns, b_ns, saving_ns;
};

/* The span of clock readings (valid ones only) over some slots. */
struct summary_clocks {
	int readings;                  /* valid readings (two a slot at most) */
	int sm_lo_mhz, sm_hi_mhz, temp_hi_c; /* meaningful when readings > 0 */
	int throttled;                 /* slots with summary_slot.throttled */
};

struct summary_case {
	const struct results_case *c;
	/* The arms the case ran (results_case.arm_a, arm_b); own_arms when
	 * they are not the run's (a [case] with a and b of its own): printers
	 * name them beside the case. */
	const char *arm_a, *arm_b;
	bool own_arms;
	struct summary_arm a, b;
	struct stats_interval speedup; /* median(A) / median(B), SUMMARY_CI_LEVEL bootstrap interval;
					* low, high NAN under SUMMARY_MIN_SAMPLES an arm */
	bool improved;                 /* summary_beyond_noise(speedup, drift) */
	bool slower;                   /* the mirror: B slower than A beyond noise (interval below 1,
					* 1 / speedup - 1 above the drift) */
	double drift;                  /* largest |A_k - A1| / A1 over the later A slots (slot medians);
				        * NAN with fewer than two A slots */
	enum summary_drift drift_verdict; /* drift held to the profile's noise floor */
	enum summary_case_verdict verdict; /* the case's one verdict; a speedup is printed bold
					    * only when it is SUMMARY_CASE_FASTER */
	bool launch_bound;             /* an arm's host time per call exceeds its GPU time (a.host,
					* b.host say which, with both figures): a model calling it
					* eagerly waits on the host; the verdict stays the GPU's */
	int n_outputs, n_not_exact;    /* over every output of every slot */
	bool b_byte_equal;             /* every B slot's outputs equal the first A slot's bytes */
	bool a_deterministic;          /* every later A slot's outputs equal them too */
	bool ref_ok;                   /* every output with a reference within its tolerance */
	bool has_ref;                  /* every output had a reference: "no reference" otherwise, never "ok" */
	struct summary_share per_forward; /* count x median of each arm */
	struct summary_share per_step;    /* per_forward x the run's forwards_per_step */
	bool cache_resident;              /* its working set (bytes_min: every input and output once)
					   * fits the device's last-level cache (summary_run.cache_bytes):
					   * its traffic need not reach DRAM, so its GB/s is not held
					   * against the DRAM copy bandwidth (pct_copy NAN) */
	/* The case's floor: the copy floor measured in the run
	 * (results_case.copy_floor_*: a streaming copy of the case's minimum
	 * bytes, the fastest of the backend's methods, on its buffers under
	 * the arms' protocol), NAN where not measured (runs before schema 8):
	 * its median wall and kernel time; each arm's median over it (how many
	 * copies of the same bytes the arm costs; 1.00x is the copy); B's
	 * kernel median over the floor's kernel median; the floor's own GB/s
	 * and % of the copy bandwidth (NAN for a cache-resident case, as the
	 * arms'). It takes the place of bytes_min at the copy bandwidth, which
	 * no kernel of these sizes reaches (issue 24); a cache-resident case
	 * has one too: the copy's bytes are as cache-resident as the arms'. */
	double copy_floor_ns, copy_floor_kernel_ns;
	double a_over_copy, b_over_copy, b_kernel_over_copy;
	double a_kernel_over_copy;     /* A's kernel median over the floor's kernel median: how many
					* copies of the case's bytes the eager chain's kernels cost */
	struct bandwidth_arm copy_floor_bw;
	/* over every output of every slot (n_outputs, n_not_exact above) */
	int n_not_ref;                 /* outside the reference's tolerance */
	int n_no_ref;                  /* without a reference (not counted in n_not_ref) */
	double max_err_ratio;          /* the largest finite max_err_ratio; NAN when none */
	/* over every slot */
	int n_discarded;               /* samples the throttle probe dropped */
	double max_noise;              /* the largest slot noise (0 without slots) */
	double whisker_lo_ns, whisker_hi_ns; /* over every slot, the box plots' whiskers: the most
					      * extreme samples within 1.5 IQR of each slot's
					      * quartiles (a chart's shared y range); NAN without samples */
	struct summary_clocks clocks;
	int n_slots;
	struct summary_slot *slots;    /* in bracket order */
	/* where the bits differ, determinism, batch invariance (issue 29) */
	struct summary_divergence div;
	struct summary_determinism det;
	struct summary_case_invariance inv;
};

/* The cases one [case] was swept into (results_case.sweep and axis), in
 * ascending order along the axis. */
struct summary_sweep {
	const char *name, *axis;
	int n;
	int *idx;                      /* [n] into the run's cases */
	/* batch invariance over its cases (analysis/divergence.c): YES when
	 * every case was checked and equal; NO with the first case (in
	 * ascending order) and arm that broke it */
	enum summary_invariance invariance;
	int n_checked;                 /* cases whose rows were compared */
	int break_case;                /* NO: index into the run's cases; -1 */
	char break_arm;
	int64_t break_row, break_other; /* the row, the sweep value of the case it differs from */
	const char *break_tensor;
};

struct summary_run {
	const struct results_run *run;
	enum summary_detail detail;
	int n_cases;
	struct summary_case *cases;    /* in run order */
	int n_sweeps;
	struct summary_sweep *sweeps;  /* in the order of their first case */
	/* the model-level projection: sums over the cases; per_image is
	 * per_step x the run's steps */
	struct summary_share per_forward, per_step, per_image;
	double saving_fraction;        /* per_step.saving / per_step.a; NAN when a is 0 */
	bool have_model;               /* steps > 0 and forwards_per_step > 0 */
	struct bandwidth_ref copy;     /* the copy bandwidth GB/s are held against (bandwidth.h) */
	int64_t cache_bytes;           /* the device's last-level cache (results_device.l2_bytes: the
					* L2 of a GPU, the CPU backend's largest cache); 0: unknown */
	int n_discarded;               /* samples the throttle probe dropped, all slots */
	/* the run's verdict (the report's first line) and its counts */
	enum summary_verdict verdict;
	int n_verdict[SUMMARY_CASE_KINDS]; /* cases of each verdict */
	int n_not_byte_equal;          /* cases whose B outputs are not byte-equal to A1's */
	int n_nondeterministic;        /* cases an arm of which gave other outputs on another call */
	double min_speedup, max_speedup; /* over the cases whose verdict is FASTER; NAN when none */
	struct summary_clocks clocks;  /* over every slot of every case */
	int n_slots, min_slot_samples, max_slot_samples; /* samples a slot, over every slot */
	int n_outputs, n_not_exact, n_not_ref; /* over every output */
	int n_no_ref;                          /* outputs without a reference */
	double max_err_ratio;          /* the largest finite max_err_ratio; NAN when none */
	bool have_profile;             /* the command passed a device profile */
	struct summary_profile profile;
};

/* The NVML clock-event reasons a slot records (results_clocks, nvml.h's
 * nvmlClocksEventReason* bits), and which of them hold the clock down;
 * ends with a zero bit. */
struct summary_throttle_reason {
	unsigned long long bit;
	const char *name;
	bool slows;
};
extern const struct summary_throttle_reason summary_throttle_reasons[];

/* Computes every figure of r into out (which owns its arrays: release it
 * with summary_free, before r), held to the device profile p (NULL: none;
 * then the copy bandwidth is the run's measured one or unknown, and drift
 * is not judged). AB_ERR_NOMEM when out of memory. */
enum ab_rc summary_compute_profile(const struct results_run *r, enum summary_detail detail,
				   const struct summary_profile *p, struct summary_run *out, struct ab_diag *d);

/* summary_compute_profile without a profile (run's closing table, history). */
enum ab_rc summary_compute(const struct results_run *r, enum summary_detail detail, struct summary_run *out,
			   struct ab_diag *d);
void summary_free(struct summary_run *s);

/* Whether a speedup is an improvement beyond noise: its interval exists
 * and lies above 1 (beyond the sampling noise), and the speedup exceeds
 * the A arm's own drift within the bracket (beyond the machine's noise). */
bool summary_beyond_noise(const struct stats_interval *speedup, double drift);

/* "NOT BIT-EXACT", "INCONCLUSIVE", "SLOWER", "FASTER", "PARTLY FASTER",
 * "NO CLEAR CHANGE". */
const char *summary_verdict_str(enum summary_verdict v);

/* A case's verdict in words ("faster", "drifted (not trusted)", "lost
 * bit-exactness" ...) and as a key for CSV and JSON ("faster", "drifted",
 * "not_exact", "few_samples", "slower", "no_clear_change"). */
const char *summary_case_verdict_str(enum summary_case_verdict v);
const char *summary_case_verdict_key(enum summary_case_verdict v);

/* Whether a case's time is not to be trusted (drifted, too few samples). */
bool summary_case_untrusted(const struct summary_case *c);

/* Whether a clock-event reason mask names a reason that slows the clock. */
bool summary_throttle_slows(unsigned long long mask);

/* The case named name, NULL if the run has none. */
const struct summary_case *summary_find(const struct summary_run *s, const char *name);

#endif
