/*
 * publish_steps.h - the dashboard's page of every step (DIR/steps.html)
 * and the links the dashboard's pages share: a commit through the
 * --commit-url template, a run to its report's page, a step as a line.
 *
 * steps.html lists every step of the history, newest first: what it is (a
 * regression, an improvement, or same commit: noise, analysis/history.h),
 * its change and levels, its test's p, the scenario, device and case, and
 * the runs either side of it, each linked to its report page and its
 * commit. Every text from the database goes through escape_html; a commit
 * put into the template through escape_url_part, the whole URL then
 * through escape_html.
 */
#ifndef AB_PUBLISH_STEPS_H
#define AB_PUBLISH_STEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/history.h"
#include "common/diag.h"

/* What the links of a page know: the commit template and whether every
 * run of the history has its report page (runs/run-ID/report.html). */
struct publish_links {
	const char *commit_url; /* NULL: commits are not linked */
	bool reports;
};

/* <code>COMMIT</code>, inside a link to the template's URL when there is
 * one and the commit is recorded ("-dirty" dropped from the URL). */
void publish_commit(FILE *f, const struct publish_links *L, const char *commit);

/* "run ID", linked to the run's report page when there are reports. */
void publish_run(FILE *f, const struct publish_links *L, int64_t id);

/* The class of step k's line: "bad", "better" or "noise". */
const char *publish_step_class(const struct history *h, const struct history_series *s, int k);

/* Step k of series s as the text of an <li>: "Step +25.00% at run 4
 * (commit c000..., 2026-11-04, label nightly-4): 4.05 us -> 5.06 us, a
 * regression", the run and commit linked. */
void publish_step_line(FILE *f, const struct history *h, const struct history_series *s, int k,
		       const struct publish_links *L);

/* DIR/steps.html (an outfile), styled by style.css beside it. */
enum ab_rc publish_steps_write(const char *dir, const char *title, const struct history *h,
			       const struct publish_links *L, struct ab_diag *d);

#endif
