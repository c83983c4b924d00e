/*
 * slot_check.h - a slot's tensors against the first A slot's, once its
 * samples are done (run_case.c calls it): every output read back, its
 * md5 (common/digest.h), its bytes compared with the first A slot's and,
 * where they differ, the divergence walk (run/divergence.h) that measures
 * how; every statistic and scratch tensor that both the slot's arm and
 * arm a write, compared the same way; the outputs against the float64
 * reference (run/refcheck.h).
 *
 * The first A slot's outputs and intermediates are kept (case_data.h)
 * and compared with nothing. The slot's check records the tensors
 * compared, in the eager chain's order, so that the first stage that
 * departs reads off its divergences. An output equal to the first A
 * slot's costs a memcmp: its md5 and reference check are that slot's.
 */
#ifndef AB_SLOT_CHECK_H
#define AB_SLOT_CHECK_H

#include <stdint.h>

#include "backend/backend.h"
#include "common/diag.h"
#include "common/results.h"
#include "run/case_data.h"

/* Checks slot sl of cd's case, whose arm writes writes (its plan's
 * writes): fills sl->outputs, sl->check.compared and sl->div; keeps the
 * first A slot's bytes in cd. */
enum ab_rc slot_check_tensors(const struct backend_ops *ops, struct backend *bk, struct case_data *cd,
			      uint32_t writes, struct results_slot *sl, struct ab_diag *d);

#endif
