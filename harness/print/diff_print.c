/*
 * diff_print.c - `abbench diff` as text and as markdown (diff_print.h),
 * from diff_lines.h's sentences.
 */
#include "print/diff_print.h"

#include <stdio.h>
#include <string.h>

#include "print/diff_lines.h"
#include "print/escape.h"
#include "print/md.h"
#include "print/plot.h"

/* Whether the heatmap of the report's slot s, tensor t was drawn, and its
 * file name. */
static bool heatmap_of(const struct printer_diff *p, int s, int t, char *name, size_t len)
{
	const struct divergence_slot *sl = &p->rep->slots[s];
	char stem[96];
	if (!p->drawn || !p->drawn[s * RESULTS_MAX_DIV + t])
		return false;
	heatmap_stem(sl->slot->label, sl->tensors[t].v->tensor, stem, sizeof stem);
	snprintf(name, len, "%s.png", stem);
	return true;
}

/* The run and case in one line. */
static void case_head(const struct divergence_report *rep, char *buf, size_t len)
{
	const struct results_case *c = rep->c;
	snprintf(buf, len, "run %lld, case '%s': site %s, shape %s, a %s, b %s", (long long)rep->run->id, c->name, c->site,
		 c->shape, c->arm_a, c->arm_b);
}

/* The slots that are byte-equal with calls alike, by label. */
static void equal_slots(const struct divergence_report *rep, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < rep->c->n_slots && used < len; i++) {
		const struct results_slot *s = &rep->c->slots[i];
		bool listed = false;
		for (int k = 0; k < rep->n_slots; k++)
			listed = listed || rep->slots[k].slot == s;
		if (!listed)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", s->label);
	}
}

/* ---- text ---------------------------------------------------------------- */

static void text_line(FILE *f, const char *indent, const char *label, const char *text)
{
	char esc[1024];
	fprintf(f, "%s%-14s %s\n", indent, label, escape_term(text, esc, sizeof esc));
}

static void text_tensor(FILE *f, const struct printer_diff *p, int s, int t)
{
	struct diff_tensor_lines L;
	char esc[1024], name[128];
	diff_tensor_lines(&p->rep->slots[s].tensors[t], &L);
	fprintf(f, "  %s\n", escape_term(L.title, esc, sizeof esc));
	text_line(f, "    ", "elements", L.count);
	text_line(f, "    ", "ULPs", L.hist);
	text_line(f, "    ", "classes", L.classes);
	text_line(f, "    ", "largest ULP", L.max_ulp);
	text_line(f, "    ", "largest |B-A|", L.max_abs);
	text_line(f, "    ", "first", L.first);
	text_line(f, "    ", "rows", L.rows);
	text_line(f, "    ", "reference", L.ref);
	if (heatmap_of(p, s, t, name, sizeof name))
		text_line(f, "    ", "heatmap", name);
}

static void text_slot(FILE *f, const struct printer_diff *p, int s)
{
	const struct divergence_slot *sl = &p->rep->slots[s];
	char buf[1024], esc[1024];
	diff_slot_head(sl, buf, sizeof buf);
	fprintf(f, "\n%s\n", escape_term(buf, esc, sizeof esc));
	diff_compared(sl, buf, sizeof buf);
	text_line(f, "  ", "compared", buf);
	diff_determinism(sl->slot, buf, sizeof buf);
	text_line(f, "  ", "determinism", buf);
	if (!sl->n_tensors && sl->slot->n_div)
		text_line(f, "  ", "", "(no divergence of the tensor asked for in this slot)");
	for (int t = 0; t < sl->n_tensors; t++)
		text_tensor(f, p, s, t);
}

enum ab_rc diff_print_text(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_diff *p = job->diff;
	const struct divergence_report *rep = p->rep;
	FILE *f = job->f;
	char buf[1024], esc[1024];
	case_head(rep, buf, sizeof buf);
	fprintf(f, "%s\n", escape_term(buf, esc, sizeof esc));
	diff_case_line(p->sc, buf, sizeof buf);
	fprintf(f, "%s\n", escape_term(buf, esc, sizeof esc));
	diff_invariance(p->summary, p->sc, buf, sizeof buf);
	if (buf[0])
		fprintf(f, "%s\n", escape_term(buf, esc, sizeof esc));
	equal_slots(rep, buf, sizeof buf);
	fprintf(f, "byte-equal to the first A slot, calls alike: %s\n", buf[0] ? escape_term(buf, esc, sizeof esc) : "none");
	if (!rep->measured)
		fputs("this run stored no divergences (abbench before schema 10): only the count of differing elements is "
		      "known (abbench show)\n",
		      f);
	for (int s = 0; s < rep->n_slots; s++)
		text_slot(f, p, s);
	if (p->heatmap_note)
		fprintf(f, "\nheatmaps: %s\n", escape_term(p->heatmap_note, esc, sizeof esc));
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the divergence report") : AB_OK;
}

/* ---- markdown ---------------------------------------------------------- */

static void md_tensor(FILE *f, const struct printer_diff *p, int s, int t)
{
	struct diff_tensor_lines L;
	char name[128];
	static const char *const cols[] = { "figure", "value" };
	diff_tensor_lines(&p->rep->slots[s].tensors[t], &L);
	md_printf(f, "\n#### %s\n\n", L.title);
	md_table_head(f, 2, cols, "ll");
	md_printf(f, "| elements differing | %s |\n| ULP histogram | %s |\n| classes | %s |\n| largest ULP | %s |\n"
		     "| largest abs. difference | %s |\n| first difference | %s |\n| rows | %s |\n"
		     "| float64 reference | %s |\n",
		  L.count, L.hist, L.classes, L.max_ulp, L.max_abs, L.first, L.rows, L.ref);
	if (heatmap_of(p, s, t, name, sizeof name)) {
		md_printf(f, "\n![heatmap of %s]", L.title);
		fprintf(f, "(%s)\n", name);
	}
}

static void md_slot(FILE *f, const struct printer_diff *p, int s)
{
	const struct divergence_slot *sl = &p->rep->slots[s];
	char buf[1024];
	char cmp[1024], det[1024];
	diff_slot_head(sl, buf, sizeof buf);
	diff_compared(sl, cmp, sizeof cmp);
	diff_determinism(sl->slot, det, sizeof det);
	md_printf(f, "\n### %s\n\n- compared with A1: %s\n- determinism: %s\n", buf, cmp, det);
	for (int t = 0; t < sl->n_tensors; t++)
		md_tensor(f, p, s, t);
}

enum ab_rc diff_print_markdown(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_diff *p = job->diff;
	const struct divergence_report *rep = p->rep;
	FILE *f = job->f;
	char buf[1024];
	case_head(rep, buf, sizeof buf);
	md_printf(f, "## Where the bits differ: `%s`\n\n- %s", rep->c->name, buf);
	diff_case_line(p->sc, buf, sizeof buf);
	md_printf(f, "\n- %s", buf);
	diff_invariance(p->summary, p->sc, buf, sizeof buf);
	if (buf[0])
		md_printf(f, "\n- %s", buf);
	equal_slots(rep, buf, sizeof buf);
	md_printf(f, "\n- byte-equal to the first A slot, calls alike: %s\n", buf[0] ? buf : "none");
	if (!rep->measured)
		fputs("\nThis run stored no divergences (abbench before schema 10).\n", f);
	for (int s = 0; s < rep->n_slots; s++)
		md_slot(f, p, s);
	if (p->heatmap_note)
		md_printf(f, "\nHeatmaps: %s\n", p->heatmap_note);
	return ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the divergence report") : AB_OK;
}
