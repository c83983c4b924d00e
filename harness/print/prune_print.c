/*
 * prune_print.c - `abbench prune`'s output (printer.h). Labels and
 * scenario names come from the database: escaped for the terminal.
 */
#include "print/printer.h"

#include <errno.h>
#include <string.h>

#include "print/escape.h"

enum ab_rc prune_print(FILE *f, const struct results_run_summary *runs, int n, bool dry_run, struct ab_diag *d)
{
	char scn[256], label[256];
	int cases = 0;
	for (const struct results_run_summary *r = runs; r < runs + n; r++) {
		fprintf(f, "run %lld  %s  %s", (long long)r->id, r->started_at,
			escape_term(r->scenario_name, scn, sizeof scn));
		if (r->label[0])
			fprintf(f, "  label '%s'", escape_term(r->label, label, sizeof label));
		fprintf(f, "  %s  %d case%s\n", r->status, r->n_cases, r->n_cases == 1 ? "" : "s");
		cases += r->n_cases;
	}
	if (!n)
		fputs("nothing to prune\n", f);
	else
		fprintf(f, "%s %d run%s (%d case%s)%s\n", dry_run ? "would prune" : "pruned", n, n == 1 ? "" : "s", cases,
			cases == 1 ? "" : "s", dry_run ? "; --dry-run: nothing removed" : "");
	return fflush(f) || ferror(f) ? ab_fail(d, AB_ERR_IO, "cannot write the pruned runs: %s", strerror(errno))
				      : AB_OK;
}
