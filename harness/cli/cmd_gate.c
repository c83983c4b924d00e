/*
 * cmd_gate.c - `abbench gate [RUN] --baseline NAME|RUN`: the CI gate
 * (analysis/gate.c judges, print/gate_print.c prints; gate.h holds the rule: B judged against its own run's A arm,
 * with a noise floor from the A arm's drift and an absolute floor in ns
 * from the device profile or --min-change-ns). The exit status is the
 * contract: 0 every case passed, 1 a case regressed in time, lost
 * bit-exactness or is missing, 2 usage or data errors (no such baseline or
 * run, different scenario or device, a run not 'ok'), 3 failures, 4
 * inconclusive (too little evidence to pass: --quick, slots under
 * --min-samples, a partial run). The markdown verdict goes to stdout or --out; the cases that failed on time
 * alone go, one per line, to --failing-cases so that scripts/nightly.sh
 * can measure them again without parsing markdown.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gate.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/floors.h"
#include "cli/load.h"
#include "cli/output.h"
#include "common/diag.h"
#include "print/printer.h"
#include "store/store.h"

#define MAX_EXCLUDE 256

static const enum printer_kind gate_kinds[] = { PRINTER_GATE };

struct gate_args {
	const char *run, *baseline, *failing, *only, *exclude_file;
	struct cli_output out;
	const struct printer *p;
	double max_regression; /* NAN: from the device profile */
	double min_change_ns;  /* NAN: from the device profile */
	int min_samples;       /* 0: GATE_MIN_SAMPLES */
};

struct exclude_list {
	char names[MAX_EXCLUDE][64];
	const char *ptr[MAX_EXCLUDE];
	int n;
};

/* A baseline name first; else the spec as a run (id, label, 'last',
 * set:ID). */
static enum ab_rc load_baseline(struct store *st, const char *spec, struct results_run **base, bool *is_name,
				struct ab_diag *d)
{
	int64_t id;
	enum ab_rc rc = store_baseline_get(st, spec, &id, d);
	*is_name = !rc;
	if (!rc)
		return store_baseline_load(st, spec, base, d);
	if (rc != AB_ERR_DATA && rc != AB_ERR_USAGE)
		return rc;
	if ((rc = store_resolve_load(st, spec, base, d)) == AB_ERR_DATA && !store_set_spec(spec)) {
		char hint[160];
		store_name_hint(st, spec, true, true, hint, sizeof hint);
		return ab_fail(d, AB_ERR_DATA, "no baseline or run '%s'%s", spec,
			       hint[0] ? hint : " (see 'abbench baseline list' and 'abbench list')");
	}
	return rc;
}

/* Case names, one per line; blank lines and '#' comments skipped. */
static enum ab_rc read_exclude(const char *path, struct exclude_list *x, struct ab_diag *d)
{
	char line[256];
	int lineno = 0;
	enum ab_rc rc = AB_OK;
	FILE *f = fopen(path, "r");
	if (!f)
		return ab_fail(d, AB_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
	while (!rc && fgets(line, sizeof line, f)) {
		char *s = line, *e = line + strlen(line);
		lineno++;
		while (isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		if ((size_t)(e - s) >= sizeof x->names[0] || x->n == MAX_EXCLUDE)
			rc = ab_fail(d, AB_ERR_INPUT, "%s:%d: %s", path, lineno,
				     x->n == MAX_EXCLUDE ? "too many case names" : "case name too long");
		else {
			memcpy(x->names[x->n], s, (size_t)(e - s) + 1);
			x->ptr[x->n] = x->names[x->n];
			x->n++;
		}
	}
	if (!rc && ferror(f))
		rc = ab_fail(d, AB_ERR_IO, "cannot read '%s'", path);
	fclose(f);
	return rc;
}

/* The verdict in the printer asked for, and the failing cases as text. */
static enum ab_rc emit(const struct gate_args *a, const struct printer_gate *g, struct ab_diag *d)
{
	struct printer_job job = { .gate = g };
	enum ab_rc rc = printer_emit(a->p, PRINTER_GATE, &job, a->out.out, d);
	if (!rc && a->failing)
		rc = printer_emit(printer_find("text"), PRINTER_FAILING, &job, a->failing, d);
	return rc;
}

/* Gates run against base and writes the outputs; *status gets the verdict. */
static enum ab_rc judge(const struct gate_args *a, const struct summary_run *sbase, const struct summary_run *srun,
			const struct load_profile *lp, const char *base_name, int *status, struct ab_diag *d)
{
	const struct results_run *base = sbase->run, *run = srun->run;
	struct exclude_list *x = calloc(1, sizeof *x);
	struct gate_options o = { .baseline_name = base_name, .only = a->only, .min_samples = a->min_samples };
	struct gate_result res = { 0 };
	struct floors L = { 0 };
	enum ab_rc rc = x ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory");
	if (!rc && a->exclude_file)
		rc = read_exclude(a->exclude_file, x, d);
	if (!rc)
		rc = floors_resolve(a->max_regression, a->min_change_ns, run, lp, "gate", &L, d);
	o.max_regression_pct = L.pct;
	o.threshold_source = L.pct_src;
	o.machine_moved_pct = L.moved_pct;
	o.machine_moved_source = L.moved_src;
	o.min_change_ns = L.min_ns;
	o.min_change_source = L.min_src;
	o.exclude = x ? x->ptr : NULL;
	o.n_exclude = x ? x->n : 0;
	if (!rc)
		rc = gate_check(sbase, srun, &o, &res, d);
	struct printer_gate g = { base, run, &o, &res };
	if (!rc)
		rc = emit(a, &g, d);
	if (!rc) {
		enum gate_overall v = gate_overall(&res);
		*status = gate_exit_status(&res);
		fprintf(stderr, "gate: %s (%d of %d cases failed, %d inconclusive, %d not measured)\n",
			v == GATE_OVERALL_PASS ? "pass" : gate_overall_str(v), res.n_failed, res.n_cases, res.n_inconclusive,
			res.n_not_measured);
	}
	gate_result_free(&res);
	free(x);
	return rc;
}

/* Summarises both runs (no A/B intervals: the gate does not print them)
 * with their devices' profiles, looked up once each, then judges. */
static enum ab_rc summarise_and_judge(const struct gate_args *a, const struct results_run *base,
				      const struct results_run *run, const char *base_name, int *status,
				      struct ab_diag *d)
{
	struct summary_run sb, sr;
	struct load_profile lp_base, lp_run;
	load_profile(base, &lp_base);
	load_profile(run, &lp_run);
	load_profile_warn(&lp_base, "gate", "the baseline's bandwidth is held against its measured copy only");
	if (!isnan(a->max_regression) && !isnan(a->min_change_ns))
		load_profile_warn(&lp_run, "gate", "the run's bandwidth is held against its measured copy only");
	enum ab_rc rc = load_summary(base, SUMMARY_NO_INTERVALS, &lp_base, &sb, d);
	if (rc)
		return rc;
	if (!(rc = load_summary(run, SUMMARY_NO_INTERVALS, &lp_run, &sr, d))) {
		rc = judge(a, &sb, &sr, &lp_run, base_name, status, d);
		summary_free(&sr);
	}
	summary_free(&sb);
	return rc;
}

static enum ab_rc gate_in(struct store *st, const struct gate_args *a, int *status, struct ab_diag *d)
{
	struct results_run *base = NULL, *run = NULL;
	bool is_name;
	enum ab_rc rc = load_baseline(st, a->baseline, &base, &is_name, d);
	if (!rc)
		rc = store_resolve_load(st, a->run, &run, d);
	if (!rc)
		rc = summarise_and_judge(a, base, run, is_name ? a->baseline : NULL, status, d);
	results_run_free(base);
	results_run_free(run);
	return rc;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_args a = { .max_regression = NAN, .min_change_ns = NAN };
	const char *db = NULL;
	const struct cli_option opts[] = {
		{ "baseline", CLI_STRING, &a.baseline, "NAME|RUN", "baseline name (abbench baseline set) or run; required" },
		{ "max-regression", CLI_DOUBLE, &a.max_regression, "PCT", "fail above this slowdown of B relative to A, in percent (default: device profile)" },
		{ "min-change-ns", CLI_DOUBLE, &a.min_change_ns, "NS", "fail only when B also moved by more than NS nanoseconds; 0: no absolute floor (default: device profile)" },
		CLI_OPT_FORMAT(&a.out),
		CLI_OPT_OUT(&a.out, "a reader sees the old file or the whole new one"),
		CLI_OPT_JSON_ALIAS(&a.out),
		{ "failing-cases", CLI_STRING, &a.failing, "FILE", "write the cases that regressed in time (only those), one per line" },
		{ "only", CLI_STRING, &a.only, "CASE", "gate only this case (after `abbench run --only CASE`)" },
		{ "min-samples", CLI_INT, &a.min_samples, "N", "a case with a slot under N samples cannot pass: INCONCLUSIVE (default 10)" },
		{ "exclude-cases", CLI_STRING, &a.exclude_file, "FILE", "leave out the cases listed in FILE, one per line" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"gate", "[RUN]", "gate a run against a baseline: exit 1 on regression or lost bit-exactness",
		"RUN defaults to the newest run. Each case's B arm is judged against its own run's A arm:\n"
		"change = (median B / median A) in RUN over the same in the baseline, minus 1. A case fails when\n"
		"that change exceeds PCT percent and the A arm's own drift (max |A_k - A1| / A1 of either run),\n"
		"that change times the baseline's median B exceeds NS nanoseconds (the timer's absolute floor),\n"
		"and a block bootstrap of B/A over both runs gives p < 0.01 (when the A arm itself moved between\n"
		"the runs by more than the device profile's threshold, raw B must be slower too; that bar stays\n"
		"put whatever PCT is, so a case that fails at PCT fails at every smaller PCT); when it\n"
		"lost bit-exactness; or when it is missing. Where the A arm's variant differs between the runs,\n"
		"raw B times are judged instead. A case that did not fail but has a slot under --min-samples\n"
		"samples, a run or baseline made with --quick, or a partial run (run --only) lacking cases\n"
		"cannot pass: INCONCLUSIVE. Exit 0 pass, 1 fail, 2 usage or data error (unknown baseline or\n"
		"run, different scenario or device, a run not 'ok'), 3 failure, 4 inconclusive.\n"
		"Rule: docs/REPORTS.md. --format json is the abbench.gate document (docs/JSON.md).",
		0, 1, opts,
	};
	const char *pos[1] = { NULL };
	int n_pos, status = AB_EXIT_OK;
	enum printer_kind kind;
	output_help(&a.out, gate_kinds, 1, "markdown");
	enum cli_result cr = cli_parse(&spec, argc, argv, pos, &n_pos);
	if (cr != CLI_OK)
		return cr == CLI_HELP_SHOWN ? cli_finish(0) : AB_EXIT_USAGE;
	if (!a.baseline) {
		ab_error("gate: --baseline NAME|RUN is required");
		return AB_EXIT_USAGE;
	}
	if (!output_pick(&a.out, "gate", gate_kinds, 1, "markdown", &a.p, &kind))
		return AB_EXIT_USAGE;
	if (!isnan(a.max_regression) && !(a.max_regression > 0)) {
		ab_error("gate: --max-regression must be a positive percentage, not %g", a.max_regression);
		return AB_EXIT_USAGE;
	}
	if (a.min_samples < 0) {
		ab_error("gate: --min-samples must be 0 or more, not %d", a.min_samples);
		return AB_EXIT_USAGE;
	}
	if (!isnan(a.min_change_ns) && !(a.min_change_ns >= 0)) {
		ab_error("gate: --min-change-ns must be 0 or more nanoseconds, not %g", a.min_change_ns);
		return AB_EXIT_USAGE;
	}
	a.run = n_pos ? pos[0] : NULL;

	struct ab_diag d;
	struct store *st;
	enum ab_rc rc = store_open_readonly(store_default_path(db), &st, &d);
	if (!rc) {
		rc = gate_in(st, &a, &status, &d);
		store_close(st);
	}
	if (rc) {
		ab_error("gate: %s", d.msg);
		return ab_rc_exit_status(rc);
	}
	return cli_finish(status);
}
