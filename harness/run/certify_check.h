/*
 * certify_check.h - `abbench certify --check CERT.json`: the certified
 * cases proved again here, and per entry what changed.
 *
 * The entries of each source run that share their two arms become one
 * scenario (config/cert_scenario.h: their sites, arms, inputs and seed,
 * one sample a slot; an arm that cannot run here loses only its entries), read as if it stood in the run's scenario_dir (so that the
 * arms' relative paths lead where they led), run on the certificate's
 * backend into a database of its own in a temporary directory (removed
 * afterwards), and each case judged as certify judges one
 * (cert_case_exact). Per entry:
 *
 *   exact    byte-equal in every slot, here;
 *   lost     not byte-equal, or it could not run here (its artefact is
 *            gone, the backend is missing, an arm failed): the reason;
 * and beside either verdict, what differs from the certificate: the
 * environment (each key, "torch 2.11.0 -> 2.12.0"), an arm's artefact
 * (its sha256), the outputs' md5s.
 */
#ifndef AB_CERTIFY_CHECK_H
#define AB_CERTIFY_CHECK_H

#include <stdbool.h>

#include "common/cert.h"
#include "common/diag.h"

struct certify_check_entry {
	bool exact;
	char why[AB_DIAG_MAX];   /* lost: why */
	char env_diff[512];      /* "" when the environment is the certificate's */
	char artefact_diff[512]; /* "" when every arm's artefact is the certified one */
	bool md5_same;           /* the outputs' md5s are the certificate's */
	int64_t run_id;          /* the check's run in its database (0: none) */
};

struct certify_check {
	int n;
	struct certify_check_entry *e; /* per entry of the certificate, in its order */
	int n_exact, n_lost, n_env, n_artefact;
};

struct certify_check_options {
	bool progress; /* the runs' progress lines on stderr */
	const char *keep_db; /* NULL: a temporary database, removed; else this file, kept */
};

/* Proves every entry of c again. AB_OK with the verdicts in out (lost
 * entries are verdicts, not errors); an error only when nothing could be
 * judged at all (no temporary directory, out of memory), or
 * AB_ERR_INTERRUPTED when SIGINT, SIGTERM or SIGHUP stopped a run (the
 * check stops there; out is empty). */
enum ab_rc certify_check(const struct cert *c, const struct certify_check_options *o, struct certify_check *out,
			 struct ab_diag *d);
void certify_check_free(struct certify_check *k);

#endif
