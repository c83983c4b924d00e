/*
 * export_csv.h - one run's results as CSV, for spreadsheets and pandas: a
 * header row, then a row per (case, slot), cases in run order, slots in
 * bracket order. The columns are the rows of the table of figures that the
 * CSV view places, in its order (analysis/figures.h; `abbench figures
 * --view csv` lists them, docs/REPORTS.md "The figures" says what each
 * is): the slot's own figures, its arm's (arm_*: its slots pooled), its
 * case's (a speedup with its interval adds speedup_low, speedup_high) and
 * the run's id. A column is never moved: a new figure's goes after the last.
 *
 * Cells by hint: a number as an integer when integral, else to 15
 * significant digits (%.15g: every double holds 15 decimal digits, so a
 * figure prints as its decimal inputs make it, "25252297.5", not the
 * round-trip form's "25252297.500000022"); a flag 1 or 0; a slot's md5s
 * joined by '+' in tensor order; an unknown figure (NAN, a verdict over no
 * outputs, no reference) an empty field. A text field that a spreadsheet
 * would run as a formula (starting with =, +, -, @, a tab or a CR: a case
 * named "=HYPERLINK(...)" from a merged shard) gets a leading ' (OWASP's
 * advice; numbers are never touched). A field with a comma, a quote, a
 * line break or a blank at either end is quoted by libcsv (csv_fwrite);
 * lines end in "\n".
 */
#ifndef AB_EXPORT_CSV_H
#define AB_EXPORT_CSV_H

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"

/* The csv printer's PRINTER_SUMMARY: the run of job->summary to job->f
 * (printer_emit writes a file atomically: a failed export never leaves a
 * partial file). AB_ERR_IO when the stream fails. */
enum ab_rc export_csv_print(const struct printer_job *job, struct ab_diag *d);

#endif
