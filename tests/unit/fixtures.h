/*
 * fixtures.h - runs built by hand and scratch directories, shared by the
 * unit tests (test_compare.c, test_export_csv.c, test_store*.c through
 * store_fixture.h).
 *
 * Each tests/unit/test_X.c is built alone against build/libabbench.a, so
 * the fixtures are static inline functions in this header (inline: a test
 * that uses only some of them gets no unused-function warning). Include it
 * after <cmocka.h>: the builders assert their allocations.
 *
 *   fake_run ...     a run of ABA cases on a deterministic fake timer, for
 *                    the tests that judge timings (compare, gate)
 *   synth_run        a two-case, three-slot run skeleton whose slots the
 *                    test fills, for the tests that write or read every
 *                    field back (store, CSV export)
 *   fx_summary ...   a run's summary (analysis/summary.h), malloc'd
 *   fx_tmpdir_*      a mkdtemp directory and its removal
 */
#ifndef AB_TEST_FIXTURES_H
#define AB_TEST_FIXTURES_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/summary.h"
#include "common/results.h"
#include "common/stats.h"

/* ---- a run on a deterministic fake timer ----
 *
 * Sample i of a slot is base * (1 + 0.002 * ((7 * i) % 11 - 5)): a fixed
 * pattern within +-1% of base, the same in every slot, so that scaling a
 * slot's base scales every statistic of it exactly (medians, quantiles and
 * their ratios are linear in the samples). */
static inline double fake_sample(double base, int i)
{
	return base * (1 + 0.002 * ((7 * i) % 11 - 5));
}

/* The slot's statistics from its samples, as the runner stores them (kernel
 * times are 0.9 of the wall times; min, max and mean too, which the row
 * check holds the quantiles against). */
static inline void fake_slot_stats(struct results_slot *s)
{
	int n = s->n_samples;
	s->min_ns = s->max_ns = n ? s->samples_ns[0] : 0;
	for (int i = 0; i < n; i++) {
		s->kernel_ns[i] = 0.9 * s->samples_ns[i];
		s->min_ns = s->samples_ns[i] < s->min_ns ? s->samples_ns[i] : s->min_ns;
		s->max_ns = s->samples_ns[i] > s->max_ns ? s->samples_ns[i] : s->max_ns;
	}
	s->mean_ns = stats_mean(s->samples_ns, n);
	s->median_ns = stats_median(s->samples_ns, n);
	s->p10_ns = stats_quantile(s->samples_ns, n, 0.1);
	s->p90_ns = stats_quantile(s->samples_ns, n, 0.9);
	s->noise = stats_stdev(s->samples_ns, n) / stats_mean(s->samples_ns, n);
}

/* One slot of n fake samples around base with one 8 KiB output 'out',
 * bit-exact or 17 elements off with another md5. */
static inline void fake_slot(struct results_slot *s, const char *label, char arm, const char *variant, int pos,
			     double base, int n, bool exact)
{
	memset(s, 0, sizeof *s);
	snprintf(s->label, sizeof s->label, "%s", label);
	s->arm = arm;
	snprintf(s->variant, sizeof s->variant, "%s", variant);
	s->position = pos;
	s->warmup = 2;
	s->n_samples = n;
	s->samples_ns = calloc((size_t)n + 1, sizeof *s->samples_ns);
	s->kernel_ns = calloc((size_t)n + 1, sizeof *s->kernel_ns);
	assert_non_null(s->samples_ns);
	assert_non_null(s->kernel_ns);
	for (int i = 0; i < n; i++)
		s->samples_ns[i] = fake_sample(base, i);
	fake_slot_stats(s);
	snprintf(s->stopping_reason, sizeof s->stopping_reason, "max_samples");
	s->n_outputs = 1;
	snprintf(s->outputs[0].tensor, sizeof s->outputs[0].tensor, "out");
	snprintf(s->outputs[0].md5, sizeof s->outputs[0].md5, "%s",
		 exact ? "0123456789abcdef0123456789abcdef" : "fedcba9876543210fedcba9876543210");
	s->outputs[0].bytes = 8192;
	s->outputs[0].bit_exact = exact;
	s->outputs[0].mismatches = exact ? 0 : 17;
	s->outputs[0].has_ref = s->outputs[0].ref_ok = true;
}

struct fake_case {
	const char *name;
	double a_ns, b_ns; /* base of the A slots and of the B slot */
	int n;             /* samples per slot */
	bool b_exact;
};

/* An 'ok' run of scenario on device, backend cpu, eager vs fused in ABA
 * brackets: per case A1 and A2 around a_ns (bit-exact) and B around b_ns.
 * Release with results_run_free. */
static inline struct results_run *fake_run(int64_t id, const char *scenario, const char *device,
				       const struct fake_case *fc, int n_cases)
{
	struct results_run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	r->id = id;
	snprintf(r->status, sizeof r->status, "ok");
	snprintf(r->scenario_name, sizeof r->scenario_name, "%s", scenario);
	snprintf(r->device.name, sizeof r->device.name, "%s", device);
	snprintf(r->backend, sizeof r->backend, "cpu");
	snprintf(r->arm_a, sizeof r->arm_a, "eager");
	snprintf(r->arm_b, sizeof r->arm_b, "fused");
	snprintf(r->bracket, sizeof r->bracket, "ABA");
	snprintf(r->git_commit, sizeof r->git_commit, "abc123");
	r->n_cases = n_cases;
	r->cases = calloc((size_t)n_cases + 1, sizeof *r->cases);
	assert_non_null(r->cases);
	for (int i = 0; i < n_cases; i++) {
		struct results_case *c = &r->cases[i];
		c->ordinal = i;
		snprintf(c->name, sizeof c->name, "%s", fc[i].name);
		snprintf(c->shape, sizeof c->shape, "1x16x256");
		c->count = 1;
		c->n_slots = 3;
		c->slots = calloc(3, sizeof *c->slots);
		assert_non_null(c->slots);
		fake_slot(&c->slots[0], "A1", 'a', "eager", 0, fc[i].a_ns, fc[i].n, true);
		fake_slot(&c->slots[1], "B", 'b', "fused", 1, fc[i].b_ns, fc[i].n, fc[i].b_exact);
		fake_slot(&c->slots[2], "A2", 'a', "eager", 2, fc[i].a_ns, fc[i].n, true);
	}
	return r;
}

/* ---- a synthetic run whose every field the test chooses ----
 *
 * Two bf16 cases: 0 is 'img, "big"' (ln_modulate, 1x4096x4096: a name
 * that CSV must quote), 1 is 'qk' (qk_layernorm, 1x4360x32x128); each has
 * slots A1 (arm a, eager), B (arm b, fused), A2 (arm a, eager) at positions
 * 0, 1, 2. fill_slot(slot, case index, slot index) sets the rest of each
 * slot; the run's header and the cases' eps, affine and count are the
 * test's to set. Release with results_run_free. */
static inline struct results_run *synth_run(void (*fill_slot)(struct results_slot *s, int ci, int si))
{
	static const char *const labels[] = { "A1", "B", "A2" };
	struct results_run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	r->n_cases = 2;
	r->cases = calloc(2, sizeof *r->cases);
	assert_non_null(r->cases);
	for (int ci = 0; ci < 2; ci++) {
		struct results_case *c = &r->cases[ci];
		c->ordinal = ci;
		snprintf(c->name, sizeof c->name, "%s", ci ? "qk" : "img, \"big\"");
		snprintf(c->site, sizeof c->site, "%s", ci ? "qk_layernorm" : "ln_modulate");
		snprintf(c->shape, sizeof c->shape, "%s", ci ? "1x4360x32x128" : "1x4096x4096");
		snprintf(c->dtype, sizeof c->dtype, "bf16");
		snprintf(c->input, sizeof c->input, "normal(mean=0, std=1)");
		c->n_slots = 3;
		c->slots = calloc(3, sizeof *c->slots);
		assert_non_null(c->slots);
		for (int si = 0; si < 3; si++) {
			struct results_slot *s = &c->slots[si];
			snprintf(s->label, sizeof s->label, "%s", labels[si]);
			s->arm = si == 1 ? 'b' : 'a';
			snprintf(s->variant, sizeof s->variant, "%s", si == 1 ? "fused" : "eager");
			s->position = si;
			fill_slot(s, ci, si);
		}
	}
	return r;
}

/* ---- summaries ---- */

/* The summary of r at the given detail; release with fx_summary_free
 * (before r). */
static inline struct summary_run *fx_summary(const struct results_run *r, enum summary_detail detail)
{
	struct summary_run *s = calloc(1, sizeof *s);
	struct ab_diag d = { "" };
	assert_non_null(s);
	if (summary_compute(r, detail, s, &d) != AB_OK)
		fail_msg("summary_compute: %s", d.msg);
	return s;
}

static inline void fx_summary_free(struct summary_run *s)
{
	summary_free(s);
	free(s);
}

/* ---- scratch directories ---- */

/* mkdtemp of /tmp/abbench_test_TAG_XXXXXX into dir; -1 on failure (a
 * cmocka setup's return value). */
static inline int fx_tmpdir_make(char *dir, size_t len, const char *tag)
{
	snprintf(dir, len, "/tmp/abbench_test_%s_XXXXXX", tag);
	return mkdtemp(dir) ? 0 : -1;
}

/* Removes dir with its files and empty subdirectories. */
static inline void fx_tmpdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			if (unlink(p) != 0)
				rmdir(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

#endif
