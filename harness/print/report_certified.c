/*
 * report_certified.c - the report's "Certified" section (report.h).
 */
#include "print/report.h"

#include <string.h>

#include "analysis/certified.h"
#include "print/md.h"

/* "backend cuda, device NVIDIA H200, compute capability 9.0, ..." */
static void env_line(FILE *f, const struct cert_env *e)
{
	for (int i = 0; i < e->n; i++) {
		char key[32];
		snprintf(key, sizeof key, "%s", e->kv[i].key);
		for (char *p = key; *p; p++)
			*p = *p == '_' ? ' ' : *p;
		md_printf(f, "%s%s `%s`", i ? ", " : "", key, e->kv[i].value);
	}
}

static void proven_row(FILE *f, const struct results_run *r, const struct certified_group *g)
{
	const struct certified_case *k = g->k;
	const struct results_case *c = k->c;
	md_printf(f, "| `%s` | %s | %s | ", c->site, g->shapes, c->dtype);
	fprintf(f, "%s | %s | ", k->eps, c->affine ? "yes" : "no");
	md_printf(f, "%s | `%s` / `%s` | %d |\n", c->input, c->arm_a[0] ? c->arm_a : r->arm_a,
		  c->arm_b[0] ? c->arm_b : r->arm_b, g->n);
}

static void environments(FILE *f, const struct certified_scope *sc)
{
	if (!sc->n_exact)
		return;
	fputs("Proven on: ", f);
	env_line(f, &sc->common);
	if (sc->some.n) {
		fputs("; where an arm used them: ", f);
		env_line(f, &sc->some);
		if (sc->some_differ)
			fputs(" (not every case's: `abbench certify` names each one's)", f);
	}
	fputs(".\n\n", f);
}

/* The cases not certified and why: the first CERTIFIED_LISTED, then how
 * many more (the Accuracy section has every output). */
#define CERTIFIED_LISTED 10

static void not_certified(FILE *f, const struct certified_scope *sc)
{
	int listed = 0;
	if (sc->n_exact == sc->n)
		return;
	fprintf(f, "Not certified (%d): ", sc->n - sc->n_exact);
	for (int i = 0; i < sc->n && listed < CERTIFIED_LISTED; i++) {
		if (sc->cases[i].exact)
			continue;
		md_printf(f, "%s`%s`: %s", listed++ ? "; " : "", sc->cases[i].c->name, sc->cases[i].why);
	}
	if (sc->n - sc->n_exact > listed)
		fprintf(f, "; and %d more (the Accuracy section has each output)", sc->n - sc->n_exact - listed);
	fputs(".\n\n", f);
}

void report_certified_section(FILE *f, const struct report_ctx *R, bool compact)
{
	static const char *const cols[] = { "site", "shapes", "dtype", "eps", "affine", "inputs", "arms (a / b)",
					    "cases" };
	const struct results_run *r = R->run;
	struct certified_scope sc;
	struct ab_diag d;
	fputs("## Certified\n\n", f);
	if (certified_scope(r, &sc, &d)) {
		fprintf(f, "_%s_\n\n", d.msg);
		return;
	}
	fprintf(f, "%d of %d cases are byte-equal in every slot of their bracket (%s): their signatures are proven "
		   "bit-exact on the environment below, and only there (`abbench certify` writes them as a "
		   "certificate; docs/CERTIFICATE.md).\n\n",
		sc.n_exact, sc.n, r->bracket);
	if (!compact && sc.n_exact) {
		md_table_head(f, 8, cols, "lllllllr");
		for (int i = 0; i < sc.n_groups; i++)
			proven_row(f, r, &sc.groups[i]);
		fputc('\n', f);
	}
	environments(f, &sc);
	if (!compact)
		not_certified(f, &sc);
	certified_scope_free(&sc);
}
