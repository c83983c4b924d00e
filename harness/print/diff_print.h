/*
 * diff_print.h - `abbench diff` as text (a terminal: every name through
 * escape_term) and as markdown (md_cell): per slot that is not byte-equal
 * to the first A slot, or whose calls differed, the tensors it compared
 * in the eager chain's order and the first that departs; per tensor the
 * elements that differ and their %, the ULP histogram, class mismatches,
 * NaN payloads and sign flips, the largest ULP, the largest absolute
 * difference and the first difference with their coordinates and the A,
 * B and reference values, the rows touched and the heatmap, which side
 * the float64 reference is nearer; then the case's determinism and its
 * sweep's batch invariance. The sentences are diff_lines.h's, shared with
 * nothing else: the JSON is print/diff_json.c.
 */
#ifndef AB_DIFF_PRINT_H
#define AB_DIFF_PRINT_H

#include "common/diag.h"
#include "print/printer.h"

enum ab_rc diff_print_text(const struct printer_job *job, struct ab_diag *d);
enum ab_rc diff_print_markdown(const struct printer_job *job, struct ab_diag *d);

#endif
