/*
 * publish_steps.c - the dashboard's page of every step and the links its
 * pages share (publish_steps.h). The steps, their kinds and figures come
 * computed (analysis/history.h); this file arranges and escapes them.
 */
#include "print/publish_steps.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print/escape.h"
#include "print/md.h"
#include "print/trend.h"

void publish_commit(FILE *f, const struct publish_links *L, const char *commit)
{
	const char *shown = commit && commit[0] ? commit : "unknown";
	const char *at = L->commit_url ? strstr(L->commit_url, "{commit}") : NULL;
	if (!at || !commit || !commit[0] || !strcmp(commit, "unknown")) {
		html_printf(f, "<code>%s</code>", shown);
		return;
	}
	char bare[64];
	size_t n = strlen(commit), k = strlen("-dirty");
	snprintf(bare, sizeof bare, "%.*s", (int)(n >= k && !strcmp(commit + n - k, "-dirty") ? n - k : n), commit);
	/* the URL as text first (its parts escaped for a URL), then that text
	 * escaped for the attribute */
	char *url = NULL;
	size_t len = 0;
	FILE *u = open_memstream(&url, &len);
	if (!u) {
		html_printf(f, "<code>%s</code>", shown);
		return;
	}
	fprintf(u, "%.*s", (int)(at - L->commit_url), L->commit_url);
	escape_url_part(u, bare);
	fputs(at + strlen("{commit}"), u);
	fclose(u);
	html_printf(f, "<a class=\"commit\" href=\"%s\"><code>%s</code></a>", url, shown);
	free(url);
}

void publish_run(FILE *f, const struct publish_links *L, int64_t id)
{
	if (L->reports)
		fprintf(f, "<a href=\"runs/run-%" PRId64 "/report.html\">run %" PRId64 "</a>", id, id);
	else
		fprintf(f, "run %" PRId64, id);
}

const char *publish_step_class(const struct history *h, const struct history_series *s, int k)
{
	switch (history_step_kind(h, s, k, NULL)) {
	case HISTORY_STEP_SAME_COMMIT:
		return "noise";
	case HISTORY_STEP_IMPROVEMENT:
		return "better";
	default:
		return "bad";
	}
}

void publish_step_line(FILE *f, const struct history *h, const struct history_series *s, int k,
		       const struct publish_links *L)
{
	const struct steps_segment *a = &s->steps.segments[k - 1], *b = &s->steps.segments[k];
	const struct history_point *p = &s->points[b->start];
	char pct[32], from[48], to[48], kind[64], date[16];
	fprintf(f, "Step %s at ", md_pct(b->change, pct, sizeof pct));
	publish_run(f, L, p->run_id);
	fputs(" (commit ", f);
	publish_commit(f, L, p->commit);
	snprintf(date, sizeof date, "%.10s", p->started_at);
	html_printf(f, ", %s", date);
	if (p->label[0])
		html_printf(f, ", label %s", p->label);
	html_printf(f, "): %s -&gt; %s, %s", trend_level(h, a->level, from, sizeof from),
		    trend_level(h, b->level, to, sizeof to), trend_step_kind_words(h, s, k, kind, sizeof kind));
}

/* ---- steps.html ---- */

/* One step of the page: series i, step k. */
struct step_ref {
	int i, k;
	const char *when; /* the first run after it: its start */
};

static int newest_first(const void *pa, const void *pb)
{
	const struct step_ref *a = pa, *b = pb;
	int c = strcmp(b->when, a->when);
	return c ? c : (a->i - b->i) * 1000 + (a->k - b->k);
}

/* A run beside a step: its link, its commit's, its date and label. */
static void run_cell(FILE *f, const struct publish_links *L, const struct history_point *p)
{
	char when[24];
	fputs("<td>", f);
	publish_run(f, L, p->run_id);
	fputs("<br>", f);
	publish_commit(f, L, p->commit);
	snprintf(when, sizeof when, "%.10s %.5s", p->started_at, strlen(p->started_at) >= 16 ? p->started_at + 11 : "");
	html_printf(f, "<br><span class=\"muted\">%s", when);
	if (p->label[0])
		html_printf(f, ", %s", p->label);
	fputs("</span></td>", f);
}

static void step_row(FILE *f, const struct history *h, const struct step_ref *r, const struct publish_links *L)
{
	const struct history_series *s = &h->series[r->i];
	const struct steps_segment *a = &s->steps.segments[r->k - 1], *b = &s->steps.segments[r->k];
	char pct[32], from[48], to[48], kind[64], p[32];
	html_printf(f, "<tr class=\"step-%s\"><td>%s</td><td class=\"num\">%s</td><td><code>%s</code><br>%s</td><td><code>%s"
		       "</code> <span class=\"muted\">%s</span></td>",
		    publish_step_class(h, s, r->k), trend_step_kind_words(h, s, r->k, kind, sizeof kind),
		    md_pct(b->change, pct, sizeof pct), s->scenario, s->device, s->case_name, s->shape);
	run_cell(f, L, &s->points[b->start - 1]);
	run_cell(f, L, &s->points[b->start]);
	html_printf(f, "<td class=\"num\">%s -&gt; %s", trend_level(h, a->level, from, sizeof from),
		    trend_level(h, b->level, to, sizeof to));
	if (isnan(b->pvalue))
		snprintf(p, sizeof p, "n/a");
	else if (b->pvalue < 1e-6)
		snprintf(p, sizeof p, "&lt; 1e-6");
	else
		snprintf(p, sizeof p, "%.2g", b->pvalue);
	fprintf(f, "</td><td class=\"num\">%s</td></tr>\n", p);
}

static void steps_head(FILE *f, const char *title, const struct history *h, int n, const int *count)
{
	html_printf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s: every step"
		       "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n<header>\n<h1>%s",
		    title, title);
	fprintf(f, ": every step</h1>\n<p class=\"meta\"><a href=\"index.html\">Back to the dashboard</a>. %d step%s in "
		   "the history, newest first: <span class=\"bad\">%d regression%s</span>, <span class=\"better\">%d "
		   "improvement%s</span>, <span class=\"noise\">%d between runs of one commit (noise)</span>. Steps are "
		   "found by E-divisive means and kept where Welch's t gives p &lt; %g, %d runs on each side at least, "
		   "their runs' intervals apart and the change %.0f%% or more. Runs of one commit are A/A runs: a step "
		   "between two of them is their noise, never a regression, unless the scenario or the driver changed "
		   "with it.</p>\n</header>\n<main>\n",
		n, n == 1 ? "" : "s", count[HISTORY_STEP_REGRESSION], count[HISTORY_STEP_REGRESSION] == 1 ? "" : "s",
		count[HISTORY_STEP_IMPROVEMENT], count[HISTORY_STEP_IMPROVEMENT] == 1 ? "" : "s",
		count[HISTORY_STEP_SAME_COMMIT], STEPS_MAX_PVALUE, STEPS_MIN_RUNS, h->min_step * 100);
}

static void steps_body(FILE *f, const struct history *h, const struct step_ref *refs, int n,
		       const struct publish_links *L)
{
	if (!n) {
		fputs("<p class=\"muted\">No step in the history.</p>\n", f);
		return;
	}
	fputs("<table class=\"steps\">\n<tr><th>step</th><th>change</th><th>scenario, device</th><th>case</th>"
	      "<th>last run before</th><th>first run after</th><th>level</th><th>p</th></tr>\n", f);
	for (int j = 0; j < n; j++)
		step_row(f, h, &refs[j], L);
	fputs("</table>\n", f);
}

enum ab_rc publish_steps_write(const char *dir, const char *title, const struct history *h,
			       const struct publish_links *L, struct ab_diag *d)
{
	int n = 0, count[3] = { 0, 0, 0 };
	for (int i = 0; i < h->n_series; i++)
		n += h->series[i].steps.n_segments - 1;
	struct step_ref *refs = calloc((size_t)n + 1, sizeof *refs);
	if (!refs)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory for the steps page");
	n = 0;
	for (int i = 0; i < h->n_series; i++)
		for (int k = 1; k < h->series[i].steps.n_segments; k++) {
			const struct history_series *s = &h->series[i];
			refs[n++] = (struct step_ref){ i, k, s->points[s->steps.segments[k].start].started_at };
			count[history_step_kind(h, s, k, NULL)]++;
		}
	qsort(refs, (size_t)n, sizeof *refs, newest_first);
	struct md_file mf;
	char path[4096];
	enum ab_rc rc = snprintf(path, sizeof path, "%s/steps.html", dir) >= (int)sizeof path
				? ab_fail(d, AB_ERR_USAGE, "output directory name too long")
				: md_file_open(&mf, path, d);
	if (!rc) {
		steps_head(mf.f, title, h, n, count);
		steps_body(mf.f, h, refs, n, L);
		fputs("</main>\n<footer>abbench: A/B benchmarks of fused GPU kernels. Plain HTML and CSS; every link is "
		      "relative.</footer>\n</body>\n</html>\n", mf.f);
		rc = md_file_commit(&mf, d);
	}
	free(refs);
	return rc;
}
