/*
 * figures_list.h - the printers of `abbench figures` (PRINTER_FIGURES):
 * the rows of the table of figures (analysis/figures.h), all of them in
 * the table's order or, with job->figures_view, one view's in its order;
 * each with its key, level, hint, head, places and description.
 */
#ifndef AB_FIGURES_LIST_H
#define AB_FIGURES_LIST_H

#include "analysis/figures.h"
#include "print/printer.h"

enum ab_rc figures_list_text(const struct printer_job *job, struct ab_diag *d);
enum ab_rc figures_list_markdown(const struct printer_job *job, struct ab_diag *d);
enum ab_rc figures_list_json(const struct printer_job *job, struct ab_diag *d);

#endif
