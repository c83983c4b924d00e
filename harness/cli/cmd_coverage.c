/*
 * cmd_coverage.c - `abbench coverage CERT.json SIGNATURES.jsonl
 * [--emit-scenario FILE.ini]`: the signatures a model logged
 * (python/abbench_cert.py) held against a certificate
 * (analysis/coverage.h), and a scenario that proves the ones it lacks
 * (config/cert_scenario.h). Exit 0 every logged signature certified, 1
 * any not (the model falls back there), 2 bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/coverage.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "common/cert.h"
#include "common/diag.h"
#include "common/infile.h"
#include "common/outfile.h"
#include "config/cert_scenario.h"
#include "print/printer.h"

/* Whether line holds only blanks. */
static bool blank(const char *line, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n", line[i]))
			return false;
	return true;
}

/* Every line of the log into cv; a bad line is AB_ERR_INPUT at FILE:LINE. */
static enum ab_rc read_log(const char *path, struct coverage *cv, struct ab_diag *d)
{
	char *line = NULL, why[200];
	FILE *f = infile_open(path, NULL, why, sizeof why); /* a FIFO never blocks */
	size_t cap = 0;
	ssize_t n;
	long no = 0;
	enum ab_rc rc = AB_OK;
	if (!f)
		return ab_fail(d, AB_ERR_INPUT, "cannot open '%s': %s", path, why);
	while (!rc && (n = getline(&line, &cap, f)) >= 0) {
		struct cert_logged l;
		no++;
		if (blank(line, (size_t)n))
			continue;
		if (!cert_logged_parse(line, (size_t)n, &l, why, sizeof why))
			rc = ab_fail(d, AB_ERR_INPUT, "%s:%ld: %s", path, no, why);
		else
			rc = coverage_add(cv, &l, d);
	}
	if (!rc && ferror(f))
		rc = ab_fail(d, AB_ERR_INPUT, "cannot read '%s': %s", path, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

/* The scenario proving every signature that is not certified and whose
 * site has a certified entry; the others are said on stderr. */
static enum ab_rc emit(const char *path, const struct coverage *cv, const struct cert *c, struct ab_diag *d)
{
	struct cert_scenario_case *cases = calloc((size_t)(cv->n ? cv->n : 1), sizeof *cases);
	char (*names)[32] = calloc((size_t)(cv->n ? cv->n : 1), sizeof *names);
	int n = 0;
	enum ab_rc rc = cases && names ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory writing the scenario");
	for (int i = 0; !rc && i < cv->n; i++) {
		const struct coverage_row *r = &cv->rows[i];
		if (r->status == COVERAGE_CERTIFIED)
			continue;
		if (r->proof < 0) {
			ab_warn("coverage: site '%s' has no certified entry: its signatures are left out of '%s' (no arms to "
				"prove them with)",
				r->sig.site, path);
			continue;
		}
		snprintf(names[n], sizeof names[n], "sig%d", n + 1);
		cases[n] = (struct cert_scenario_case){ &c->entries[r->proof], &r->sig, names[n] };
		n++;
	}
	struct outfile of;
	if (!rc && !n)
		ab_warn("coverage: nothing to prove: '%s' not written", path);
	else if (!rc && !(rc = outfile_open(&of, path, d))) {
		fprintf(of.f, "; written by abbench coverage: the logged signatures the certificate lacks, each\n"
			      "; with the arms and inputs of a certified entry of its site\n");
		rc = cert_scenario_write(of.f, "coverage_missing", CERT_SCENARIO_PROVE, cases, n, d);
		if (rc)
			outfile_abort(&of);
		else
			rc = outfile_commit(&of, d);
	}
	free(cases);
	free(names);
	return rc;
}

int cmd_coverage(int argc, char **argv)
{
	const char *scenario = NULL;
	const struct cli_option opts[] = {
		{ "emit-scenario", CLI_STRING, &scenario, "FILE.ini",
		  "write a scenario proving the signatures that are not certified (a case each, a certified entry's arms)" },
		CLI_OPT_END,
	};
	const struct cli_spec spec = {
		"coverage", "CERT.json SIGNATURES.jsonl",
		"which signatures a model logged are certified, weighted by calls",
		"SIGNATURES.jsonl holds one JSON object a line, {\"site\", \"shape\" (in the site's axis order),\n"
		"\"dtype\", \"eps\", \"affine\", \"count\" (optional, default 1), \"env\" (optional: compute_capability,\n"
		"torch, triton ...)}, as python/abbench_cert.py's log_signature appends them. A signature is\n"
		"certified when an entry has it and no judged key (compute capability, torch, triton) that both\n"
		"name differs; the others fall back. Exit 0 every signature certified, 1 any not, 2 bad input.",
		2, 2, opts,
	};
	const char *pos[2] = { NULL };
	int n_pos, ex = cli_parse_or_exit(&spec, argc, argv, pos, &n_pos);
	if (ex != CLI_CONTINUE)
		return ex;
	struct cert c;
	struct coverage cv = { .n = 0 };
	struct ab_diag d;
	enum ab_rc rc = load_cert(pos[0], &c, &d);
	if (rc)
		return cli_exit_rc(rc, &d, "coverage");
	rc = read_log(pos[1], &cv, &d);
	if (!rc) {
		coverage_judge(&cv, &c);
		certify_print_coverage(stdout, &cv, &c);
		if (scenario)
			rc = emit(scenario, &cv, &c, &d);
	}
	int status = cv.n_certified == cv.n ? AB_EXIT_OK : AB_EXIT_VERDICT;
	coverage_free(&cv);
	cert_free(&c);
	return rc ? cli_exit_rc(rc, &d, "coverage") : cli_finish(status);
}
