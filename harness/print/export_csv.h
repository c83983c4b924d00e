/*
 * export_csv.h - one run's results as CSV, for spreadsheets and pandas.
 *
 * One row per (case, slot), cases in run order, slots in bracket order,
 * after one header row. The columns are the rows of the table of figures
 * that the CSV view places (analysis/figures.h; `abbench figures --view
 * csv` lists them in order, docs/REPORTS.md "The figures" says what each
 * is): the slot's own figures, its arm's (all its slots pooled: arm_*),
 * its case's (the speedup with its interval as speedup, speedup_low,
 * speedup_high; drift; exactness; sweep; the copy floor; verdict) and the
 * run's id. A column is never moved: a new figure's is added after the
 * last. Today's first ones: case,site,shape,dtype,arm,slot,samples,
 * median_ns,p10_ns,p90_ns,md5,bit_exact; the last: verdict.
 *
 * Cells by hint: numbers as integers when integral, else with 15
 * significant digits (%.15g): every double holds 15 decimal digits, so a
 * figure prints as its decimal inputs make it ("25252297.5", not the
 * "25252297.500000022" of the shortest round-trip form); a flag 1 or 0; a
 * slot's several outputs' md5s joined by '+' in tensor order; an unknown
 * figure (NAN, a verdict over no outputs, no reference) an empty field.
 * A text field that a spreadsheet would run as a formula (starting with
 * =, +, -, @, a tab or a CR: a case named "=HYPERLINK(...)" from a merged
 * shard) is written with a leading ' (OWASP's advice; numbers, negative
 * ones included, are never touched). Fields that need it (a comma, a
 * quote, a line break, or a leading or trailing blank) are quoted by
 * libcsv (csv_fwrite); lines end in "\n".
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
