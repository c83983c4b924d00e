/*
 * figure_fmt.h - the figures of analysis/figures.h formatted by their hint
 * for each sink (a terminal's text, a markdown cell, a JSON value), and a
 * view's case tables in text (show, run) and markdown (the report): a
 * printer formats no figure of its own, so a new row of the table reaches
 * every view that places it with no printer changed. Text and markdown
 * print an absent figure's reason, else "n/a", never nan; a text table
 * sizes each column to its widest cell (a long name widens its column, it
 * never pushes the others out of line), numbers right-aligned, words left.
 */
#ifndef AB_FIGURE_FMT_H
#define AB_FIGURE_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/figures.h"

/* The value as a terminal shows it (names escaped: print/escape.h). Returns buf. */
char *figure_fmt_text(const struct figure *f, const struct figure_value *v, char *buf, size_t len);

/* The value as a markdown table cell (escaped: print/md.h). */
void figure_fmt_md(FILE *out, const struct figure *f, const struct figure_value *v);

/* printf for a terminal: each %s argument escaped as escape_term does
 * (cut at 1023 bytes), every other conversion printf's. */
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

/* The text table of a view over the slots of case c (FIGURE_IN_SHOW), or
 * over S's cases (c NULL: FIGURE_IN_RUN, the case's name first and its own
 * arms after the last column), each line after indent; after (NULL: none)
 * prints what belongs under a slot's row (its outputs' differences, its
 * warnings). */
typedef void (*figure_fmt_after_fn)(FILE *out, const struct summary_slot *slot);
void figure_fmt_text_table(FILE *out, enum figure_view view, const struct summary_run *S, const struct summary_case *c,
			   const char *indent, figure_fmt_after_fn after);

#endif
