/*
 * cmd_certify.c - `abbench certify RUN... --out CERT.json`: a certificate
 * of the signatures the runs proved byte-equal (run/certify.h), and
 * `abbench certify --check CERT.json`: those cases proved again here
 * (run/certify_check.h). Exit statuses of --check: 0 every entry still
 * exact, 1 any lost, 2 a bad certificate (unreadable, not one, or changed
 * after it was issued).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "common/cert.h"
#include "common/diag.h"
#include "common/outfile.h"
#include "print/printer.h"
#include "run/certify.h"
#include "run/certify_check.h"
#include "run/interrupt.h"
#include "store/store.h"

#define CERTIFY_MAX_RUNS 64

/* The runs named, each loaded once; AB_ERR_USAGE for one named twice. */
static enum ab_rc load_runs(const char *db, const char *const *specs, int n, struct results_run **runs,
			    struct ab_diag *d)
{
	for (int i = 0; i < n; i++) {
		enum ab_rc rc = store_load_spec(db, specs[i], &runs[i], d);
		if (rc)
			return rc;
		for (int k = 0; k < i; k++)
			if (runs[k]->id == runs[i]->id && !strcmp(runs[k]->run_set, runs[i]->run_set))
				return ab_fail(d, AB_ERR_USAGE, "'%s' names run %lld, which '%s' named already", specs[i],
					       (long long)runs[i]->id, specs[k]);
	}
	return AB_OK;
}

static enum ab_rc write_cert(const struct cert *c, const char *path, struct ab_diag *d)
{
	struct outfile of;
	char *text = NULL;
	enum ab_rc rc = cert_write(c, false, &text, d);
	if (!rc)
		rc = outfile_open(&of, path, d);
	if (!rc) {
		fputs(text, of.f);
		rc = outfile_commit(&of, d);
	}
	free(text);
	return rc;
}

static int certify(const char *db, const char *const *specs, int n, const char *out)
{
	struct results_run *runs[CERTIFY_MAX_RUNS] = { NULL };
	struct cert c = { .n_runs = 0 };
	struct ab_diag d;
	enum ab_rc rc = load_runs(db, specs, n, runs, &d);
	if (!rc)
		rc = certify_runs(runs, n, &c, &d);
	if (!rc)
		rc = write_cert(&c, out, &d);
	if (!rc) {
		/* the certificate on standard output: the summary goes to stderr */
		certify_print(strcmp(out, "-") ? stdout : stderr, &c, out);
		if (!c.n_entries)
			ab_warn("no case of %s is byte-equal in every slot: the certificate certifies nothing",
				n == 1 ? "the run" : "the runs");
	}
	cert_free(&c);
	for (int i = 0; i < n; i++)
		results_run_free(runs[i]);
	return cli_exit_rc(rc, &d, "certify");
}


static int check(const char *path, const struct certify_check_options *o)
{
	struct cert c;
	struct certify_check k;
	struct ab_diag d;
	enum ab_rc rc = load_cert(path, &c, &d);
	if (rc)
		return cli_exit_rc(rc == AB_ERR_NOMEM ? rc : AB_ERR_INPUT, &d, "certify --check");
	rc = certify_check(&c, o, &k, &d);
	if (!rc) {
		certify_print_check(stdout, &c, &k, path);
		int status = k.n_lost ? AB_EXIT_VERDICT : AB_EXIT_OK;
		certify_check_free(&k);
		cert_free(&c);
		return cli_finish(status);
	}
	cert_free(&c);
	if (rc == AB_ERR_INTERRUPTED) {
		ab_error("certify --check: %s", d.msg);
		return AB_EXIT_SIGNAL_BASE + interrupt_signal();
	}
	return cli_exit_rc(rc, &d, "certify --check");
}

int cmd_certify(int argc, char **argv)
{
	const char *db = NULL, *out = NULL, *cert = NULL, *keep_db = NULL;
	bool progress = false, no_progress = false;
	const struct cli_option opts[] = {
		{ "out", CLI_STRING, &out, "FILE", "write the certificate to FILE (atomically; '-': standard output)" },
		{ "check", CLI_STRING, &cert, "CERT.json", "prove the certificate's cases again here; exit 0 all still "
								"exact, 1 any lost, 2 a bad certificate" },
		{ "keep-db", CLI_STRING, &keep_db, "FILE", "--check: store the check's runs in FILE (default: a temporary "
							   "database, removed)" },
		{ "progress", CLI_FLAG, &progress, NULL, "--check: progress lines on stderr (default: on a terminal)" },
		{ "no-progress", CLI_FLAG, &no_progress, NULL, "--check: no progress lines" },
		CLI_OPT_DB(&db),
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"certify", "RUN... --out CERT.json | --check CERT.json",
		"certify the signatures runs proved bit-exact, or prove a certificate's cases again",
		"A case byte-equal in every slot (A1, B, A2: arm b equal to arm a, arm a to itself) becomes an\n"
		"entry: its signature (site, shape by axis, dtypes, eps, affine), its inputs (kinds, generators,\n"
		"seed), each arm's provenance (a built-in kernel's build commit; a module's, plugin's or binary's\n"
		"sha256 and function), the environment (device, compute capability, driver, runtime, CUPTI,\n"
		"python, numpy, torch, triton where an arm used them) and each output's md5. Other cases are\n"
		"listed apart with the reason, never certified. The certificate carries the sha256 of its\n"
		"canonical form (docs/CERTIFICATE.md). RUN as in show (an id, a label, last, set:ID).\n"
		"--check re-runs every entry here (one sample a slot) and says per entry: still exact, or\n"
		"lost (not byte-equal, or unable to run here) and why; and what differs: each environment\n"
		"key (\"torch 2.11.0 -> 2.12.0\"), an arm's artefact (sha256), the outputs' md5s.",
		0, CERTIFY_MAX_RUNS, opts,
	};
	const char *pos[CERTIFY_MAX_RUNS] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	if (cert) {
		if (n_pos || out) {
			ab_error("certify: --check CERT.json takes no RUN and no --out");
			return AB_EXIT_USAGE;
		}
		struct certify_check_options o = { .keep_db = keep_db,
						   .progress = !no_progress && (progress || isatty(STDERR_FILENO)) };
		return check(cert, &o);
	}
	if (!n_pos || !out || keep_db) {
		ab_error("certify: %s", keep_db ? "--keep-db goes with --check" :
				       !n_pos	? "name at least one RUN (or --check CERT.json)" :
						  "--out CERT.json is required (or '-' for standard output)");
		return AB_EXIT_USAGE;
	}
	return certify(store_default_path(db), pos, n_pos, out);
}
