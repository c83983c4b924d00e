/*
 * scenario.h - an INI scenario, parsed and validated before any work starts.
 *
 * Format (README "Scenario format" is the user documentation):
 *
 *   [scenario]  name, description, backend (auto|cpu|cuda), dtype (bf16),
 *               bracket (A and B letters, starts and ends with A: ABA, ABABA),
 *               seed, warmup, min_samples, max_samples, min_time_ms,
 *               max_time_ms, target_noise, l2_flush (true|false),
 *               launch_gaps (include|hide), input, input_mean, input_std,
 *               input_low, input_high, input_value (defaults for every case)
 *   [arms]      a = ARM, b = ARM: a registered variant of each case's site,
 *               the NAME of an [arm NAME] section, or plugin:PATH:ARM
 *   [arm NAME]  a user arm: a plugin library's arm or a compiled GPU binary
 *               (config/arm_spec.h, docs/PLUGINS.md)
 *   [model]     steps, forwards_per_step
 *   [case NAME] site, shape (1x4096x4096), eps, affine (true|false),
 *               count (launch sites per forward), input overrides as above
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

enum scenario_dist {
	SCENARIO_DIST_NORMAL,   /* input_mean + input_std * N(0,1) */
	SCENARIO_DIST_UNIFORM,  /* uniform in [input_low, input_high) */
	SCENARIO_DIST_CONSTANT, /* every element input_value */
	SCENARIO_DIST_SPECIAL,  /* normal, with NaN, +-Inf, bf16 subnormals, +-max finite injected */
};

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
};

struct scenario_sampling {
	int warmup;
	int min_samples;
	int max_samples;
	double min_time_ms;
	double max_time_ms;
	double target_noise; /* relative, e.g. 0.005 */
};

struct scenario {
	char path[4096];
	char *text;         /* the file's bytes, stored with the run */
	char hash[65];      /* sha256 hex of text */
	char name[SCENARIO_NAME_MAX];
	char description[256];
	enum backend_choice backend;
	char dtype[8];      /* "bf16" */
	char bracket[SCENARIO_BRACKET_MAX + 1];
	uint64_t seed;
	struct scenario_sampling sampling;
	bool l2_flush;
	enum backend_launch_gaps launch_gaps;
	char arm_a[32], arm_b[32]; /* variant names, or user arms' names */
	int n_arms;
	struct arm_spec *arms;     /* the [arm NAME] sections, then the plugin:PATH:ARM shortcuts */
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

/* Keeps only the case named case_name (for `run --only`); AB_ERR_USAGE when
 * no case has that name. */
enum ab_rc scenario_keep_only(struct scenario *s, const char *case_name, struct ab_diag *d);

const char *scenario_dist_str(enum scenario_dist d);
/* "normal(mean=0,std=1)" and the like, for the store and reports. */
void scenario_input_describe(const struct scenario_input *in, char *buf, size_t len);

#endif
