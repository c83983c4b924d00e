/*
 * printer_markdown.c - the "markdown" format (GitHub-flavoured): compare's
 * table (print/compare_print.c), the gate's verdict (print/gate_print.c)
 * and a run's report with its charts (print/report.c), every name escaped
 * by print/md.h.
 */
#include "print/compare_print.h"
#include "print/diff_print.h"
#include "print/figures_list.h"
#include "print/gate_print.h"
#include "print/printer.h"
#include "print/report.h"

static enum ab_rc markdown_compare(const struct printer_job *job, struct ab_diag *d)
{
	return compare_print_table(job->f, job->summary, job->second, job->compare, d);
}

static enum ab_rc markdown_gate(const struct printer_job *job, struct ab_diag *d)
{
	const struct printer_gate *g = job->gate;
	return gate_print_verdict(job->f, g->base, g->run, g->o, g->r, d);
}

extern const struct printer printer_markdown;

const struct printer printer_markdown = {
	"markdown", "GitHub-flavoured markdown, for a pull request",
	{
		[PRINTER_COMPARE] = markdown_compare,
		[PRINTER_GATE] = markdown_gate,
		[PRINTER_REPORT] = report_write,
		[PRINTER_DIFF] = diff_print_markdown,
		[PRINTER_FIGURES] = figures_list_markdown,
	},
};
