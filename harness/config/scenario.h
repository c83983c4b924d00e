/*
 * scenario.h - an INI scenario, parsed and validated before any work starts.
 *
 * Format (docs/SCENARIO_FORMAT.md is the user documentation):
 *
 *   [scenario]  name, description, include (site files), backend (auto|cpu|cuda), dtype (bf16),
 *               bracket (A and B letters, starts and ends with A: ABA, ABABA),
 *               seed, warmup, min_samples, max_samples, min_time_ms,
 *               max_time_ms, target_noise, noise_measure, rounds (1..1000),
 *               l2_flush (true|false),
 *               launch_gaps (include|hide), timing (events|graph), input, input_mean, input_std,
 *               input_low, input_high, input_value (defaults for every case),
 *               input.TENSOR = GENERATOR (every case's tensor of that name)
 *   [arms]      a = ARM, b = ARM: a registered variant of each case's site,
 *               the NAME of an [arm NAME] section, or a shortcut
 *               KIND:PATH:NAME (plugin:PATH:ARM)
 *   [site NAME] a declared site (docs/SITES.md): summary, axes, tensors
 *               (NAME:DTYPE:AXES:ROLE, ...) and tensor.NAME lines, require,
 *               input.TENSOR defaults; here or in an included site file
 *   [arm NAME]  a user arm: type = its kind, site, and the kind's keys, kept
 *               as records (config/arm_spec.h) that the kind checks
 *               (harness/arms/arm_kind.h, docs/PLUGINS.md)
 *   [model]     steps, forwards_per_step
 *   [case NAME] site, shape (1x4096x4096), eps, affine (true|false),
 *               count (launch sites per forward), input overrides as above,
 *               a and b (this case's arms, as in [arms]), invariance (rows: a swept
 *               case's rows compared across its sweep, run/invariance.h)
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
#include "config/expr.h"
#include "kernels/common/site.h"

#define SCENARIO_NAME_MAX 64
#define SCENARIO_BRACKET_MAX 16
#define SCENARIO_ROUNDS_MAX 1000 /* rounds of a bracket (sampling.rounds) */
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

/* How one input tensor is drawn: input.NAME = normal(0, 0.1) in [case],
 * [scenario] or [site] (the first of these that names it), else the
 * case's distribution (NONE: the case's input, or a built-in parameter's
 * own). randint draws integers lo <= v < hi, its bounds expressions of
 * the site's axes, evaluated per case. */
enum scenario_gen_kind {
	SCENARIO_GEN_NONE,
	SCENARIO_GEN_NORMAL,   /* a: mean, b: std */
	SCENARIO_GEN_UNIFORM,  /* a: low, b: high */
	SCENARIO_GEN_CONSTANT, /* a: the value */
	SCENARIO_GEN_SPECIAL,  /* a: mean, b: std */
	SCENARIO_GEN_RANDINT,  /* lo, hi */
};

struct scenario_gen {
	enum scenario_gen_kind kind;
	double a, b;
	int64_t lo, hi;                  /* randint, for this case */
	const struct expr *lo_e, *hi_e;  /* randint's bounds (the scenario's) */
	int line;                        /* of its input.NAME key, for messages */
	const char *file;                /* the file of that key (a site's may be an included one) */
};

/* A site the scenario declares ([site NAME], docs/SITES.md), owned by the
 * scenario: desc is what every lookup (scenario_site_find) returns. */
struct scenario_site {
	struct site_desc desc;
	char file[512];    /* the file that declares it, as the scenario names it */
	int line;          /* its [site NAME] line */
	char name[32];
	char summary[200];
	char shape_help[400];
	char declared_at[540];
	char axis[SITE_MAX_RANK][SITE_AXIS_NAME_MAX];
	char tensor[SITE_MAX_TENSORS][32];
	int n_require;
	struct expr require[8];
	char require_text[8][200];
	int n_keys;        /* its key = value lines as read, built once the file is read */
	struct arm_spec_key *keys;
};

/* invariance = rows in a swept [case]: whether row r of every output is
 * the same in every case of the sweep (run/invariance.h). */
enum scenario_invariance { SCENARIO_INVARIANCE_NONE, SCENARIO_INVARIANCE_ROWS };

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
	char arm_a[ARM_SPEC_NAME_MAX], arm_b[ARM_SPEC_NAME_MAX]; /* its arms: its own a and b, else [arms]'s */
	int arm_ref[2];     /* index in scenario.arms of arm a and b; -1: a built-in variant */
	int arm_line[2];    /* the line that names each ([case]'s a or b, else [arms]'s, else the case's) */
	struct scenario_gen gen[SITE_MAX_TENSORS]; /* per tensor of its site: how an input is drawn */
	char sweep[SCENARIO_NAME_MAX]; /* the swept case's own name; "" when not swept */
	char axis[8];       /* the swept dimension's letter ("T"); "" when not swept */
	int64_t axis_value; /* its value in this case; 0 when not swept */
	enum scenario_invariance invariance; /* rows: its sweep's inputs drawn from the sweep's seed, rows compared */
};

struct scenario_sampling {
	int warmup;
	int min_samples;
	int max_samples;
	double min_time_ms;
	double max_time_ms;
	double target_noise; /* relative, e.g. 0.005 */
	enum scenario_noise noise; /* what target_noise is compared with */
	int rounds;          /* the bracket measured this many times over, each slot's time and
			      * samples shared among them (1: each slot in one stretch) */
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
	enum backend_timing timing; /* events, graph (launch-free times) or cpu (the CPU clock): backend.h */
	/* The run's arms: [arms]'s a and b (eager and fused when not given);
	 * "" for a side no case runs (every case names its own). Each case's
	 * own are in scenario_case. */
	char arm_a[32], arm_b[32];
	int n_arms;
	struct arm_spec *arms;     /* the [arm NAME] sections, then the KIND:PATH:NAME shortcuts */
	int arm_ref[2];            /* index in arms of [arms]'s a and b; -1: a built-in variant (or none) */
	int n_sites;
	struct scenario_site **sites; /* declared sites, in the order read (included files where included) */
	int n_exprs;
	struct expr **exprs;       /* expressions cases point at (randint bounds, arms' bytes) */
	int steps, forwards_per_step;
	int n_cases;
	struct scenario_case *cases;
};

/* Parses and validates the file at path. On success *out owns its memory
 * (release with scenario_free). */
enum ab_rc scenario_parse_file(const char *path, struct scenario **out, struct ab_diag *d);

/* The same for a file that may have no case (`abbench sites FILE`: a site
 * file, or a scenario): its sites declared and checked. */
enum ab_rc scenario_parse_sites(const char *path, struct scenario **out, struct ab_diag *d);

/* Same, from text in memory; path is only used in messages. */
enum ab_rc scenario_parse_text(const char *path, const char *text, struct scenario **out, struct ab_diag *d);

void scenario_free(struct scenario *s);

/* Keeps only the cases that `run --only` names, in their order: patterns is
 * a comma-separated list of case names or fnmatch(3) globs ("img_*",
 * "qk_layernorm[[]T=*"); a name equal to a pattern matches it even when
 * the pattern reads as a glob (so "img_ln_modulate[T=1024]" names that
 * case). AB_ERR_USAGE when some pattern matches no case. */
enum ab_rc scenario_keep_only(struct scenario *s, const char *patterns, struct ab_diag *d);

/* The site called name for this scenario, NULL when it has none: one it
 * declares, else the registry's (kernels/registry.c; a declared site may
 * not shadow one). Every lookup of a site by name (cases, [arm] sections,
 * a plugin's arm) goes through here. */
const struct site_desc *scenario_site_find(const struct scenario *s, const char *name);

/* "ln_modulate, ..., scale_shift": the registry's sites and s's, for
 * messages. */
void scenario_site_names(const struct scenario *s, char *buf, size_t len);

const char *scenario_noise_str(enum scenario_noise n);

/* Whether s can name a scenario, a case or an arm: letters, digits, '_',
 * '-' and '.' (safe in file names, NVTX ranges and reports). */
bool scenario_name_ok(const char *s);

const char *scenario_dist_str(enum scenario_dist d);
/* The case's input as scenario_input_describe writes it, then each tensor
 * drawn otherwise: "normal(mean=0,std=1) scale=normal(0,0.5)"; "..." at
 * the end when it does not fit. */
void scenario_case_describe_input(const struct scenario_case *c, char *buf, size_t len);
/* "normal(mean=0,std=1)" and the like, for the store and reports. */
void scenario_input_describe(const struct scenario_input *in, char *buf, size_t len);

#endif
