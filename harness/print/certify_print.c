/*
 * certify_print.c - certify, certify --check and coverage on a terminal
 * (printer.h). Every text from a certificate or a log is escaped
 * for the terminal.
 */
#include "print/printer.h"

#include <inttypes.h>
#include <string.h>

#include "print/escape.h"

/* "1x4096x4096" from a signature's shape. */
static void shape_text(const struct cert_sig *s, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < s->rank; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%" PRId64, i ? "x" : "", s->shape[i]);
	}
}

/* The distinct environments of c's entries, each once, its keys in words
 * ("compute capability 9.0"). */
static void print_envs(FILE *f, struct escape_pool *p, const struct cert *c)
{
	char diff[8], key[32];
	for (int i = 0; i < c->n_entries; i++) {
		const struct cert_env *e = &c->entries[i].env;
		bool seen = false;
		for (int k = 0; k < i && !seen; k++)
			seen = cert_env_diff(&c->entries[k].env, e, NULL, diff, sizeof diff) == 0;
		if (seen)
			continue;
		fputs("environment: ", f);
		for (int j = 0; j < e->n; j++) {
			snprintf(key, sizeof key, "%s", e->kv[j].key);
			for (char *q = key; *q; q++)
				*q = *q == '_' ? ' ' : *q;
			fprintf(f, "%s%s %s", j ? ", " : "", key, escape_t(p, e->kv[j].value));
		}
		fputc('\n', f);
	}
}

void certify_print(FILE *f, const struct cert *c, const char *path)
{
	struct escape_pool p = { .next = 0 };
	char eps[32];
	fprintf(f, "certificate '%s': %d %s certified, %d excluded; sha256 %s\n", escape_t(&p, path), c->n_entries,
		c->n_entries == 1 ? "signature" : "signatures", c->n_excluded, c->sha256);
	if (c->n_entries)
		fprintf(f, "  %-22s %-20s %-16s %-5s %-8s %-6s %-24s %s\n", "case", "site", "shape", "dtype", "eps", "affine",
			"inputs", "arms (a / b)");
	for (int i = 0; i < c->n_entries; i++) {
		const struct cert_entry *e = &c->entries[i];
		cert_eps_text(e->sig.eps, eps, sizeof eps);
		fprintf(f, "  %-22s %-20s %-16s %-5s %-8s %-6s %-24s %s / %s  run %" PRId64 "\n",
			escape_t(&p, e->case_name), escape_t(&p, e->sig.site), escape_t(&p, e->shape_text),
			escape_t(&p, e->sig.dtype), eps, e->sig.affine ? "yes" : "no", escape_t(&p, e->input_kinds),
			escape_t(&p, e->arm[0].name), escape_t(&p, e->arm[1].name), c->runs[e->run].ids[0]);
	}
	for (int i = 0; i < c->n_excluded; i++) {
		const struct cert_excluded *x = &c->excluded[i];
		fprintf(f, "excluded: %s (%s %s, run %" PRId64 "): %s\n", escape_t(&p, x->case_name), escape_t(&p, x->site),
			escape_t(&p, x->shape_text), c->runs[x->run].ids[0], escape_t(&p, x->reason));
	}
	print_envs(f, &p, c);
}

void certify_print_check(FILE *f, const struct cert *c, const struct certify_check *k, const char *path)
{
	struct escape_pool p = { .next = 0 };
	fprintf(f, "certificate '%s' (sha256 %.16s...): %d %s proved again here\n", escape_t(&p, path), c->sha256,
		c->n_entries, c->n_entries == 1 ? "entry" : "entries");
	for (int i = 0; i < k->n; i++) {
		const struct cert_entry *e = &c->entries[i];
		const struct certify_check_entry *x = &k->e[i];
		fprintf(f, "  %-22s %-20s %-16s %s", escape_t(&p, e->case_name), escape_t(&p, e->sig.site),
			escape_t(&p, e->shape_text), x->exact ? "still exact" : "LOST");
		if (!x->exact)
			fprintf(f, ": %s", escape_t(&p, x->why));
		if (x->env_diff[0])
			fprintf(f, "; environment differs: %s", escape_t(&p, x->env_diff));
		if (x->artefact_diff[0])
			fprintf(f, "; artefact changed: %s", escape_t(&p, x->artefact_diff));
		if (x->run_id && !x->md5_same)
			fputs("; outputs' md5 differ from the certificate's", f);
		fputc('\n', f);
	}
	fprintf(f, "check: %d still exact, %d lost; the environment differs for %d, an artefact for %d\n", k->n_exact,
		k->n_lost, k->n_env, k->n_artefact);
}

void certify_print_coverage(FILE *f, const struct coverage *cv, const struct cert *c)
{
	struct escape_pool p = { .next = 0 };
	char shape[96], eps[32];
	fprintf(f, "  %12s  %-20s %-16s %-5s %-8s %-6s %s\n", "calls", "site", "shape", "dtype", "eps", "affine", "status");
	for (int i = 0; i < cv->n; i++) {
		const struct coverage_row *r = &cv->rows[i];
		shape_text(&r->sig, shape, sizeof shape);
		cert_eps_text(r->sig.eps, eps, sizeof eps);
		fprintf(f, "  %12" PRId64 "  %-20s %-16s %-5s %-8s %-6s %s", r->count, escape_t(&p, r->sig.site),
			escape_t(&p, shape), escape_t(&p, r->sig.dtype), eps, r->sig.affine ? "yes" : "no",
			coverage_status_str(r->status));
		if (r->status == COVERAGE_CERTIFIED)
			fprintf(f, " (case %s)", escape_t(&p, c->entries[r->entry].case_name));
		else if (r->status == COVERAGE_OTHER_ENV)
			fprintf(f, ": %s (certified: case %s)", escape_t(&p, r->why), escape_t(&p, c->entries[r->entry].case_name));
		if (r->status != COVERAGE_CERTIFIED)
			fputs(r->proof < 0 ? "; falls back (no certified arms of this site)" : "; falls back", f);
		fputc('\n', f);
	}
	fprintf(f, "coverage: %d of %d signatures certified (%" PRId64 " of %" PRId64 " calls, %.1f%%); %d in another "
		   "environment, %d missing\n",
		cv->n_certified, cv->n, cv->calls_certified, cv->calls,
		cv->calls ? 100.0 * (double)cv->calls_certified / (double)cv->calls : 0.0, cv->n_other_env, cv->n_missing);
}
