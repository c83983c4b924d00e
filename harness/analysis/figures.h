/*
 * figures.h - the one table of every figure abbench prints about a run: a
 * row per figure, found by name, that says what it is and where it goes.
 * nvbench's summaries are the model (a summary has a hint, a short name
 * and a description, and its printers loop over summaries and format each
 * by its hint); google/benchmark's statistics registered by name the other.
 *
 * A row has
 *   key        its name: the CSV column and, unless json says otherwise,
 *              the JSON key (abbench.show)
 *   head       the short name: the column head of text and markdown tables
 *   hint       what kind of number or word it is (enum figure_hint): the
 *              one thing a printer needs to format it, in every sink
 *   level      what it belongs to: a slot, an arm (a row of a case table
 *              shows it for A and for B), a case or the run
 *   at         its place in each view (enum figure_view), 1 first; 0: the
 *              view does not show it
 *   get        its value, read from the summary (analysis/summary.h):
 *              every figure is computed in summary.c, a getter only reads
 *   desc       one line saying what it is (`abbench figures`, docs)
 *
 * Printers (print/figure_fmt.h) loop over the rows of their view in `at`
 * order and format each by its hint: show's slot table, run's closing
 * table, the report's Summary, Bandwidth and Sweeps tables, the CSV
 * export and the abbench.show document; tests/cli/t055 loops over the
 * same rows (`abbench figures --format json`) to check that they agree.
 *
 * A new figure is a named field of the summary computed in summary.c and
 * one row here (with its place in the views that show it); no printer
 * changes. A figure that can be unknown sets `absent` (printed "n/a", or
 * the reason the getter gives; an empty CSV cell; JSON null; never nan;
 * a row marked omit_unknown drops out of a text or markdown table whose
 * every cell of it is unknown);
 * one with a second value (GPU and host time, B GB/s and its % of copy)
 * sets x2, named by key2 in CSV and JSON (json2 when JSON names it
 * otherwise).
 */
#ifndef AB_FIGURES_H
#define AB_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/summary.h"

/* What a figure is: how every sink formats it (print/figure_fmt.h). */
enum figure_hint {
	FIGURE_DURATION,  /* ns: "16.19 us" (the unit scales), JSON and CSV ns */
	FIGURE_RATIO,     /* "4.001x" (digits decimals), with its interval when the row has ci */
	FIGURE_FRACTION,  /* a fraction, printed as a percentage: "0.13%" */
	FIGURE_PERCENT,   /* already a percentage: "19.8%" */
	FIGURE_BANDWIDTH, /* GB/s: "3.2", its % of copy (x2) or why none beside it: "3.2 (19.8%)" */
	FIGURE_COUNT,     /* an integer; a second one as "40/20" */
	FIGURE_BYTES,     /* bytes: "51.3 kB" */
	FIGURE_NUMBER,    /* a plain real: "%.3g" */
	FIGURE_TEXT,      /* words from the run (a shape, a stopping reason) */
	FIGURE_NAME,      /* a name (case, variant): code in markdown */
	FIGURE_DIGEST,    /* md5s joined by '+': each cut to 8 digits in text, a list in JSON */
	FIGURE_FLAG,      /* yes / no (text: NO, markdown: **no**), 0/1 in CSV, true/false in JSON */
	FIGURE_VERDICT,   /* a verdict: its words for people, its key for CSV and JSON */
	FIGURE_SPREAD,    /* median [low, high] n=N: an arm's time and its spread */
	FIGURE_NESTED,    /* JSON only: the level below as a list (a run's cases, a case's slots) */
	FIGURE_HINTS,
};

enum figure_level {
	FIGURE_SLOT,
	FIGURE_ARM,  /* a case table shows it twice, for A and for B (or B alone: b_only) */
	FIGURE_CASE,
	FIGURE_RUN,
	FIGURE_LEVELS,
};

/* Where figures are printed. */
enum figure_view {
	FIGURE_IN_CSV,          /* export/show --format csv: one row per slot, with its case's figures */
	FIGURE_IN_JSON,         /* the abbench.show document (show --format json) */
	FIGURE_IN_SHOW,         /* show: the table of a case's slots */
	FIGURE_IN_RUN,          /* run's closing table: a row per case */
	FIGURE_IN_REPORT,       /* the report's Summary table */
	FIGURE_IN_BANDWIDTH,    /* the report's Bandwidth table */
	FIGURE_IN_SWEEPS,       /* the report's Sweeps tables: a row per case of a sweep */
	FIGURE_IN_ACCURACY,     /* the report's divergence table: a row per case not bit-exact */
	FIGURE_VIEWS,
};

#define FIGURE_BIT(view) (1u << (view))

/* The most rows the table holds (test_figures checks it fits): a printer
 * collects a view's rows into an array of this size. */
#define FIGURE_MAX 256

/* A figure's value where it is read. Which members mean something depends
 * on the hint; a sink reads only those. */
struct figure_value {
	bool absent;        /* unknown here: the reason in words, else "n/a"; CSV empty, JSON null */
	double x;           /* the number (FLAG: 1 or 0, which JSON prints even when absent) */
	double x2;          /* its second value (key2; COUNT "x/x2"; BANDWIDTH's % of copy), NAN: none */
	double lo, hi;      /* its interval (RATIO with ci, SPREAD), NAN: none */
	int n;              /* SPREAD: the sample count */
	const char *text;   /* TEXT, NAME, DIGEST; VERDICT: its key; FLAG: its own word (ok, FAIL), NULL: yes, no */
	const char *words;  /* VERDICT in words; BANDWIDTH: why no % (cache-resident); absent: why */
	bool good;          /* emphasised as good (a speedup whose case is faster: markdown bold) */
	bool bad;           /* a FLAG or VERDICT to be noticed (NO, **no**) */
	char buf[160];      /* words made for this value (words may point here: pass values by pointer) */
};

/* Where a figure is read: the run, and the case, arm and slot the row's
 * level needs (a slot row of the CSV also sets arm: its slot's). */
struct figure_at {
	const struct summary_run *run;
	const struct summary_case *c;
	const struct summary_arm *arm;
	const struct summary_slot *slot;
};

struct figure;
typedef void (*figure_get_fn)(const struct figure *f, const struct figure_at *at, struct figure_value *v);

struct figure {
	const char *key;       /* CSV column; JSON key unless json; unique */
	const char *key2;      /* the second value's CSV column and JSON key (beside the first's); NULL: none */
	const char *label;     /* the value's word before it in text and markdown ("GPU"); NULL: none */
	const char *label2;    /* the second value's word in text and markdown: "22.6 us, host 38.1 us" */
	const char *json;      /* JSON path when not key: '.' nests objects, "%c" is the arm (a, b) */
	const char *json2;     /* the second value's JSON key when not key2 ("%c" the arm), beside the first's */
	const char *head;      /* column head; an arm row's is "A ARM HEAD" */
	enum figure_hint hint;
	enum figure_level level;
	unsigned char digits;  /* decimals of a RATIO or PERCENT in text and markdown */
	bool ci;               /* RATIO: with its interval (CSV adds KEY_low, KEY_high) */
	unsigned char at[FIGURE_VIEWS]; /* place in each view, 1 first; 0: not shown */
	unsigned b_only;       /* FIGURE_BITs of the views that show only arm b of an arm row */
	unsigned full_only;    /* FIGURE_BITs of the views whose compact form leaves it out */
	bool omit_unknown;     /* a table leaves its column out when no cell of it is known (host time
				* on the CPU backend, a launch-bound mark no arm earned) */
	figure_get_fn get;
	size_t arg;            /* the getter's: a field's offset, a verdict kind */
	const char *desc;      /* one line */
};

/* The table, in the order `abbench figures` lists it; n_figures rows. */
extern const struct figure figures[];
extern const int n_figures;

/* The row named key, NULL when none. */
const struct figure *figure_find(const char *key);

/* The rows view shows, in their order there (at most max; returns how
 * many). A printer loops over these. */
int figure_view_rows(enum figure_view view, const struct figure **rows, int max);

/* The row's value at at (every member set: NAN, NULL, false when unused). */
void figure_value_of(const struct figure *f, const struct figure_at *at, struct figure_value *v);

/* "duration", "slot", "csv" ...: names for listings and messages. */
const char *figure_hint_str(enum figure_hint h);
const char *figure_level_str(enum figure_level l);
const char *figure_view_str(enum figure_view v);

#endif
