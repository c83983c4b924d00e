/*
 * cert_scenario.c - a scenario's text from certificate entries
 * (cert_scenario.h): sites and arm sections once each, a case per
 * signature, a sweep's cases as that sweep again.
 */
#include "config/cert_scenario.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The declared sites and arm sections written so far, by name. */
struct written {
	int n;
	const char *name[2 * 1024 + 16];
	const char *text[2 * 1024 + 16];
};

/* Whether name was written with text before; AB_ERR_INPUT when with
 * another text. */
static enum ab_rc seen(struct written *w, const char *what, const char *name, const char *text, bool *was,
		       struct ab_diag *d)
{
	*was = false;
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->name[i], name)) {
			if (strcmp(w->text[i], text))
				return ab_fail(d, AB_ERR_INPUT,
					       "two certified %s named '%s' differ in text: they cannot share one scenario", what,
					       name);
			*was = true;
			return AB_OK;
		}
	if (w->n == (int)(sizeof w->name / sizeof w->name[0]))
		return ab_fail(d, AB_ERR_INPUT, "more than %d sites and arms to write", w->n);
	w->name[w->n] = name;
	w->text[w->n++] = text;
	return AB_OK;
}

static void write_head(FILE *f, const char *name, enum cert_scenario_purpose purpose, const struct cert_entry *e)
{
	const char *backend = cert_env_get(&e->env, "backend");
	fprintf(f, "[scenario]\nname = %s\nbackend = %s\nseed = %s\nbracket = ABA\n", name, backend ? backend : "auto",
		e->seed);
	if (purpose == CERT_SCENARIO_CHECK)
		fputs("; bytes, not times: one sample a slot\nwarmup = 0\nmin_samples = 1\nmax_samples = 1\n"
		      "min_time_ms = 0.001\nmax_time_ms = 600000\n",
		      f);
	else
		fputs("warmup = 2\nmin_samples = 10\nmax_samples = 200\nmin_time_ms = 1\nmax_time_ms = 1000\n", f);
	fputc('\n', f);
}

/* The sites and arm sections the cases need, each once. */
static enum ab_rc write_defs(FILE *f, const struct cert_scenario_case *cases, int n, struct ab_diag *d)
{
	struct written *w = calloc(1, sizeof *w);
	enum ab_rc rc = w ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory writing a scenario");
	for (int i = 0; !rc && i < n; i++) {
		const struct cert_entry *e = cases[i].from;
		bool was;
		if (!e->builtin_site && !(rc = seen(w, "sites", e->sig.site, e->site_text, &was, d)) && !was)
			fprintf(f, "%s\n", e->site_text);
		for (int j = 0; !rc && j < 2; j++) {
			const struct cert_arm *a = &e->arm[j];
			if (!a->section || !a->section[0])
				continue;
			if (!(rc = seen(w, "arms", a->name, a->section, &was, d)) && !was)
				fprintf(f, "[arm %s]\n%s\n", a->name, a->section);
		}
	}
	free(w);
	return rc;
}

/* The name an arm has in a case: its section's, its shortcut, a variant. */
static const char *arm_ref(const struct cert_arm *a)
{
	return a->shortcut[0] ? a->shortcut : a->name;
}

static void write_shape(FILE *f, const struct cert_sig *s, int sweep_axis, const int64_t *values, int n_values)
{
	for (int i = 0; i < s->rank; i++) {
		if (i)
			fputc('x', f);
		if (i != sweep_axis) {
			fprintf(f, "%" PRId64, s->shape[i]);
			continue;
		}
		fputc('{', f);
		for (int v = 0; v < n_values; v++)
			fprintf(f, "%s%" PRId64, v ? "," : "", values[v]);
		fputc('}', f);
	}
}

/* The input keys of e, less the randint lines of tensors its site draws
 * itself (their bounds are expressions of the axes, which a case at
 * another shape needs; at e's own shape both give the same numbers). */
static void write_inputs(FILE *f, const struct cert_entry *e, bool other_shape)
{
	for (const char *line = e->input_ini; line && *line;) {
		size_t len = strcspn(line, "\n");
		char key[48];
		bool skip = false;
		if (other_shape && sscanf(line, "%47[^ =] = randint", key) == 1 && !strncmp(key, "input.", 6)) {
			char at[64];
			snprintf(at, sizeof at, "\n%s = ", key);
			skip = e->site_text && strstr(e->site_text, at);
		}
		if (!skip)
			fprintf(f, "%.*s\n", (int)len, line);
		line += len + (line[len] == '\n');
	}
}

static void write_case(FILE *f, const char *name, const struct cert_entry *e, const struct cert_sig *s, int sweep_axis,
		       const int64_t *values, int n_values, bool other_shape)
{
	fprintf(f, "[case %s]\nsite = %s\nshape = ", name, e->sig.site);
	write_shape(f, s, sweep_axis, values, n_values);
	char eps[32];
	cert_eps_text(s->eps, eps, sizeof eps);
	fprintf(f, "\neps = %s\n", eps);
	if (s->affine)
		fputs("affine = true\n", f);
	write_inputs(f, e, other_shape);
	fprintf(f, "a = %s\nb = %s\n\n", arm_ref(&e->arm[0]), arm_ref(&e->arm[1]));
}

static int axis_index(const struct cert_sig *s, const char *axis)
{
	for (int i = 0; i < s->rank; i++)
		if (!strcmp(s->axes[i], axis))
			return i;
	return -1;
}

/* A check's case i: alone, or with the later cases of its sweep (marked
 * done) as that sweep. */
static enum ab_rc write_check_case(FILE *f, const struct cert_scenario_case *cases, int n, int i, bool *done,
				   struct ab_diag *d)
{
	const struct cert_entry *e = cases[i].from;
	int ax = e->sweep[0] ? axis_index(&e->sig, e->sweep_axis) : -1;
	if (ax < 0) {
		write_case(f, e->case_name, e, &e->sig, -1, NULL, 0, false);
		return AB_OK;
	}
	int64_t *values = calloc((size_t)n, sizeof *values);
	int nv = 0;
	if (!values)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory writing a scenario");
	for (int k = i; k < n; k++) {
		const struct cert_entry *o = cases[k].from;
		if (k == i || (!done[k] && o->run == e->run && !strcmp(o->sweep, e->sweep))) {
			values[nv++] = o->sig.shape[ax];
			done[k] = true;
		}
	}
	write_case(f, e->sweep, e, &e->sig, ax, values, nv, false);
	free(values);
	return AB_OK;
}

enum ab_rc cert_scenario_write(FILE *f, const char *name, enum cert_scenario_purpose purpose,
			       const struct cert_scenario_case *cases, int n, struct ab_diag *d)
{
	if (n < 1)
		return ab_fail(d, AB_ERR_INTERNAL, "a scenario of no case");
	write_head(f, name, purpose, cases[0].from);
	enum ab_rc rc = write_defs(f, cases, n, d);
	bool *done = rc ? NULL : calloc((size_t)n, sizeof *done);
	if (!rc && !done)
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory writing a scenario");
	for (int i = 0; !rc && i < n; i++) {
		if (done[i])
			continue;
		if (purpose == CERT_SCENARIO_CHECK)
			rc = write_check_case(f, cases, n, i, done, d);
		else
			write_case(f, cases[i].name, cases[i].from, cases[i].sig, -1, NULL, 0, true);
	}
	free(done);
	if (!rc && ferror(f))
		rc = ab_fail(d, AB_ERR_IO, "cannot write the scenario: %s", "write error");
	return rc;
}
