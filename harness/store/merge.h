/*
 * merge.h - `abbench merge OUT.db IN.db...`: copy runs between databases.
 *
 * Every run of every input ('ok' or 'failed'; a 'running' one is skipped
 * and counted) is copied into OUT with everything it holds: its cases,
 * slots, samples, kernel records and outputs, its provenance (scenario
 * text, command line, build, host, times) and its device row (reused when
 * OUT knows the device). Runs are matched by UUID: a run OUT already holds
 * is compared field by field (results_run_same) and skipped when equal, so
 * merging a file twice adds nothing; when it differs the merge stops with
 * AB_ERR_DATA. Baselines are copied by name, pointing at the copied run
 * (or run set); a name OUT already uses for another target is kept as it
 * is and reported as a clash.
 *
 * Inputs are opened read-only and must have this build's schema version
 * (older files: any writing command of this abbench, such as 'abbench
 * baseline set', migrates them); they
 * are all checked before OUT is opened. All copying happens in one
 * transaction on OUT: on any failure OUT is left as it was. A new OUT is
 * built in a temporary file beside it and linked into place only when
 * whole (when another process made OUT meanwhile, the merge is made into
 * that one instead): a merge never removes a file it did not create.
 * Each input is read through its own connection, not ATTACH: SQLite
 * attaches at most 10 databases and cannot detach one inside the
 * transaction, and a Slurm array easily has more shards than that.
 */
#ifndef AB_MERGE_H
#define AB_MERGE_H

#include "common/diag.h"

struct merge_stats {
	int copied;           /* runs added to OUT */
	int present;          /* runs OUT already held, equal */
	int running;          /* 'running' runs left out */
	int baselines;        /* baselines added */
	int clashes;          /* baseline names OUT already uses for another run */
	char clash_names[256]; /* the first of those, comma-separated */
};

enum ab_rc merge_files(const char *out_path, const char *const *inputs, int n_inputs, struct merge_stats *ms,
		       struct ab_diag *d);

#endif
