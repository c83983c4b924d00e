/*
 * peers.h - the runs a report sets beside the one it reports, one per GPU,
 * and what the report says about them: which runs they are (peers_pick,
 * from the store's run listing), and per case the summary of each run and
 * whether every output's md5 agrees with the reported run's (peers_table).
 *
 * A report of one run gets as peers the newest 'ok' run of its scenario on
 * every other device, never a quick or fake-timer one (numbers that are not
 * measurements never join a real report unless named), and a fake-timer
 * run gets none. Runs named on the command line are the peers as named.
 * What sets the runs apart is decided here too (peers_axis): runs whose
 * arms differ in some case they share compare arms, not GPUs, whatever
 * their devices; runs of the same arms on different devices are the per-GPU
 * picture; runs of the same arms on one device are repeated runs.
 * Computed here once; print/report.c and print/report_charts.c only format.
 */
#ifndef AB_PEERS_H
#define AB_PEERS_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/summary.h"
#include "common/diag.h"
#include "common/results.h"

/* From runs listed newest first, the ids of the newest 'ok' run of run's
 * scenario on each device other than run's, at most max; returns how
 * many. Quick and fake-timer runs are never picked, and a fake-timer run
 * gets no peers. */
int peers_pick(const struct results_run_summary *runs, int n, const struct results_run *run, int64_t *ids, int max);

/* md5 agreement of one case across the runs: outputs compared (same slot,
 * same tensor) and how many differ, over the runs that have the case. */
struct peers_md5 {
	int compared, differ, runs;
};

/* What the runs of the table differ in, the first that applies. */
enum peers_axis {
	PEERS_ALONE,   /* one run: no peers */
	PEERS_ARMS,    /* some case they share ran other arms (a or b) in some run */
	PEERS_GPUS,    /* the same arms, and every run on a device of its own */
	PEERS_RUNS,    /* the same arms, two runs or more on one device */
};

/* The reported run (series 0) and its peers (series 1..), case by case in
 * the reported run's order. */
struct peers_table {
	int n_cases, n_series;
	const struct summary_run *const *series; /* [n_series]: the run, then its peers */
	const struct summary_case **cell;        /* [case * n_series + series]; NULL: not in that run */
	struct peers_md5 *md5;                   /* [n_cases], against series 0 */
	enum peers_axis axis;
	bool *arms_differ;                       /* [n_cases]: some run ran the case with other arms */
	int n_arms_differ;                       /* cases with arms_differ */
};

/* Builds the table of run and its n peers (series points into run and
 * peers: keep them alive). Free with peers_table_free. */
enum ab_rc peers_table_build(const struct summary_run *const *series, int n_series, struct peers_table *out,
			     struct ab_diag *d);
void peers_table_free(struct peers_table *t);

/* The summary of case i in series s, NULL when that run lacks it. */
const struct summary_case *peers_cell(const struct peers_table *t, int i, int s);

#endif
