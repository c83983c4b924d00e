/*
 * runset.h - a run set read as one run.
 *
 * `abbench run --shard I/N --run-set ID` stores shard I of N of a
 * scenario's cases as a run of the set ID (the split: run/shard.h). Read
 * as "set:ID", the set becomes one results_run whose cases are every
 * shard's, in the scenario's order (each case keeps its ordinal), so that
 * show, export, report, compare and gate see what one run of the whole
 * scenario would have stored.
 *
 * A set reads only when it is whole: every shard 1..N has exactly one 'ok'
 * run (a failed or running attempt beside an 'ok' one is ignored), all of
 * them agree on N, and they measured the same scenario (hash), on the same
 * backend and device model, with the same build and --quick setting.
 * Anything else is AB_ERR_DATA naming what is missing or differs.
 */
#ifndef AB_RUNSET_H
#define AB_RUNSET_H

#include "common/diag.h"
#include "common/results.h"
#include "store/store.h"

/* Loads run set `set` as one run: id = the first shard's run id, uuid '',
 * run_set = set, shard_index 0, shard_count N, set_run_ids = the shards'
 * run ids by shard; started_at the earliest, finished_at the latest.
 * Release with results_run_free. */
enum ab_rc runset_load(struct store *st, const char *set, struct results_run **out, struct ab_diag *d);

#endif
