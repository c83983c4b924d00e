/*
 * publish.c - a static HTML dashboard of the stored history (printer.h's
 * publish_write): plain HTML and CSS, no script, no server; every link and
 * image is relative to DIR (no absolute path of this machine is written),
 * so the directory works from file:// and from any static host:
 *
 *   DIR/index.html      the dashboard
 *   DIR/steps.html      every step of the history, newest first, with the
 *                       runs either side of it and their commits
 *   DIR/style.css       its style sheet
 *   DIR/charts/         one trend chart per case (print/trend.h)
 *   DIR/runs/run-ID/    the full report of each scenario and device's
 *                       newest run (print/report.h), linked from the page
 *
 * The page: a matrix of scenarios x devices (each cell: cases, steps, the
 * newest run, a link to its section), then a section per scenario and
 * device (those with a step first) with the newest run's commit, date and
 * report link, and a card per case: its trend chart (or why there is
 * none), its latest figures (A and B medians, speedup with its 95%
 * interval, bit-exact, samples) and the steps found in its history. Every
 * text from the database goes through escape_html (html_printf's %s), a
 * commit put into the --commit-url template through escape_url_part.
 * Past TREND_CHARTS_MAX cases the cards of a sweep's cases share its one
 * chart (print/trend.h), so the directory holds a bounded number of files.
 */
#include "print/printer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/summary.h"
#include "common/outfile.h"
#include "print/escape.h"
#include "print/md.h"
#include "print/report.h"
#include "print/trend.h"

/* What the page says of each group: its newest run and summary, the path
 * of its report ("" when none was written) and why there is none. */
struct pub_group {
	const struct history_group *g;
	const struct summary_run *summary; /* of the newest run, NULL: none */
	char report[128];
	char report_note[256];
};

struct publish_input {
	const struct printer_dashboard *dash;
	const struct history *history;
	const struct trend_outcome *charts; /* stems under "charts/" */
	const struct pub_group *groups;     /* [dash->n_groups] */
	int n_steps;                        /* the history's steps, newest first */
	struct history_step_ref *steps;
	int count[3];                       /* of each enum history_step_kind */
};

static const char style_css[] =
	"/* abbench dashboard: plain CSS, no script */\n"
	":root { --ink: #1d2430; --muted: #5b6575; --line: #d8dde5; --accent: #1f4e9c; --bad: #c0392b;"
	" --good: #2a9d3a; --bg: #f6f7f9; }\n"
	"* { box-sizing: border-box; }\n"
	"body { margin: 0; font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;"
	" color: var(--ink); background: var(--bg); }\n"
	"header, main, footer { max-width: 1500px; margin: 0 auto; padding: 0 24px; }\n"
	"header { padding-top: 20px; }\n"
	"h1 { font-size: 24px; margin: 0 0 4px; }\n"
	"h2 { font-size: 19px; margin: 32px 0 6px; padding-top: 8px; border-top: 2px solid var(--line); }\n"
	"h3 { font-size: 16px; margin: 0 0 6px; }\n"
	"p.meta, .muted { color: var(--muted); }\n"
	"code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }\n"
	"table { border-collapse: collapse; background: #fff; }\n"
	"th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }\n"
	"th { background: #eef1f5; font-weight: 600; }\n"
	"table.matrix td a { font-weight: 600; }\n"
	"td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	".cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 16px; }\n"
	".card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 14px; }\n"
	".card.step { border-left: 5px solid var(--bad); }\n"
	".card.up { border-left: 5px solid var(--good); }\n"
	".card img { width: 100%; max-width: 720px; height: auto; display: block; margin: 4px 0 8px;"
	" border: 1px solid #eee; }\n"
	"body.report main { max-width: 1100px; background: #fff; padding: 12px 24px; }\n"
	"body.report img { max-width: 100%; height: auto; }\n"
	"body.report table { margin: 8px 0; font-size: 13px; }\n"
	"details.runs { margin: 4px 0 12px; }\n"
	".card table { width: 100%; font-size: 14px; }\n"
	".shape { color: var(--muted); font-weight: normal; font-size: 14px; }\n"
	".better { color: var(--good); font-weight: 700; }\n"
	".bad { color: var(--bad); font-weight: 700; }\n"
	"ul.steps { margin: 6px 0 0; padding-left: 20px; }\n"
	"ul.steps li.bad { color: var(--bad); }\n"
	"ul.steps li.better { color: var(--good); }\n"
	"ul.steps li.noise, .noise { color: #6b7280; }\n"
	".card.noise { border-left: 5px solid #9aa3ae; }\n"
	"ul.steps li a, table.steps a { color: inherit; }\n"
	"a.commit code { text-decoration: underline dotted; }\n"
	".card object { width: 100%; max-width: 720px; aspect-ratio: 720 / 380; height: auto; display: block;"
	" margin: 4px 0 8px; border: 1px solid #eee; }\n"
	"table.steps { width: 100%; font-size: 14px; }\n"
	"table.steps tr.step-bad td:first-child { color: var(--bad); font-weight: 700; }\n"
	"table.steps tr.step-better td:first-child { color: var(--good); font-weight: 700; }\n"
	"table.steps tr.step-noise td:first-child { color: #6b7280; }\n"
	"table.steps td.num { white-space: nowrap; }\n"
	"p.steps-link { font-size: 16px; }\n"
	".nochart { padding: 24px; background: #fafafa; border: 1px dashed var(--line); color: var(--muted); }\n"
	"footer { padding: 24px; color: var(--muted); font-size: 13px; }\n";

static const char page_foot[] = "</main>\n<footer>abbench: A/B benchmarks of fused GPU kernels. Plain HTML and CSS; "
				"every link is relative.</footer>\n</body>\n</html>\n";

/* The class of each kind of step (enum history_step_kind) on the pages,
 * and what the matrix calls it. */
static const char *const step_class[] = { "bad", "better", "noise" };
static const char *const step_noun[] = { "regression", "improvement", "same-commit step" };

/* <code>COMMIT</code>, inside a link to the template's URL when there is
 * one and the commit is recorded ("-dirty" dropped from the URL). */
static void commit_link(FILE *f, const struct publish_input *in, const char *commit)
{
	const char *shown = commit && commit[0] ? commit : "unknown";
	const char *template = in->dash->commit_url; /* NULL: commits are not linked */
	const char *at = template ? strstr(template, "{commit}") : NULL;
	char *url = NULL;
	size_t len = 0;
	FILE *u = at && commit && commit[0] && strcmp(commit, "unknown") ? open_memstream(&url, &len) : NULL;
	if (!u) {
		html_printf(f, "<code>%s</code>", shown);
		return;
	}
	size_t n = strlen(commit), k = strlen("-dirty");
	bool dirty = n >= k && !strcmp(commit + n - k, "-dirty");
	char bare[64];
	snprintf(bare, sizeof bare, "%.*s", (int)(dirty ? n - k : n), commit);
	/* the URL as text first (its parts escaped for a URL), then that text
	 * escaped for the attribute */
	fwrite(template, 1, (size_t)(at - template), u);
	escape_url_part(u, bare);
	fputs(at + strlen("{commit}"), u);
	fclose(u);
	html_printf(f, "<a class=\"commit\" href=\"%s\"><code>%s</code></a>", url, shown);
	free(url);
}

/* "run ID", linked to the run's report page when there are reports. */
static void run_link(FILE *f, const struct publish_input *in, int64_t id)
{
	if (!in->dash->no_reports) /* every run has its page */
		fprintf(f, "<a href=\"runs/run-%" PRId64 "/report.html\">run %" PRId64 "</a>", id, id);
	else
		fprintf(f, "run %" PRId64, id);
}

/* "<span class="bad">2 regressions</span>, ..., <span class="noise">1
 * between runs of one commit (noise)</span>": the heads' counts. */
static void kinds_counted(FILE *f, const int count[3])
{
	fprintf(f, "<span class=\"bad\">%d regression%s</span>, <span class=\"better\">%d improvement%s</span>, "
		   "<span class=\"noise\">%d between runs of one commit (noise)</span>",
		count[0], count[0] == 1 ? "" : "s", count[1], count[1] == 1 ? "" : "s", count[2]);
}

/* The top of a page to its <h1>'s title; the caller ends the heading. */
static void page_top(FILE *f, const char *title, const char *suffix)
{
	html_printf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s%s</title>\n"
		       "<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n<header>\n<h1>%s",
		    title, suffix, title);
}

static void page_head(FILE *f, const struct publish_input *in)
{
	char now[32];
	time_t t = time(NULL);
	strftime(now, sizeof now, "%Y-%m-%d %H:%M UTC", gmtime(&t));
	page_top(f, in->dash->title, "");
	fprintf(f, "</h1>\n<p class=\"meta\">Generated %s by abbench from %d run%s. Each chart is a case's fused (B) "
		   "median per run with its 95%% interval (a band; none under %d samples), the level between steps "
		   "(dashed), the baseline (purple) and the steps, regressions red, improvements green and steps "
		   "between runs of one commit grey (noise: runs of the same code are A/A runs), found by E-divisive "
		   "means with Welch's t (p &lt; %g) and named by run and commit: a step needs %d runs on each side and "
		   "runs whose intervals do not overlap, and steps under %.0f%% are not named. Hover a point for its run, "
		   "commit and figure.</p>\n<p class=\"steps-link\"><a href=\"steps.html\">Every step (%d)</a>: ",
		now, in->history->n_runs, in->history->n_runs == 1 ? "" : "s", SUMMARY_MIN_SAMPLES, STEPS_MAX_PVALUE,
		STEPS_MIN_RUNS, in->history->min_step * 100, in->n_steps);
	kinds_counted(f, in->count);
	fputs(".</p>\n</header>\n<main>\n", f);
}

/* A matrix cell: group k's cases, steps and newest run. */
static void matrix_cell(FILE *f, const struct publish_input *in, int k)
{
	const struct pub_group *g = &in->groups[k];
	int c[3];
	history_count_steps(in->history, g->g->first, g->g->n, c);
	fprintf(f, "<td><a href=\"#g%d\">%d case%s</a>", k + 1, g->g->n, g->g->n == 1 ? "" : "s");
	for (int j = 0; j < 3; j++)
		if (c[j])
			fprintf(f, ", <span class=\"%s\">%d %s%s%s</span>", step_class[j], c[j], step_noun[j],
				c[j] == 1 ? "" : "s", j == 2 ? " (noise)" : "");
	if (g->summary) {
		char date[16];
		snprintf(date, sizeof date, "%.10s", g->summary->run->started_at);
		html_printf(f, "<br><span class=\"muted\">run %lld, %s</span>", (long long)g->summary->run->id, date);
	}
	fputs("</td>", f);
}

#define MATRIX_MAX 64

/* v's place in list (of *n), added at its end when new and there is room;
 * -1: no room. */
static int place_of(const char **list, int *n, const char *v)
{
	for (int j = 0; j < *n; j++)
		if (!strcmp(list[j], v))
			return j;
	if (*n == MATRIX_MAX)
		return -1;
	list[*n] = v;
	return (*n)++;
}

/* The scenarios (rows) and devices (columns) in first-seen order, a
 * cell's group the first of its scenario and device. */
static void matrix(FILE *f, const struct publish_input *in)
{
	const char *rows[MATRIX_MAX], *cols[MATRIX_MAX];
	int nr = 0, nc = 0, cell[MATRIX_MAX][MATRIX_MAX];
	memset(cell, -1, sizeof cell);
	for (int k = 0; k < in->dash->n_groups; k++) {
		const struct history_series *s = &in->history->series[in->groups[k].g->first];
		int r = place_of(rows, &nr, s->scenario), c = place_of(cols, &nc, s->device);
		if (r >= 0 && c >= 0 && cell[r][c] < 0)
			cell[r][c] = k;
	}
	fputs("<h2>Scenarios and devices</h2>\n<table class=\"matrix\">\n<tr><th>scenario</th>", f);
	for (int c = 0; c < nc; c++)
		html_printf(f, "<th>%s</th>", cols[c]);
	fputs("</tr>\n", f);
	for (int r = 0; r < nr; r++) {
		html_printf(f, "<tr><th><code>%s</code></th>", rows[r]);
		for (int c = 0; c < nc; c++)
			if (cell[r][c] < 0)
				fputs("<td class=\"muted\">-</td>", f);
			else
				matrix_cell(f, in, cell[r][c]);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Every run of the group, newest first, each linked to its report page
 * (written for every run of the history unless --no-reports). */
static void group_runs(FILE *f, const struct publish_input *in, const struct pub_group *g)
{
	const struct history *h = in->history;
	const struct history_point *seen[512]; /* a point of each run, in the order first seen */
	int n = 0;
	if (!g->report[0])
		return;
	for (int i = g->g->first; i < g->g->first + g->g->n; i++)
		for (int j = 0; j < h->series[i].n && n < 512; j++) {
			int k = 0;
			while (k < n && seen[k]->run_id != h->series[i].points[j].run_id)
				k++;
			if (k == n)
				seen[n++] = &h->series[i].points[j];
		}
	fprintf(f, "<details class=\"runs\"><summary>Every run's report (%d)</summary>\n<ul>\n", n);
	for (int k = n - 1; k >= 0; k--) {
		fputs("<li>", f);
		run_link(f, in, seen[k]->run_id); /* linked: the group's runs have reports */
		fputs(", commit ", f);
		commit_link(f, in, seen[k]->commit);
		html_printf(f, ", %s", seen[k]->started_at);
		if (seen[k]->label[0])
			html_printf(f, ", label <code>%s</code>", seen[k]->label);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</details>\n", f);
}

static void group_head(FILE *f, const struct publish_input *in, const struct pub_group *g, int k)
{
	const struct history_series *s = &in->history->series[g->g->first];
	html_printf(f, "<section id=\"g%d\">\n<h2><code>%s</code> on %s</h2>\n<p class=\"meta\">", k + 1, s->scenario,
		    s->device);
	if (g->summary) {
		const struct results_run *r = g->summary->run;
		fprintf(f, "Newest run %lld, commit ", (long long)r->id);
		commit_link(f, in, r->git_commit);
		html_printf(f, ", started %s", r->started_at);
		if (r->label[0])
			html_printf(f, ", label <code>%s</code>", r->label);
		fputs(". ", f);
	}
	if (g->report[0])
		html_printf(f, "<a href=\"%s\">Full report of that run</a> (its markdown, <code>report.md</code>, is beside "
			       "it).", g->report);
	else if (g->report_note[0])
		html_printf(f, "No report: %s.", g->report_note);
	fputs("</p>\n", f);
	group_runs(f, in, g);
	fputs("<div class=\"cards\">\n", f);
}

/* The newest run's figures of a case, as the report gives them: a row
 * each (its heading, its figure, the figure's class or NULL). */
static void latest_figures(FILE *f, const struct results_run *r, const struct summary_case *s)
{
	char a[48], b[48], sp[96], tha[80], thb[80], n[48], v[64];
	if (isnan(s->speedup.point))
		snprintf(sp, sizeof sp, "n/a");
	else if (isnan(s->speedup.low))
		snprintf(sp, sizeof sp, "%.3fx [n/a: under %d samples]", s->speedup.point, SUMMARY_MIN_SAMPLES);
	else
		snprintf(sp, sizeof sp, "%.3fx [%.3f, %.3f]", s->speedup.point, s->speedup.low, s->speedup.high);
	snprintf(tha, sizeof tha, "A (%s) median", r->arm_a[0] ? r->arm_a : "per case");
	snprintf(thb, sizeof thb, "B (%s) median", r->arm_b[0] ? r->arm_b : "per case");
	snprintf(n, sizeof n, "%d / %d", s->a.time.n, s->b.time.n);
	bool bad = summary_case_untrusted(s) || s->verdict == SUMMARY_CASE_NOT_EXACT ||
		   s->verdict == SUMMARY_CASE_SLOWER;
	const char *rows[][3] = {
		{ tha, md_time(s->a.time.median_ns, a, sizeof a), NULL },
		{ thb, md_time(s->b.time.median_ns, b, sizeof b), NULL },
		{ "speedup A/B [95% CI]", sp, s->verdict == SUMMARY_CASE_FASTER ? "better" : NULL },
		{ "verdict", md_case_verdict(s, v, sizeof v), bad ? "bad" : NULL },
		{ "samples A / B", n, NULL },
		{ "bit-exact", s->b_byte_equal ? "yes" : "NO", s->b_byte_equal ? NULL : "bad" },
	};
	fputs("<table>\n", f);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		html_printf(f, "<tr><th>%s</th><td class=\"num%s%s\">%s</td></tr>\n", rows[i][0], rows[i][2] ? " " : "",
			    rows[i][2] ? rows[i][2] : "", rows[i][1]);
	fputs("</table>\n", f);
}

/* Series i's chart, chart k, an SVG as a document of its own (an
 * <object>: its points' <title>s show on hover, which an <img> would not),
 * an <img> of it inside for a browser that shows no object; or why there
 * is none. */
static void card_chart(FILE *f, const struct publish_input *in, int i)
{
	const struct trend_outcome *o = in->charts;
	const struct history_series *s = &in->history->series[i];
	int k = o->chart_of[i];
	if (k < 0)
		fprintf(f, "<div class=\"nochart\">No chart: past %d cases a chart is drawn per sweep, and for at most "
			   "%d charts in all.</div>\n", TREND_CHARTS_MAX, TREND_CHARTS_MAX);
	else if (!o->chart_drawn[k])
		html_printf(f, "<div class=\"nochart\">Chart not drawn: %s. Its data and script: "
			       "<code>charts/%s.dat</code>, <code>.gp</code>.</div>\n",
			    o->drawn.note[0] ? o->drawn.note : "gnuplot did not run", o->chart_stem[k]);
	else
		html_printf(f, "<object type=\"image/svg+xml\" data=\"charts/%s.svg\" width=\"720\" height=\"380\">"
			       "<img src=\"charts/%s.svg\" width=\"720\" height=\"380\" loading=\"lazy\" "
			       "alt=\"trend of %s%s\"></object>\n",
			    o->chart_stem[k], o->chart_stem[k], o->chart_sweep[k] ? s->sweep : s->case_name,
			    o->chart_sweep[k] ? " (its sweep)" : "");
}

/* The steps of series s, or that it has none: a line each, "Step +25.00%
 * at run 4 (commit c000..., 2026-11-04, label nightly-4): 4.05 us -> 5.06
 * us, a regression", the run and commit linked. */
static void card_steps(FILE *f, const struct publish_input *in, const struct history_series *s)
{
	const struct history *h = in->history;
	if (s->steps.n_segments <= 1) {
		fprintf(f, "<p class=\"muted\">No step beyond %.0f%% in %d run%s (noise %.2f%%).</p>\n",
			h->min_step * 100, s->n, s->n == 1 ? "" : "s", s->steps.sigma * 100);
		return;
	}
	fputs("<ul class=\"steps\">\n", f);
	for (int k = 1; k < s->steps.n_segments; k++) {
		const struct steps_segment *a = &s->steps.segments[k - 1], *b = &s->steps.segments[k];
		const struct history_point *p = &s->points[b->start];
		char pct[32], from[48], to[48], kind[64], date[16];
		fprintf(f, "<li class=\"%s\">Step %s at ", step_class[history_step_kind(h, s, k, NULL)],
			md_pct(b->change, pct, sizeof pct));
		run_link(f, in, p->run_id);
		fputs(" (commit ", f);
		commit_link(f, in, p->commit);
		snprintf(date, sizeof date, "%.10s", p->started_at);
		html_printf(f, ", %s", date);
		if (p->label[0])
			html_printf(f, ", label %s", p->label);
		html_printf(f, "): %s -&gt; %s, %s</li>\n", trend_level(h, a->level, from, sizeof from),
			    trend_level(h, b->level, to, sizeof to), trend_step_kind_words(h, s, k, kind, sizeof kind));
	}
	fputs("</ul>\n", f);
}

static void card(FILE *f, const struct publish_input *in, const struct pub_group *g, int i)
{
	const struct history_series *s = &in->history->series[i];
	const struct summary_case *c = g->summary ? summary_find(g->summary, s->case_name) : NULL;
	int n[3];
	history_count_steps(in->history, i, 1, n);
	const char *edge = n[0] ? " step" : n[1] ? " up" : n[2] ? " noise" : "";
	html_printf(f, "<article class=\"card%s\">\n<h3><code>%s</code> <span class=\"shape\">%s</span></h3>\n", edge,
		    s->case_name, s->shape);
	card_chart(f, in, i);
	if (c)
		latest_figures(f, g->summary->run, c);
	else
		fputs("<p class=\"muted\">Not in the newest run of this scenario and device.</p>\n", f);
	card_steps(f, in, s);
	fputs("</article>\n", f);
}

/* index.html: the matrix, then the sections, those with a step first
 * (what moved is what a reader comes for), each group keeping its number
 * for the matrix's links. */
static void write_index(FILE *f, const struct publish_input *in)
{
	int c[3];
	page_head(f, in);
	matrix(f, in);
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < in->dash->n_groups; k++) {
			const struct pub_group *g = &in->groups[k];
			if ((history_count_steps(in->history, g->g->first, g->g->n, c) > 0) != (pass == 0))
				continue;
			group_head(f, in, g, k);
			for (int i = g->g->first; i < g->g->first + g->g->n; i++)
				card(f, in, g, i);
			fputs("</div>\n</section>\n", f);
		}
	fputs(page_foot, f);
}

/* ---- steps.html ---- */

/* A run beside a step: its link, its commit's, its date and label. */
static void run_cell(FILE *f, const struct publish_input *in, const struct history_point *p)
{
	char when[24];
	fputs("<td>", f);
	run_link(f, in, p->run_id);
	fputs("<br>", f);
	commit_link(f, in, p->commit);
	snprintf(when, sizeof when, "%.10s %.5s", p->started_at, strlen(p->started_at) >= 16 ? p->started_at + 11 : "");
	html_printf(f, "<br><span class=\"muted\">%s", when);
	if (p->label[0])
		html_printf(f, ", %s", p->label);
	fputs("</span></td>", f);
}

static void step_row(FILE *f, const struct publish_input *in, const struct history_step_ref *r)
{
	const struct history *h = in->history;
	const struct history_series *s = &h->series[r->i];
	const struct steps_segment *a = &s->steps.segments[r->k - 1], *b = &s->steps.segments[r->k];
	char pct[32], from[48], to[48], kind[64], p[32];
	html_printf(f, "<tr class=\"step-%s\"><td>%s</td><td class=\"num\">%s</td><td><code>%s</code><br>%s</td>"
		       "<td><code>%s</code> <span class=\"muted\">%s</span></td>",
		    step_class[history_step_kind(h, s, r->k, NULL)],
		    trend_step_kind_words(h, s, r->k, kind, sizeof kind),
		    md_pct(b->change, pct, sizeof pct), s->scenario, s->device, s->case_name, s->shape);
	run_cell(f, in, &s->points[b->start - 1]);
	run_cell(f, in, &s->points[b->start]);
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

static void write_steps(FILE *f, const struct publish_input *in)
{
	int n = in->n_steps;
	page_top(f, in->dash->title, ": every step");
	fprintf(f, ": every step</h1>\n<p class=\"meta\"><a href=\"index.html\">Back to the dashboard</a>. "
		   "%d step%s in the history, newest first: ", n, n == 1 ? "" : "s");
	kinds_counted(f, in->count);
	fprintf(f, ". Steps are found by E-divisive means and kept where Welch's t gives p &lt; %g, %d runs on "
		   "each side at least, their runs' intervals apart and the change %.0f%% or more. Runs of one commit "
		   "are A/A runs: a step between two of them is their noise, never a regression, unless the scenario "
		   "or the driver changed with it.</p>\n</header>\n<main>\n",
		STEPS_MAX_PVALUE, STEPS_MIN_RUNS, in->history->min_step * 100);
	if (!n) {
		fputs("<p class=\"muted\">No step in the history.</p>\n", f);
	} else {
		fputs("<table class=\"steps\">\n<tr><th>step</th><th>change</th><th>scenario, device</th><th>case</th>"
		      "<th>last run before</th><th>first run after</th><th>level</th><th>p</th></tr>\n", f);
		for (int j = 0; j < n; j++)
			step_row(f, in, &in->steps[j]);
		fputs("</table>\n", f);
	}
	fputs(page_foot, f);
}

/* DIR/NAME, an outfile: text, or what write writes when text is NULL. */
static enum ab_rc write_file(const char *dir, const char *name, const char *text,
			     void (*write)(FILE *f, const struct publish_input *in), const struct publish_input *in,
			     struct ab_diag *d)
{
	struct md_file mf;
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	enum ab_rc rc = md_file_open(&mf, path, d);
	if (rc)
		return rc;
	if (text)
		fputs(text, mf.f);
	else
		write(mf.f, in);
	return md_file_commit(&mf, d);
}

/* A run's report into DIR/runs/run-ID: report.md and its charts (none
 * with no_plots), and its page, report.html, rendered by cmark-gfm
 * (print/md.c). A failure other than memory, IO or a directory name
 * too long is the report's, not the command's: g (a group's newest run;
 * NULL: an older run) gets the report's path or why there is none. */
static enum ab_rc run_report(const char *top, const struct printer_report *rep, bool no_plots, struct pub_group *g,
			     struct ab_diag *d)
{
	long long id = (long long)rep->peers->series[0]->run->id;
	char dir[4096], md[4200], html[4200], title[64];
	struct printer_charts charts;
	struct printer_job sub = { .dir = dir, .no_plots = no_plots, .charts = &charts, .report = rep };
	if (snprintf(dir, sizeof dir, "%s/runs/run-%lld", top, id) >= (int)sizeof dir)
		return ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	snprintf(md, sizeof md, "%s/report.md", dir);
	snprintf(html, sizeof html, "%s/report.html", dir);
	snprintf(title, sizeof title, "abbench report: run %lld", id);
	enum ab_rc rc = report_write(&sub, d);
	if (!rc)
		rc = md_html_render(md, html, title, "../../style.css", d);
	if (g && rc)
		snprintf(g->report_note, sizeof g->report_note, "%.200s", d->msg);
	else if (g)
		snprintf(g->report, sizeof g->report, "runs/run-%lld/report.html", id);
	return rc == AB_ERR_NOMEM || rc == AB_ERR_IO ? rc : AB_OK;
}

enum ab_rc publish_write(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_dashboard *dash = job->dashboard;
	struct trend_outcome charts = { 0 };
	struct pub_group *g = calloc((size_t)dash->n_groups + 1, sizeof *g);
	struct publish_input in = { dash, dash->history, &charts, g, 0, NULL, { 0 } };
	char dir[4096];
	enum ab_rc rc = g ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory for the dashboard");
	if (!rc && snprintf(dir, sizeof dir, "%s/charts", job->dir) >= (int)sizeof dir)
		rc = ab_fail(d, AB_ERR_USAGE, "output directory name too long");
	if (!rc)
		rc = md_mkdirs(job->dir, d);
	int lock = -1; /* one publish at a time in DIR: temporaries there are then a killed one's */
	if (!rc && !(rc = outfile_dir_lock(job->dir, &lock, d)))
		outfile_remove_stale(job->dir);
	if (!rc)
		rc = trend_write_charts(dir, dash->history, job->no_plots, true, &charts, d);
	for (int k = 0; !rc && k < dash->n_groups; k++) {
		const struct printer_report *rep = dash->reports[k];
		g[k].g = &dash->groups[k];
		g[k].summary = rep ? rep->peers->series[0] : NULL;
		if (rep && dash->no_reports)
			snprintf(g[k].report_note, sizeof g[k].report_note, "reports turned off (--no-reports)");
		else if (rep)
			rc = run_report(job->dir, rep, job->no_plots, &g[k], d);
	}
	/* the older runs' reports: tables only, their charts would multiply the directory's files by the runs;
	 * one that fails is left out */
	for (int k = 0; !rc && !dash->no_reports && k < dash->n_older; k++)
		rc = run_report(job->dir, dash->older[k], true, NULL, d);
	if (!rc)
		rc = write_file(job->dir, "style.css", style_css, NULL, &in, d);
	int n_steps = history_count_steps(dash->history, 0, dash->history->n_series, in.count);
	in.steps = calloc((size_t)n_steps + 1, sizeof *in.steps);
	if (!rc && !in.steps)
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory for the steps page");
	if (!rc) /* every step of the history, newest first */
		in.n_steps = history_steps_newest_first(dash->history, in.steps);
	if (!rc)
		rc = write_file(job->dir, "steps.html", NULL, write_steps, &in, d);
	if (!rc)
		rc = write_file(job->dir, "index.html", NULL, write_index, &in, d);
	*job->charts = charts.drawn;
	trend_outcome_free(&charts);
	free(in.steps);
	free(g);
	outfile_dir_unlock(lock);
	return rc;
}
