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

extern const struct printer printer_markdown;

const struct printer printer_markdown = {
	"markdown", "GitHub-flavoured markdown, for a pull request",
	{
		[PRINTER_COMPARE] = compare_print,
		[PRINTER_GATE] = gate_print,
		[PRINTER_REPORT] = report_write,
		[PRINTER_DIFF] = diff_print_markdown,
		[PRINTER_FIGURES] = figures_list_markdown,
	},
};
