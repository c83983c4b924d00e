/*
 * cmd_diff.c - `abbench diff RUN CASE [--output NAME] [--format
 * text|markdown|json] [--out FILE|DIR]`: where a case's bits differ from
 * its first A slot's (analysis/divergence.h), printed by a printer
 * (print/diff_print.c, print/diff_json.c); with --out DIR the document
 * goes to DIR/diff.{txt,md,json} beside a PNG heatmap of each differing
 * tensor's per-row map (print/plot.h). Exit 0 whatever it finds (the
 * gate and run --require-exact judge); 2 for a run, case or tensor that
 * does not exist.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/divergence.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "common/diag.h"
#include "common/results_check.h"
#include "common/suggest.h"
#include "print/md.h"
#include "print/plot.h"
#include "print/printer.h"
#include "store/store.h"

static const enum printer_kind diff_kinds[] = { PRINTER_DIFF };

/* The case called name, or AB_ERR_USAGE with the nearest name or the list. */
static enum ab_rc find_case(const struct results_run *r, const char *name, const struct results_case **out,
			    struct ab_diag *d)
{
	const char *names[64];
	char list[512] = "";
	int n = 0;
	for (int i = 0; i < r->n_cases; i++) {
		if (!strcmp(r->cases[i].name, name)) {
			*out = &r->cases[i];
			return AB_OK;
		}
		if (n < 64)
			names[n++] = r->cases[i].name;
		if (strlen(list) + strlen(r->cases[i].name) + 3 < sizeof list)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", r->cases[i].name);
	}
	const char *near = suggest_nearest(name, names, n);
	if (near)
		return ab_fail(d, AB_ERR_USAGE, "run %lld has no case '%s' (did you mean '%s'?)", (long long)r->id, name, near);
	return ab_fail(d, AB_ERR_USAGE, "run %lld has no case '%s' (its cases: %s)", (long long)r->id, name, list);
}

/* Whether --out names a directory: one that exists, or a path ending in '/'. */
static bool out_is_dir(const char *out)
{
	struct stat st;
	size_t n = out ? strlen(out) : 0;
	return n && (out[n - 1] == '/' || (stat(out, &st) == 0 && S_ISDIR(st.st_mode)));
}

/* Every differing tensor's heatmap into dir: drawn[] says which; *note
 * why none were drawn. gnuplot failing on one is said, not fatal; an IO
 * error is. */
static enum ab_rc draw_heatmaps(const char *dir, const struct divergence_report *rep, bool *drawn, char *note,
				size_t note_len, struct ab_diag *d)
{
	char gnuplot[4096], why[256];
	bool have = plot_find_gnuplot(gnuplot, sizeof gnuplot, why, sizeof why);
	if (!have)
		snprintf(note, note_len, "not drawn: %s (the .dat and .gp files are written)", why);
	for (int s = 0; s < rep->n_slots; s++)
		for (int t = 0; t < rep->slots[s].n_tensors; t++) {
			const struct divergence_slot *sl = &rep->slots[s];
			const struct results_divergence *v = sl->tensors[t].v;
			char stem[96], title[256];
			heatmap_stem(sl->slot->label, v->tensor, stem, sizeof stem);
			snprintf(title, sizeof title, "%s, %s (%s): '%s' elements not byte-equal to A1 (%lld of %lld)",
				 rep->c->name, sl->slot->label, sl->slot->variant, v->tensor, (long long)v->n_diff,
				 (long long)v->elems);
			enum ab_rc rc = heatmap_write(dir, stem, title, v, have ? gnuplot : NULL, d);
			if (rc == AB_ERR_DATA) {
				snprintf(note, note_len, "%s", d->msg);
				continue;
			}
			if (rc)
				return rc;
			drawn[s * RESULTS_MAX_DIV + t] = have && v->map;
		}
	return AB_OK;
}

/* The report of the case, printed to --out FILE (or standard output), or
 * into --out DIR with its heatmaps. */
static enum ab_rc diff_case(const struct results_run *r, const struct results_case *c, const char *only,
			    const struct printer *p, const char *out, struct ab_diag *d)
{
	struct summary_run S;
	struct divergence_report rep;
	char note[512] = "", path[4096];
	bool drawn[RESULTS_MAX_SLOTS * RESULTS_MAX_DIV] = { false };
	enum ab_rc rc = summary_compute(r, SUMMARY_NO_INTERVALS, &S, d);
	if (rc)
		return rc;
	rc = divergence_report_of(r, c, only, &rep, d);
	const struct summary_case *sc = summary_find(&S, c->name);
	struct printer_diff pd = { .rep = &rep, .summary = &S, .sc = sc, .drawn = drawn };
	bool dir = out_is_dir(out);
	if (!rc && dir && (rc = md_mkdirs(out, d)) == AB_OK) {
		rc = draw_heatmaps(out, &rep, drawn, note, sizeof note, d);
		pd.heatmap_note = note[0] ? note : NULL;
		size_t n = strlen(out);
		while (n > 1 && out[n - 1] == '/')
			n--;
		if (snprintf(path, sizeof path, "%.*s/diff.%s", (int)n, out, !strcmp(p->name, "markdown") ? "md"
					     : !strcmp(p->name, "json") ? "json" : "txt") >= (int)sizeof path)
			rc = ab_fail(d, AB_ERR_USAGE, "output path too long in '%s'", out);
	}
	if (!rc) {
		struct printer_job job = { .diff = &pd };
		rc = printer_emit(p, PRINTER_DIFF, &job, dir ? path : out, d);
	}
	if (!rc && dir)
		fprintf(stderr, "abbench: diff written to '%s'\n", path);
	divergence_report_free(&rep);
	summary_free(&S);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	const char *db = NULL, *only = NULL;
	struct cli_output o = { 0 };
	const struct printer *p;
	enum printer_kind kind;
	output_help(&o, diff_kinds, 1, "text");
	const struct cli_option opts[] = {
		CLI_OPT_FORMAT(&o),
		{ "out", CLI_STRING, &o.out, "FILE|DIR",
		  "write to FILE (atomically) instead of standard output; a DIR (one that exists, or a path ending in "
		  "'/') gets the document as diff.txt, diff.md or diff.json and a PNG heatmap per differing tensor" },
		{ "output", CLI_STRING, &only, "NAME", "only this tensor (an output, or a statistic or scratch tensor both arms write)" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"diff", "RUN CASE", "where a case's outputs differ from the first A slot's, element by element",
		"For each slot not byte-equal to the first A slot (or whose outputs changed between its calls): the\n"
		"tensors it compared, in the eager chain's order, and the first that departs; for each tensor that\n"
		"differs, the elements that differ and their %, the distance in ULPs (ordered-integer distance) as a\n"
		"histogram 1 | 2 | 3-10 | 11-1000 | >1000, NaN/Inf/finite class mismatches, NaN payloads and sign flips,\n"
		"the largest ULP, the largest absolute difference and the first difference with their coordinates in\n"
		"the site's axes and the A, B and float64 reference values, the rows holding a difference, and which\n"
		"side the reference is nearer; then the case's determinism and its sweep's batch invariance.\n"
		"RUN is an id, a label, 'last' or set:ID. --format json is the abbench.diff document (docs/JSON.md).\n"
		"Exit 0 whatever it finds; 2 for a run, case or tensor that does not exist.",
		2, 2, opts,
	};
	const char *pos[2] = { NULL, NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (!output_pick(&o, "diff", diff_kinds, 1, "text", &p, &kind))
		return AB_EXIT_USAGE;
	struct ab_diag d;
	struct results_run *r;
	const struct results_case *c = NULL;
	enum ab_rc rc = store_load_spec(store_default_path(db), pos[0], &r, &d);
	if (rc)
		return cli_exit_rc(rc, &d, NULL);
	rc = find_case(r, pos[1], &c, &d);
	if (!rc)
		rc = diff_case(r, c, only, p, o.out, &d);
	results_run_free(r);
	return cli_exit_rc(rc, &d, "diff");
}
