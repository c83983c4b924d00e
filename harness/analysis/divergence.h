/*
 * divergence.h - where a case's bits differ, read off the divergences its
 * slots stored (common/results.h; run/divergence.h measured them), for
 * `abbench diff` and for the summary's per-case figures.
 *
 *   divergence_report_of  one case, slot by slot: each slot that is not
 *                         byte-equal to the first A slot or whose calls
 *                         differed, its tensors in the eager chain's
 *                         order, the first stage that departs, and each
 *                         element's coordinates in the site's axes and
 *                         values decoded from their bits
 *   divergence_case       the per-case figures of summary.h (elements
 *                         differing, %, max ULP, departure, determinism,
 *                         batch invariance)
 *   divergence_sweep      a sweep's batch-invariance verdict
 *
 * Computes and judges only: print/ formats (print/diff_print.c).
 */
#ifndef AB_ANALYSIS_DIVERGENCE_H
#define AB_ANALYSIS_DIVERGENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "common/results.h"
#include "kernels/common/site.h"

/* One element as diff shows it. */
struct divergence_value {
	bool present;                  /* false: there is no such element */
	int64_t index;
	struct divergence_coords where;
	double a, b, ref;              /* the values (ref NAN: no reference) */
	int64_t a_bits, b_bits;
	int64_t ulp;                   /* their distance; -1: a class mismatch or NaN payload */
	double abs_diff;               /* |b - a|; NAN unless both finite */
};

/* One tensor of a slot not byte-equal to the first A slot's. */
struct divergence_tensor {
	const struct results_divergence *v;
	enum site_dtype dtype;
	double pct;                    /* 100 n_diff / elems */
	double rows_pct;               /* 100 rows_touched / rows */
	double b_closer_pct;           /* 100 b_closer / ref_compared; NAN without a reference or none compared */
	struct divergence_value max_ulp, max_abs, first;
};

/* One slot: what it compared, what departed, whether its calls agreed. */
struct divergence_slot {
	const struct results_slot *slot;
	int n_compared;
	char compared[RESULTS_MAX_DIV][32]; /* in the chain's order */
	int departure;                 /* index into compared of the first that differs; -1: none */
	int n_tensors;
	struct divergence_tensor tensors[RESULTS_MAX_DIV]; /* its divergences (those diff asked for) */
	bool nondeterministic;         /* its outputs changed between its hashed calls */
};

struct divergence_report {
	const struct results_run *run;
	const struct results_case *c;
	const char *only;              /* the tensor diff was asked about; NULL: every one */
	bool measured;                 /* the run stored divergences (schema 10 and later) */
	int n_slots;
	struct divergence_slot *slots; /* the slots that differ or were nondeterministic, in order */
	int n_equal;                   /* slots byte-equal to the first A slot and deterministic (A1 counted) */
};

/* The report of case c of run r (only: one tensor's name, NULL: all).
 * AB_ERR_USAGE naming the case's tensors when only names none of them;
 * AB_ERR_NOMEM. Release with divergence_report_free. */
enum ab_rc divergence_report_of(const struct results_run *r, const struct results_case *c, const char *only,
				struct divergence_report *out, struct ab_diag *d);
void divergence_report_free(struct divergence_report *rep);

/* The coordinates of element index of tensor v (its axes and dims);
 * false when they cannot be read (a damaged row). */
bool divergence_coords_of(const struct results_divergence *v, int64_t index, struct divergence_coords *out);

/* "[b=0, t=17, w=64]" (the axes in lower case, as the site's shape rule
 * names them), or "[index]" where the coordinates are not known (rank 0).
 * The words diff, show and the report use for a place. Returns buf. */
char *divergence_coords_text(const struct divergence_coords *c, int64_t index, char *buf, size_t len);

/* Case s's figures (s->div, s->det, s->inv) from its slots. */
void divergence_case(struct summary_case *s);

/* Sweep w's batch-invariance verdict from its cases. */
void divergence_sweep(const struct summary_run *S, struct summary_sweep *w);

#endif
