/*
 * prune_print.h - what `abbench prune` removed, or would remove: a line
 * per run, newest first, then one line with the count.
 */
#ifndef AB_PRUNE_PRINT_H
#define AB_PRUNE_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/diag.h"
#include "common/results.h"

/*   run 12  2026-12-06T05:46:50Z  glm_cpu  label 'aa-2-b'  failed  3 cases
 *   pruned 1 run (3 cases)           or, dry_run:
 *   would prune 1 run (3 cases); --dry-run: nothing removed
 * "nothing to prune" when n is 0. AB_ERR_IO when f cannot be written. */
enum ab_rc prune_print(FILE *f, const struct results_run_summary *runs, int n, bool dry_run, struct ab_diag *d);

#endif
