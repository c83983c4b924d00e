/*
 * scenario.h - an INI scenario, parsed and validated before any work starts.
 *
 * Format (README "Scenario format" is the user documentation):
 *
 *   [scenario]  name, description, backend (auto|cpu|cuda), dtype (bf16),
 *               bracket (A and B letters, starts and ends with A: ABA, ABABA),
 *               seed, warmup, min_samples, max_samples, min_time_ms,
 *               max_time_ms, target_noise, l2_flush (true|false),
 *               launch_gaps (include|hide), timing (events|graph), input, input_mean, input_std,
 *               input_low, input_high, input_value (defaults for every case)
 *   [arms]      a = ARM, b = ARM: a registered variant of each case's site,
 *               the NAME of an [arm NAME] section, or a shortcut
 *               KIND:PATH:NAME (plugin:PATH:ARM)
 *   [arm NAME]  a user arm: type = its kind, site, and the kind's keys, kept
 *               as records (config/arm_spec.h) that the kind checks
 *               (harness/arms/arm_kind.h, docs/PLUGINS.md)
 *   [model]     steps, forwards_per_step
 *   [case NAME] site, shape (1x4096x4096), eps, affine (true|false),
 *               count (launch sites per forward), input overrides as above
 *
 * Sweeps: one dimension of a case's shape may list values in braces,
 * `1x{256,1024,4096}x4096` or a range `1x{256:16384:x2}x4096` (x: times,
 * +: plus); the case is expanded, in place and in value order, into one case
 * per value named `NAME[T=1024]` (the axis letter from the site's shape),
 * which records the sweep it came from. SCENARIO_SWEEP_MAX values per
 * sweep, SCENARIO_CASES_MAX cases per scenario once expanded.
 *
 * Every error names file:line and the key and leaves nothing half-built: on
 * failure scn_parse frees what it made and returns AB_ERR_INPUT.
 */
#ifndef AB_SCENARIO_H
#define AB_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "common/diag.h"
#include "config/arm_spec.h"
#include "kernels/common/site.h"

#define SCENARIO_NAME_MAX 64
#define SCENARIO_BRACKET_MAX 16
#define SCENARIO_SWEEP_MAX 64    /* values of one swept dimension */
#define SCENARIO_CASES_MAX 1024  /* cases of a scenario, sweeps expanded */

enum scenario_dist {
	SCENARIO_DIST_NORMAL,   /* input_mean + input_std * N(0,1) */
	SCENARIO_DIST_UNIFORM,  /* uniform in [input_low, input_high) */
	SCENARIO_DIST_CONSTANT, /* every element input_value */
	SCENARIO_DIST_SPECIAL,  /* normal, with NaN, +-Inf, bf16 subnormals, +-max finite injected */
};

/* The stopping rule's noise (stopping.h): the relative half-width of the
 * median's confidence interval (the default), or stdev / mean (the rule
 * before it, kept selectable for one release to compare the two). */
enum scenario_noise { SCENARIO_NOISE_MEDIAN, SCENARIO_NOISE_MEAN };

struct scenario_input {
	enum scenario_dist dist;
	double mean, std;  /* normal, special */
	double low, high;  /* uniform */
	double value;      /* constant */
};

struct scenario_case {
	char name[SCENARIO_NAME_MAX];
	const struct site_desc *site;
	struct site_shape shape;
	struct site_dims dims;
	double eps;
	bool affine;
	int count;          /* how many times the site runs per forward */
	struct scenario_input input;
	int line;           /* where [case NAME] starts, for messages */
	char sweep[SCENARIO_NAME_MAX]; /* the swept case's own name; "" when not swept */
	char axis[8];       /* the swept dimension's letter ("T"); "" when not swept */
	int64_t axis_value; /* its value in this case; 0 when not swept */
};

struct scenario_sampling {
	int warmup;
	int min_samples;
	int max_samples;
	double min_time_ms;
	double max_time_ms;
	double target_noise; /* relative, e.g. 0.005 */
	enum scenario_noise noise; /* what target_noise is compared with */
};

struct scenario {
	char path[4096];
	char *text;         /* the file's bytes, stored with the run */
	char hash[65];      /* sha256 hex of text */
	char name[SCENARIO_NAME_MAX];
	char description[256];
	const char *backend; /* BACKEND_AUTO or a backend's name (backend_choice_parse) */
	char dtype[8];      /* "bf16" */
	char bracket[SCENARIO_BRACKET_MAX + 1];
	uint64_t seed;
	struct scenario_sampling sampling;
	bool l2_flush;
	enum backend_launch_gaps launch_gaps;
	enum backend_timing timing; /* events, or graph: launch-free times (backend.h) */
	char arm_a[32], arm_b[32]; /* variant names, or user arms' names */
	int n_arms;
	struct arm_spec *arms;     /* the [arm NAME] sections, then the KIND:PATH:NAME shortcuts */
	int arm_ref[2];            /* index in arms of arm a and of arm b; -1: a built-in variant */
	int steps, forwards_per_step;
	int n_cases;
	struct scenario_case *cases;
};

/* Parses and validates the file at path. On success *out owns its memory
 * (release with scenario_free). */
enum ab_rc scenario_parse_file(const char *path, struct scenario **out, struct ab_diag *d);

/* Same, from text in memory; path is only used in messages. */
enum ab_rc scenario_parse_text(const char *path, const char *text, struct scenario **out, struct ab_diag *d);

void scenario_free(struct scenario *s);

/* Keeps only the cases that `run --only` names, in their order: patterns is
 * a comma-separated list of case names or fnmatch(3) globs ("img_*",
 * "qk_layernorm[[]T=*"); a name equal to a pattern matches it even when
 * the pattern reads as a glob (so "img_ln_modulate[T=1024]" names that
 * case). AB_ERR_USAGE when some pattern matches no case. */
enum ab_rc scenario_keep_only(struct scenario *s, const char *patterns, struct ab_diag *d);

/* The site called name for this scenario, NULL when it has none: the
 * registry's (kernels/registry.c) today. Every lookup of a site by name
 * (cases, [arm] sections, a plugin's arm) goes through here, so sites a
 * scenario declares can join them. */
const struct site_desc *scenario_site_find(const struct scenario *s, const char *name);

const char *scenario_noise_str(enum scenario_noise n);

/* Whether s can name a scenario, a case or an arm: letters, digits, '_',
 * '-' and '.' (safe in file names, NVTX ranges and reports). */
bool scenario_name_ok(const char *s);

const char *scenario_dist_str(enum scenario_dist d);
/* "normal(mean=0,std=1)" and the like, for the store and reports. */
void scenario_input_describe(const struct scenario_input *in, char *buf, size_t len);

#endif
