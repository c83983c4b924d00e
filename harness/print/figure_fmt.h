/*
 * figure_fmt.h - the figures of analysis/figures.h formatted by their hint
 * for each sink (a terminal's text, a markdown cell, a JSON value), a
 * view's case tables in text (show, run) and markdown (the report), and
 * the printers built on them: show, the CSV export, `abbench figures` and
 * diff (whose sentences show and the report say too). A printer formats
 * no figure of its own, so a new row of the table reaches every view that
 * places it with no printer changed. Text and markdown print an absent
 * figure's reason, else "n/a", never nan; a text table sizes each column
 * to its widest cell (a long name widens its column, it never pushes the
 * others out of line), numbers right-aligned, words left.
 */
#ifndef AB_FIGURE_FMT_H
#define AB_FIGURE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/figures.h"
#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"

/* The value as a terminal shows it (names escaped: print/escape.h). Returns buf. */
char *figure_fmt_text(const struct figure *f, const struct figure_value *v, char *buf, size_t len);

/* The value as a markdown table cell (escaped: print/md.h). */
void figure_fmt_md(FILE *out, const struct figure *f, const struct figure_value *v);

/* printf for a terminal: each %s argument (never NULL, as printf's)
 * escaped as escape_term does, every other conversion printf's. */
void term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of the figure named key at at, as figure_fmt_text. Returns buf. */
char *figure_fmt_text_at(const char *key, const struct figure_at *at, char *buf, size_t len);

/* The value as JSON (a new reference; NULL when out of memory), and its
 * second value (key2: an integer for a count, else a number; null). */
json_t *figure_fmt_json(const struct figure *f, const struct figure_value *v);
json_t *figure_fmt_json2(const struct figure *f, const struct figure_value *v);

/* A markdown table of a view over cases (idx[0..n) of S->cases; idx NULL:
 * every case): its head and delimiter rows, then a row per case, its first
 * cell label_head's: the case's name (with its own arms), or with axis its
 * value on the swept axis. compact leaves out the rows marked full_only. */
struct figure_fmt_md_table {
	enum figure_view view;
	const char *label_head;  /* "case", or the sweep's axis */
	bool axis;               /* the label is the case's axis value (right-aligned) */
	bool compact;
};
void figure_fmt_md_table(FILE *out, const struct figure_fmt_md_table *t, const struct summary_run *S, const int *idx,
			 int n);

/* The text table of the show view over case c's slots, indented by two,
 * or of the run view over S's cases (c NULL: the case's name first, its
 * own arms after the last column); after (NULL: none) prints what belongs
 * under a slot's row (its outputs' differences, its warnings). */
void figure_fmt_text_table(FILE *out, const struct summary_run *S, const struct summary_case *c,
			   void (*after)(FILE *out, const struct summary_slot *slot));

/* The text printer's PRINTER_SUMMARY (`abbench show`): job->summary's
 * header, per case its slots' table and the lines under it, then the
 * projection. AB_ERR_IO when the stream fails. */
enum ab_rc show_print(const struct printer_job *job, struct ab_diag *d);

/* A line per case (the run view's figures), then the verdicts counted:
 * what `abbench run` ends with. */
void show_summary_table(const struct summary_run *s, FILE *out);

/* The csv printer's PRINTER_SUMMARY: one run's results as CSV, for
 * spreadsheets and pandas: a header row, then a row per (case, slot),
 * cases in run order, slots in bracket order. The columns are the rows of
 * the table of figures that the CSV view places, in its order (`abbench
 * figures --view csv` lists them, docs/REPORTS.md "The figures" says what
 * each is): the slot's own figures, its arm's (arm_*: its slots pooled),
 * its case's (a speedup with its interval adds speedup_low, speedup_high)
 * and the run's id. A column is never moved: a new figure's goes last.
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
 * lines end in "\n". AB_ERR_IO when the stream fails. */
enum ab_rc export_csv_print(const struct printer_job *job, struct ab_diag *d);

/* `abbench figures` (PRINTER_FIGURES): every row of the table in its
 * order, or job->figures_view's rows in that view's order, each with its
 * key, level, hint, head, places and description. */
enum ab_rc figures_list_text(const struct printer_job *job, struct ab_diag *d);
enum ab_rc figures_list_markdown(const struct printer_job *job, struct ab_diag *d);
enum ab_rc figures_list_json(const struct printer_job *job, struct ab_diag *d);

/* `abbench diff` as text (every name through escape_term) and as markdown
 * (md_cell): what it tells is the command's --help; the JSON is
 * diff_json.c. The sentences below, which show and the report say too,
 * are built once, raw: each sink escapes the whole sentence. */
enum ab_rc diff_print_text(const struct printer_job *job, struct ab_diag *d);
enum ab_rc diff_print_markdown(const struct printer_job *job, struct ab_diag *d);

/* The case's sweep's batch invariance ("batch-invariant: yes across T =
 * 1, 17, 4096", or where it breaks); "" when the case is in no sweep that
 * asked for it. */
void diff_invariance(const struct summary_run *S, const struct summary_case *c, char *buf, size_t len);

/* The case in one line: elements differing and %, max ULP, departure, determinism. */
void diff_case_line(const struct summary_case *c, char *buf, size_t len);

/* Whether case c has a divergence to tell: not bit-exact (its verdict),
 * not batch-invariant, or a stage of its chain departs (an intermediate
 * differs, the outputs equal). show's two lines and the report's table
 * are for these cases. */
bool diff_case_differs(const struct summary_case *c);

#endif
