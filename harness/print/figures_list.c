/*
 * figures_list.c - `abbench figures`: the table of figures itself
 * (analysis/figures.h), as text, markdown (the table of docs/REPORTS.md)
 * or the abbench.figures JSON document (what tests/tools/summary_agree.py
 * loops over).
 */
#include "print/figure_fmt.h"

#include <string.h>

#include "print/json_out.h"
#include "print/md.h"

/* The rows job->figures_view shows in its order, or all in table order. */
static int rows_of(const struct printer_job *job, const struct figure **rows, int max)
{
	int n = 0;
	if (job->figures_view >= 0)
		return figure_view_rows((enum figure_view)job->figures_view, rows, max);
	for (int i = 0; i < n_figures && n < max; i++)
		rows[n++] = &figures[i];
	return n;
}

/* "csv 8, json 5, show 5": the views that show f and its place there. */
static char *places(const struct figure *f, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int v = 0; v < FIGURE_VIEWS && o < len; v++)
		if (f->at[v])
			o += (size_t)snprintf(buf + o, len - o, "%s%s %d%s", o ? ", " : "", figure_view_str((enum figure_view)v),
					      f->at[v], f->b_only & FIGURE_BIT(v) ? " (B only)" : "");
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

enum ab_rc figures_list_text(const struct printer_job *job, struct ab_diag *d)
{
	const struct figure *rows[FIGURE_MAX];
	int n = rows_of(job, rows, FIGURE_MAX), wk = 3, wh = 4;
	char p[160];
	for (int i = 0; i < n; i++) {
		wk = (int)strlen(rows[i]->key) > wk ? (int)strlen(rows[i]->key) : wk;
		wh = rows[i]->head && (int)strlen(rows[i]->head) > wh ? (int)strlen(rows[i]->head) : wh;
	}
	fprintf(job->f, "%-*s  %-5s  %-9s  %-*s  %s\n", wk, "key", "level", "hint", wh, "head", "views: place; what it is");
	for (int i = 0; i < n; i++)
		fprintf(job->f, "%-*s  %-5s  %-9s  %-*s  %s; %s\n", wk, rows[i]->key, figure_level_str(rows[i]->level),
			figure_hint_str(rows[i]->hint), wh, rows[i]->head ? rows[i]->head : "-", places(rows[i], p, sizeof p),
			rows[i]->desc);
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the figures") : AB_OK;
}

enum ab_rc figures_list_markdown(const struct printer_job *job, struct ab_diag *d)
{
	static const char *const cols[] = { "key", "level", "hint", "head", "views (place)", "what it is" };
	const struct figure *rows[FIGURE_MAX];
	int n = rows_of(job, rows, FIGURE_MAX);
	char p[160];
	md_table_head(job->f, 6, cols, "llllll");
	for (int i = 0; i < n; i++)
		md_printf(job->f, "| `%s` | %s | %s | %s | %s | %s |\n", rows[i]->key, figure_level_str(rows[i]->level),
			  figure_hint_str(rows[i]->hint), rows[i]->head ? rows[i]->head : "",
			  places(rows[i], p, sizeof p), rows[i]->desc);
	return ferror(job->f) ? ab_fail(d, AB_ERR_IO, "cannot write the figures") : AB_OK;
}

/* {"csv": 8, "json": 5}; the views of a mask as a list. */
static json_t *views_of(const struct figure *f)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	for (int v = 0; ok && v < FIGURE_VIEWS; v++)
		if (f->at[v])
			ok = json_out_set(o, figure_view_str((enum figure_view)v), json_integer(f->at[v]));
	return json_out_whole(o, ok);
}

static json_t *view_list(unsigned mask)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (int v = 0; ok && v < FIGURE_VIEWS; v++)
		if (mask & FIGURE_BIT(v))
			ok = json_out_push(a, json_string(figure_view_str((enum figure_view)v)));
	return json_out_whole(a, ok);
}

/* A row (items of json_out_array: a pointer to the figure). */
static json_t *row_of(const void *item)
{
	const struct figure *f = *(const struct figure *const *)item;
	return json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s, s:s, s:i, s:b, s:o, s:o, s:o, s:b, s:s}", "key",
			 f->key, "key2", f->key2, "label", f->label, "label2", f->label2, "json", f->json, "json2", f->json2,
			 "head", f->head, "hint", figure_hint_str(f->hint), "level",
			 figure_level_str(f->level), "digits", f->digits, "ci", f->ci, "views", views_of(f), "b_only",
			 view_list(f->b_only), "full_only", view_list(f->full_only), "omit_unknown", f->omit_unknown,
			 "description", f->desc);
}

enum ab_rc figures_list_json(const struct printer_job *job, struct ab_diag *d)
{
	const struct figure *rows[FIGURE_MAX];
	int n = rows_of(job, rows, FIGURE_MAX);
	json_t *list = json_out_array(rows, sizeof *rows, n, row_of);
	return json_out_print(json_out_document("abbench.figures", json_pack("{s:o}", "figures", list)), job->f, d);
}
