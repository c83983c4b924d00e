/*
 * diff_lines.h - the sentences of a divergence report (`abbench diff`,
 * analysis/divergence.h), built once into buffers so that the text and
 * the markdown printers (print/diff_print.c) say the same thing and only
 * escape and lay it out differently. Names from the database are written
 * raw: each printer escapes the whole sentence for its sink.
 */
#ifndef AB_DIFF_LINES_H
#define AB_DIFF_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/divergence.h"
#include "analysis/summary.h"

/* One tensor's sentences. */
struct diff_tensor_lines {
	char title[256];   /* "out (output, bf16, [B,T,W] = [1,64,64])" */
	char count[160];   /* "1353 of 4096 elements differ (33.03%)" */
	char hist[200];    /* "1: 1097 | 2: 130 | 3-10: 100 | 11-1000: 20 | >1000: 6" */
	char classes[200]; /* "class mismatches (NaN/Inf/finite) 0, NaN payloads 0, sign flips 3" */
	char max_ulp[400]; /* "14929 at [b=0, t=12, w=40]: A ..., B ..., reference ..." */
	char max_abs[400];
	char first[400];
	char rows[200];    /* "64 of 64 (100.00%) hold a difference; map 64 x 64 ..." */
	char ref[200];     /* "B is the nearer on 61.0% of 1353 compared (A on 30.1%, equally near 8.9%)" */
};

void diff_tensor_lines(const struct divergence_tensor *t, struct diff_tensor_lines *L);

/* "B (mss_inexact): not byte-equal to A1" and the like. */
void diff_slot_head(const struct divergence_slot *s, char *buf, size_t len);

/* What the slot compared with A1, in the chain's order, and the first
 * stage that departs. */
void diff_compared(const struct divergence_slot *s, char *buf, size_t len);

/* The slot's determinism: its hashed calls and how many differed. */
void diff_determinism(const struct results_slot *s, char *buf, size_t len);

/* The case's sweep's batch invariance ("batch-invariant: yes across T =
 * 1, 17, 4096", or where it breaks); "" when the case is in no sweep that
 * asked for it. */
void diff_invariance(const struct summary_run *S, const struct summary_case *c, char *buf, size_t len);

/* The case in one line: elements differing and %, max ULP, departure,
 * determinism. */
void diff_case_line(const struct summary_case *c, char *buf, size_t len);

/* Whether case c has a divergence to tell: not bit-exact (its verdict),
 * not batch-invariant, or a stage of its chain departs (an intermediate
 * differs, the outputs equal). show's two lines and the report's table
 * are for these cases. */
bool diff_case_differs(const struct summary_case *c);

#endif
