/*
 * coverage.h - which signatures a model met are certified
 * (docs/CERTIFICATE.md, `abbench coverage`): the lines of a signature log
 * (common/cert.h, struct cert_logged) grouped by signature and judged
 * environment, each weighted by how often it was seen, held against a
 * certificate's entries.
 *
 * A group is certified when an entry has its signature and no judged key
 * (cert_judged_keys: compute capability, torch, triton) that both the
 * entry and the log name differs; "other environment" when entries have
 * its signature but each differs in such a key (the first one's
 * differences are said); "missing" when no entry has it: the model takes
 * its fallback there. For each group that is not certified, `proof` is an
 * entry of its site whose arms, site text and inputs a scenario can use to
 * prove it (-1: the certificate has no entry of that site).
 */
#ifndef AB_COVERAGE_H
#define AB_COVERAGE_H

#include <stdint.h>

#include "common/cert.h"
#include "common/diag.h"

enum coverage_status { COVERAGE_CERTIFIED, COVERAGE_OTHER_ENV, COVERAGE_MISSING };

struct coverage_row {
	struct cert_sig sig;
	struct cert_env env;   /* the log's judged keys (cert_judged_keys) */
	int64_t count;         /* calls seen */
	int64_t lines;         /* log lines that made it */
	enum coverage_status status;
	int entry;             /* certified: the entry; other env: the first with its signature; else -1 */
	int proof;             /* not certified: an entry of its site to prove it with; -1 none */
	char why[300];         /* other env: "torch 2.11.0 -> 2.12.0" (the entry's -> the log's) */
};

struct coverage {
	int n, cap;
	struct coverage_row *rows;
	int64_t calls, calls_certified;
	int n_certified, n_other_env, n_missing;
};

/* Adds one logged line to its group (a new group for a new signature or
 * judged environment); AB_ERR_NOMEM only. */
enum ab_rc coverage_add(struct coverage *cv, const struct cert_logged *l, struct ab_diag *d);

/* Judges every group against c and sorts them: most calls first. */
void coverage_judge(struct coverage *cv, const struct cert *c);

void coverage_free(struct coverage *cv);

/* "status" words for printers: "certified", "other environment", "missing". */
const char *coverage_status_str(enum coverage_status s);

#endif
