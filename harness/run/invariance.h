/*
 * invariance.h - batch invariance (issue 29.5): for the cases of a sweep
 * declared with `invariance = rows` (docs/SCENARIO_FORMAT.md), whether
 * row r of every output is the same in every case of the sweep, arm by
 * arm.
 *
 * The cases of such a sweep draw their inputs from the sweep's seed, not
 * each case's (run_case.c), so that row r of every input is the same in
 * every case: the swept axis is outermost among the axes of extent above
 * 1 (the scenario's check), a tensor is filled in memory order, and so
 * row r (index r along the swept axis, everything inside it) is a prefix
 * the cases share. A tensor without the swept axis is the same in every
 * case.
 *
 * For each arm, the outputs of its first slot in each case are held to
 * the rows the sweep's earlier cases produced: row r against the first
 * case that had a row r (the union of the rows seen so far, kept per arm
 * and output, as large as the largest case's output); rows past them are
 * added. An output without the swept axis is held whole to the first
 * case's. The verdict is per case and arm (results_invariance): the rows
 * compared, the first that differs and the sweep value of the case it
 * came from. Only the cases measured by this process are compared: a
 * shard or a resumed run compares the cases it measures.
 */
#ifndef AB_INVARIANCE_H
#define AB_INVARIANCE_H

#include "common/diag.h"
#include "common/results.h"
#include "config/case_plan.h"

struct invariance;

/* An empty store of rows; NULL when out of memory. */
struct invariance *invariance_new(void);
void invariance_free(struct invariance *v);

/* The case planned p: its arm (0: a, 1: b) produced these outputs in its
 * first slot (slot: its label): out[o] is output tensor p->out_index[o]
 * of its site. Fills *res when its sweep asks for invariance (else leaves
 * it unchecked). AB_ERR_NOMEM when the rows cannot be kept. */
enum ab_rc invariance_take(struct invariance *v, const struct case_plan *p, int arm, const char *slot,
			   void *const *out, struct results_invariance *res, struct ab_diag *d);

#endif
