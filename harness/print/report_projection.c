/*
 * report_projection.c - the report's "Projection against measurement"
 * section (issue 22.3): the saving a site run projects (each site in
 * isolation, count x (A - B)) beside the saving this run's block-level
 * cases measured, by how much the projection is off, and per measured case
 * the kernel families in context against the same families in isolation.
 * Every figure comes from analysis/projection.h; this file only formats.
 */
#include "print/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/projection.h"
#include "print/md.h"

/* " | A | B | saving | per image |": the cells after a row's first. */
static void headline_row(FILE *f, const struct summary_share *fw, const struct summary_share *im)
{
	fprintf(f, " | %s | %s | **%s** | %s |", MD_TIME(fw->a_ns), MD_TIME(fw->b_ns), MD_TIME(fw->saving_ns),
		MD_TIME(im->saving_ns));
}

static void headline(FILE *f, const struct projection *p)
{
	static const char *const cols[] = { "", "A per forward", "B per forward", "saving per forward",
					    "saving per image", "B byte-equal to A", "projection off by" };
	md_table_head(f, 7, cols, "lrrrrll");
	fprintf(f, "| projected: %d site case%s of run %lld", p->n_site_cases, p->n_site_cases == 1 ? "" : "s",
		(long long)p->sites->run->id);
	headline_row(f, &p->per_forward, &p->per_image);
	fprintf(f, " %d of %d cases |  |\n", p->sites->n_cases - p->sites->n_not_byte_equal, p->sites->n_cases);
	for (int i = 0; i < p->n_measured; i++) {
		const struct projection_measured *m = &p->m[i];
		double diff = p->per_forward.saving_ns - m->per_forward.saving_ns;
		fputs("| measured: ", f);
		md_case_name(f, m->c->c->name, m->c->own_arms, m->c->arm_a, m->c->arm_b); /* a case's own arms */
		fprintf(f, " x %d", m->c->c->count);
		headline_row(f, &m->per_forward, &m->per_image);
		fprintf(f, " %s | ", m->exact ? "yes" : "**no**");
		if (isnan(m->error)) /* "+39.1% (projects 5.32 ms more than measured)" */
			fputs("n/a", f);
		else
			fprintf(f, "**%+.1f%%** (%s %s)", 100 * m->error, MD_TIME(fabs(diff)),
				diff >= 0 ? "more than measured" : "less than measured");
		fputs(" |\n", f);
	}
	fputc('\n', f);
}

static void family_row(FILE *f, const struct projection_family *r, bool bold)
{
	const char *q = bold ? "**" : "";
	fprintf(f, "| %s", q); /* bold: markup, not a cell's text */
	md_cell(f, r->name);
	fprintf(f, "%s | %s | %s | %s%s%s | %s | %s | %s%s%s | %s |\n", q, MD_TIME(r->context.a_ns),
		MD_TIME(r->context.b_ns), q, MD_TIME(r->context.saving_ns), q, MD_TIME(r->isolated.a_ns),
		MD_TIME(r->isolated.b_ns), q, MD_TIME(r->isolated.saving_ns), q,
		MD_TIME(r->isolated.saving_ns - r->context.saving_ns));
}

/* One measured case's families per forward, in context and in isolation,
 * with their totals (each total is count x the arm's median). */
static void families(FILE *f, const struct projection *p, const struct projection_measured *m)
{
	static const char *const cols[] = { "family", "in context A", "in context B", "saved in context",
					    "isolated A", "isolated B", "saved isolated", "isolated - context" };
	md_printf(f, "### Where the difference goes: `%s` against run %lld's sites\n\n", m->c->c->name,
		  (long long)p->sites->run->id);
	md_table_head(f, 8, cols, "lrrrrrrr");
	for (int i = 0; i < m->n_families; i++)
		family_row(f, &m->families[i], false);
	family_row(f, &m->total, true);
	fputc('\n', f);
	if (m->families_cut)
		fputs("More families than rows: the last row, `other`, holds the rest.\n\n", f);
}

static void intro(FILE *f, const struct projection *p)
{
	const struct results_run *s = p->sites->run, *r = p->measured->run;
	md_printf(f, "The saving that run %lld (`%s`, %s, %s) projects from its site cases, each measured in "
		  "isolation (L2 %s between samples), count x (A - B) per forward, beside the saving this run's cases "
		  "measured in context (L2 %s). Per image: x %d forwards per step x %d steps of this run's [model].",
		  (long long)s->id, s->scenario_name, s->device.name, s->started_at,
		  s->l2_flush ? "flushed" : "not flushed", r->l2_flush ? "flushed" : "not flushed",
		  r->forwards_per_step, r->steps);
	if (strcmp(s->device.name, r->device.name))
		md_printf(f, " **The two runs measured different devices** (%s, %s): the comparison mixes them.",
			  s->device.name, r->device.name);
	if (s->fake_timer || r->fake_timer)
		fputs(" A fake-timer run is among them: its times are a cost model, not measurements.", f);
	if (p->n_site_unknown)
		fprintf(f, " %d site case%s lack a median of an arm: the projection is unknown.", p->n_site_unknown,
			p->n_site_unknown == 1 ? "" : "s");
	fputs("\n\n", f);
}

void report_projection_section(FILE *f, const struct report_ctx *R, bool compact)
{
	const struct projection *p = R->o->projection;
	if (!p)
		return;
	fputs("## Projection against measurement\n\n", f);
	intro(f, p);
	headline(f, p);
	fputs("Each family's part of an arm is its kernels' share of the arm's sample window times the arm's "
	      "median, so a column sums to count x the median; the gaps are what the kernels leave of it (launches, "
	      "host work, overlap). The isolated columns add up the site cases of the projecting run with their "
	      "counts; a family the sites do not touch (GEMM, attention) is only in context.\n\n", f);
	if (compact) {
		fputs("_The per-family tables are in `report-full.md`._\n\n", f);
		return;
	}
	for (int i = 0; i < p->n_measured; i++)
		families(f, p, &p->m[i]);
}
