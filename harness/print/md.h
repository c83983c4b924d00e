/*
 * md.h - writing markdown documents: escaping, tables, number formats, and
 * output files that appear whole or not at all (common/outfile.h).
 *
 * The report, compare and gate printers share these so that every table
 * renders on GitHub whatever a kernel, case or device is called: a cell
 * never breaks its row, never turns into HTML and never starts emphasis by
 * accident; md_scrub_paths keeps this machine's absolute paths out of a
 * document meant for a pull request. md_html_render renders a report as HTML.
 */
#ifndef AB_MD_H
#define AB_MD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "common/outfile.h"

/* Writes s as the text of one table cell (escaped; NULL writes nothing). */
void md_cell(FILE *f, const char *s);

/* Writes s as a code span in a table cell (`name`), '|' escaped; falls back
 * to md_cell when s holds a backtick. */
void md_code(FILE *f, const char *s);
/* printf for markdown: each plain %s argument written as md_cell writes
 * it, a %s between backticks in fmt ("`%s`") as md_code does; markup
 * (bold, a built cell) goes in fmt or fputs. */
void md_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A case's name as code, and when it ran arms of its own (not the run's
 * [arms]) "(a `X`, b `Y`)" after it: every table that names a case. */
void md_case_name(FILE *f, const char *name, bool own_arms, const char *arm_a, const char *arm_b);

/* Writes a header row and its delimiter row. align is one character per
 * column: 'l', 'r' or 'c' (NULL: all left). */
void md_table_head(FILE *f, int n, const char *const *cols, const char *align);

/* Copies s into buf with every absolute path token ("/a/b/c" at the start,
 * after a space, '=', quote or '(') replaced by its last component, so
 * "--db /tmp/x/ab.db" becomes "--db ab.db". Returns buf. */
char *md_scrub_paths(const char *s, char *buf, size_t len);

/* Number formats used in every table (fixed units so that columns compare
 * and tests can recompute them), "n/a" for NAN:
 *   md_pct:  a fraction as a percentage with sign, "+1.23%"
 *   md_bytes: decimal units, "51.3 kB", "67.13 MB", "1.23 GB"; "n/a" for 0
 *            or negative too (unknown)
 *   md_num:  a real to digits significant digits ("%.*g")
 *   md_share: a fraction as a percentage without sign, "0.13%"
 * Each writes into buf and returns it; MD_TIME and the like write into a
 * buffer of the enclosing block, for a printf argument:
 * fprintf(f, "A %s, B %s", MD_TIME(a), MD_TIME(b)). */
char *md_pct(double frac, char *buf, size_t len);
char *md_bytes(double bytes, char *buf, size_t len);
char *md_num(double x, int digits, char *buf, size_t len);
char *md_share(double frac, char *buf, size_t len);

/* Times whose unit scales with their size, as `abbench show` prints them:
 * "850 ns", "4.06 us", "1.234 ms", else s; NAN prints "n/a". A unit is
 * chosen for one reference time (md_time_unit) so that an interval prints
 * in the unit of its point: md_time_in(low, &u) "4.05". */
struct md_unit {
	const char *name;  /* "ns", "us", "ms", "s" */
	double div;        /* ns per unit */
	int decimals;
};
struct md_unit md_time_unit(double ns);
char *md_time(double ns, char *buf, size_t len);                          /* "4.06 us" */
char *md_time_in(double ns, const struct md_unit *u, char *buf, size_t len); /* "4.06" */

#define MD_TIME(ns) md_time((ns), (char[48]){ 0 }, 48)
#define MD_SHARE(frac) md_share((frac), (char[48]){ 0 }, 48)
#define MD_NUM(x, digits) md_num((x), (digits), (char[48]){ 0 }, 48)
#define MD_BYTES(bytes) md_bytes((bytes), (char[48]){ 0 }, 48)

/* An arm's time in a unit that scales, "16.19 us [16.15, 16.24] n=40" (p10
 * and p90 in the median's unit), or "n/a" without samples; md_spread_str
 * of any interval (lo NAN: "[n/a]"), into buf. */
void md_spread_time(FILE *f, const struct summary_spread *s);
char *md_spread_str(double median_ns, double lo_ns, double hi_ns, int n, char *buf, size_t len);

/* The run's per-case verdicts counted, as every headline says them (the
 * report's first line, the dashboard, run's closing table): "faster in 5
 * of 6 cases (speedup 1.74x to 2.46x), drifted 1 (not trusted), slower 0,
 * no clear change 0; bit-exact in 6 of 6", with "lost bit-exactness N (K
 * nondeterministic)" after the first count when a case lost it: the
 * counts add up to the cases. Plain text, no markup. */
void md_verdict_counts(FILE *f, const struct summary_run *S);

/* Why no case of S has a host time a call (analysis/hosttime.h), as show
 * and the report say it: "the CPU backend: its call is the work", "timing
 * = graph times no single call", "the run stored none"; NULL: one has. */
const char *md_host_unmeasured(const struct summary_run *S);

/* A case's verdict as every table prints it: "faster", "no clear change",
 * "drifted 24.25% (not trusted)", "lost bit-exactness" ... (the figures
 * table's verdict row in words). Returns buf. */
char *md_case_verdict(const struct summary_case *c, char *buf, size_t len);

/* An arm's share of the copy bandwidth as the show and per-GPU lines say
 * it: " (68.4%)" of the copy bandwidth, " (cache-resident)" when the
 * case's working set fits the last-level cache, "" when unknown;
 * with_word adds " of copy" after the percentage. Returns buf. */
char *md_bw_pct(const struct summary_case *c, const struct bandwidth_arm *a, bool with_word, char *buf, size_t len);

/* The printers' output file: an outfile (common/outfile.h) whose stream is
 * f; after commit or abort the struct is closed. */
struct md_file {
	FILE *f;
	struct outfile out;
};

enum ab_rc md_file_open(struct md_file *mf, const char *path, struct ab_diag *d);
enum ab_rc md_file_commit(struct md_file *mf, struct ab_diag *d);
void md_file_abort(struct md_file *mf);

/* Creates dir and its missing parents (mkdir -p). */
enum ab_rc md_mkdirs(const char *dir, struct ab_diag *d);

/* The markdown file md_path as an HTML page (an outfile) with the
 * dashboard's style sheet at css (a relative path), by cmark-gfm: the
 * report's tables render as on GitHub, its <details> stay. */
enum ab_rc md_html_render(const char *md_path, const char *html_path, const char *title, const char *css,
			  struct ab_diag *d);

#endif
