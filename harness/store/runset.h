/*
 * runset.h - the rules of a run set read as one run.
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
 *
 * These are pure functions over what the store listed and loaded
 * (store_spec.c reads the members and the runs, then calls them): nothing
 * here includes the store, so the store and run sets are not a circle.
 */
#ifndef AB_RUNSET_H
#define AB_RUNSET_H

#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"

/* One run of a run set as listed by the store: by shard, then newest first. */
struct runset_member {
	int64_t id;
	int shard_index, shard_count;
	char status[16];
	char error[128];
};

/* The one 'ok' run of each shard 1..N, in shard order: *ids malloc'd,
 * *count = N. where names the database in messages. */
enum ab_rc runset_pick(const char *set, const char *where, const struct runset_member *m, int n, int64_t **ids,
		       int *count, struct ab_diag *d);

/* Joins the loaded shards (shard[i] is run ids[i]) into shard[0]: checks
 * they were measured alike, moves every case into shard[0] in ordinal
 * order, and makes its header the set's: id = the first shard's run id,
 * uuid '', run_set = set, shard_index 0, shard_count n, set_run_ids = ids
 * (owned by shard[0] on success), started_at the earliest, finished_at the
 * latest. */
enum ab_rc runset_join(const char *set, struct results_run **shard, int n, int64_t *ids, struct ab_diag *d);

#endif
