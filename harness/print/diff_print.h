/*
 * diff_print.h - `abbench diff` as text (every name through escape_term)
 * and as markdown (md_cell), and the sentences that show and the report
 * say too: built once, raw, each sink escaping the whole sentence. What
 * it tells per slot and per tensor is the command's --help; the JSON is
 * print/diff_json.c.
 */
#ifndef AB_DIFF_PRINT_H
#define AB_DIFF_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "print/printer.h"

enum ab_rc diff_print_text(const struct printer_job *job, struct ab_diag *d);
enum ab_rc diff_print_markdown(const struct printer_job *job, struct ab_diag *d);

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
