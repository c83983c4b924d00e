/*
 * certify.c - a certificate from stored runs (certify.h): per case an
 * entry (its signature, inputs, arms, environment and output md5s) or an
 * exclusion with its reason.
 */
#include "run/certify.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/digest.h"
#include "common/version.h"

/* ---- the stored scenario -------------------------------------------------------- */

/* Whether line (up to its end) is `include = ...` (or `include: ...`). */
static bool is_include_line(const char *line, size_t n)
{
	while (n && isspace((unsigned char)*line))
		line++, n--;
	return n > 7 && !strncmp(line, "include", 7) && strchr("=: \t", line[7]);
}

/* text with the include keys of its [scenario] section commented out
 * (same lines, so messages keep their numbers). */
static char *drop_includes(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1);
	bool in_scenario = false;
	if (!out)
		return NULL;
	memcpy(out, text, n + 1);
	for (char *line = out; *line;) {
		size_t len = strcspn(line, "\n");
		const char *p = line;
		while (p < line + len && isspace((unsigned char)*p))
			p++;
		if (*p == '[')
			in_scenario = !strncmp(p, "[scenario]", 10);
		else if (in_scenario && is_include_line(line, len))
			line[0] = ';';
		line += len + (line[len] == '\n');
	}
	return out;
}

enum ab_rc certify_stored_scenario(const struct results_run *r, struct scenario **out, struct ab_diag *d)
{
	*out = NULL;
	if (!r->scenario_text)
		return ab_fail(d, AB_ERR_DATA, "run %lld stored no scenario text: it cannot be certified", (long long)r->id);
	char *text = drop_includes(r->scenario_text);
	if (!text)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory reading run %lld's scenario", (long long)r->id);
	enum ab_rc rc = scenario_parse_text(r->scenario_path, text, out, d);
	free(text);
	if (rc == AB_ERR_INPUT)
		return ab_wrap(d, AB_ERR_DATA, "run %lld: its stored scenario no longer reads with this abbench",
			       (long long)r->id);
	return rc;
}

/* ---- texts an entry carries ----------------------------------------------------- */

/* A memstream's text (its buffer is set by fclose), NULL on failure. */
static char *mem_done(FILE *f, char **buf)
{
	bool bad = ferror(f);
	if (fclose(f) || bad) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

/* A declared site as scenario lines: its axes, its tensors in their order
 * (the first in `tensors`, the others a line each), its rules and its own
 * generators as written (a randint's bounds are expressions of the axes). */
static char *site_text(const struct scenario_site *ss)
{
	const struct site_desc *s = &ss->desc;
	char *buf = NULL, axes[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "[site %s]\naxes =", s->name);
	for (int i = 0; i < s->n_axes; i++)
		fprintf(f, " %s", s->axes[i]);
	for (int t = 0; t < s->n_tensors; t++) {
		const struct site_tensor *st = &s->tensors[t];
		site_tensor_axes(s, st, axes, sizeof axes);
		fprintf(f, t ? "\ntensor.%s = %s:%s:%s" : "\ntensors = %s:%s:%s:%s", st->name, site_dtype_name(st->dtype),
			axes, site_role_name(st->role));
	}
	for (int i = 0; i < ss->n_require; i++)
		fprintf(f, "%s%s", i ? ", " : "\nrequire = ", ss->require_text[i]);
	for (int i = 0; i < ss->n_keys; i++)
		if (!strncmp(ss->keys[i].key, "input.", 6))
			fprintf(f, "\n%s = %s", ss->keys[i].key, ss->keys[i].value);
	fputc('\n', f);
	return mem_done(f, &buf);
}

static void gen_line(FILE *f, const char *tensor, const struct scenario_gen *g)
{
	static const char *const names[] = { "", "normal", "uniform", "constant", "special", "randint" };
	if (g->kind == SCENARIO_GEN_RANDINT)
		fprintf(f, "input.%s = randint(%lld, %lld)\n", tensor, (long long)g->lo, (long long)g->hi);
	else if (g->kind == SCENARIO_GEN_CONSTANT)
		fprintf(f, "input.%s = constant(%.17g)\n", tensor, g->a);
	else if (g->kind != SCENARIO_GEN_NONE)
		fprintf(f, "input.%s = %s(%.17g, %.17g)\n", tensor, names[g->kind], g->a, g->b);
}

/* The case's input keys as a [case] writes them: its distribution, then
 * each tensor's own generator. Numbers in %.17g: read back, the same
 * doubles, so the same input bytes. */
static char *input_ini(const struct scenario_case *c)
{
	const struct scenario_input *in = &c->input;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "input = %s\n", scenario_dist_str(in->dist));
	if (in->dist == SCENARIO_DIST_NORMAL || in->dist == SCENARIO_DIST_SPECIAL)
		fprintf(f, "input_mean = %.17g\ninput_std = %.17g\n", in->mean, in->std);
	else if (in->dist == SCENARIO_DIST_UNIFORM)
		fprintf(f, "input_low = %.17g\ninput_high = %.17g\n", in->low, in->high);
	else
		fprintf(f, "input_value = %.17g\n", in->value);
	for (int t = 0; t < c->site->n_tensors; t++)
		gen_line(f, c->site->tensors[t].name, &c->gen[t]);
	return mem_done(f, &buf);
}

enum { K_NORMAL, K_OFFSETS, K_SPECIAL, K_UNIFORM, K_CONSTANT, K_RANDINT, K_N };

/* The kinds the case's drawn inputs are of: every input that takes the
 * case's distribution or its own generator (a built-in site's parameters
 * without one keep their fixed draw and are left out). */
static void input_kinds(const struct scenario_case *c, char *buf, size_t len)
{
	static const char *const words[K_N] = { "normal", "offsets", "special", "uniform", "constant", "randint" };
	bool seen[K_N] = { false };
	const struct site_desc *s = c->site;
	for (int t = 0; t < s->n_tensors; t++) {
		const struct site_tensor *st = &s->tensors[t];
		const struct scenario_gen *g = &c->gen[t];
		if (!site_tensor_present(st, c->affine) || (st->role != SITE_IN_ACT && st->role != SITE_IN_PARAM))
			continue;
		if (g->kind == SCENARIO_GEN_NONE && st->role == SITE_IN_PARAM)
			continue;
		if (g->kind == SCENARIO_GEN_NONE) {
			const struct scenario_input *in = &c->input;
			seen[in->dist == SCENARIO_DIST_SPECIAL   ? K_SPECIAL :
			     in->dist == SCENARIO_DIST_UNIFORM   ? K_UNIFORM :
			     in->dist == SCENARIO_DIST_CONSTANT  ? K_CONSTANT :
			     in->mean != 0                       ? K_OFFSETS :
								   K_NORMAL] = true;
		} else {
			seen[g->kind == SCENARIO_GEN_SPECIAL  ? K_SPECIAL :
			     g->kind == SCENARIO_GEN_UNIFORM  ? K_UNIFORM :
			     g->kind == SCENARIO_GEN_CONSTANT ? K_CONSTANT :
			     g->kind == SCENARIO_GEN_RANDINT  ? K_RANDINT :
			     g->a != 0                        ? K_OFFSETS :
								K_NORMAL] = true;
		}
	}
	buf[0] = '\0';
	for (int k = 0; k < K_N; k++)
		if (seen[k]) {
			size_t used = strlen(buf);
			snprintf(buf + used, len - used, "%s%s", used ? " " : "", words[k]);
		}
}

/* value as a scenario anywhere can name it: a relative path that names a
 * regular file from dir (the run's scenario folder) made absolute; any
 * other value (a name, an expression, a list) as written. */
static void absolute_if_file(const char *dir, const char *value, char *out, size_t cap)
{
	char path[PATH_MAX + 8], real[PATH_MAX];
	struct stat st;
	snprintf(out, cap, "%s", value);
	if (!value[0] || value[0] == '/' || (size_t)snprintf(path, sizeof path, "%s/%s", dir, value) >= sizeof path)
		return;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && realpath(path, real) && strlen(real) < cap)
		snprintf(out, cap, "%s", real);
}

/* An [arm NAME] section's lines: type, site, bytes, writes, then its
 * kind's keys, a file's path made absolute (absolute_if_file). */
static char *section_text(const struct arm_spec *spec, const char *dir)
{
	char value[ARM_SPEC_TEXT_MAX + PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "type = %s\n", spec->kind);
	if (spec->site_name[0])
		fprintf(f, "site = %s\n", spec->site_name);
	if (spec->bytes[0])
		fprintf(f, "bytes = %s\n", spec->bytes);
	if (spec->writes[0])
		fprintf(f, "writes = %s\n", spec->writes);
	for (int i = 0; i < spec->n_keys; i++) {
		absolute_if_file(dir, spec->keys[i].value, value, sizeof value);
		fprintf(f, "%s = %s\n", spec->keys[i].key, value);
	}
	return mem_done(f, &buf);
}

static const struct results_arm_source *source_of(const struct results_run *r, char arm, const char *name)
{
	for (int i = 0; i < r->n_arm_sources; i++)
		if (r->arm_sources[i].arm == arm && !strcmp(r->arm_sources[i].name, name))
			return &r->arm_sources[i];
	return NULL;
}

/* Arm j (0: a) of case sc as run r ran it; dir: the run's scenario folder. */
static enum ab_rc fill_arm(const struct results_run *r, const struct scenario *s, const struct scenario_case *sc,
			   const struct results_case *rc, int j, const char *dir, struct cert_arm *a, struct ab_diag *d)
{
	char path[PATH_MAX];
	const char *name = j ? rc->arm_b : rc->arm_a;
	snprintf(a->name, sizeof a->name, "%s", name);
	if (sc->arm_ref[j] < 0) {
		snprintf(a->kind, sizeof a->kind, "builtin");
		snprintf(a->function, sizeof a->function, "%s", name);
		snprintf(a->build_commit, sizeof a->build_commit, "%s", r->git_commit);
		a->section = cert_strdup("");
		return a->section ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
	}
	const struct arm_spec *spec = &s->arms[sc->arm_ref[j]];
	const struct results_arm_source *src = source_of(r, j ? 'b' : 'a', name);
	if (!src)
		return ab_fail(d, AB_ERR_DATA, "run %lld: case '%s': arm %c '%s' has no provenance stored (run_arms)",
			       (long long)r->id, rc->name, j ? 'b' : 'a', name);
	snprintf(a->kind, sizeof a->kind, "%s", src->kind);
	snprintf(a->function, sizeof a->function, "%s", src->function);
	snprintf(a->path, sizeof a->path, "%s", src->path);
	snprintf(a->sha256, sizeof a->sha256, "%s", src->sha256);
	snprintf(a->detail, sizeof a->detail, "%s", src->detail);
	if (arm_spec_is_shortcut(spec)) {
		absolute_if_file(dir, spec->path, path, sizeof path);
		snprintf(a->shortcut, sizeof a->shortcut, "%.20s:%.560s:%.31s", spec->kind, path, spec->name);
	}
	a->section = arm_spec_is_shortcut(spec) ? cert_strdup("") : section_text(spec, dir);
	return a->section ? AB_OK : ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
}

static const struct scenario_site *declared_site(const struct scenario *s, const struct site_desc *desc)
{
	for (int i = 0; i < s->n_sites; i++)
		if (&s->sites[i]->desc == desc)
			return s->sites[i];
	return NULL;
}

static enum ab_rc fill_site(const struct scenario *s, const struct scenario_case *sc, struct cert_entry *e,
			    struct ab_diag *d)
{
	const struct scenario_site *ss = declared_site(s, sc->site);
	e->builtin_site = ss == NULL;
	e->site_text = ss ? site_text(ss) : cert_strdup("");
	if (!e->site_text)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
	return ss ? digest_sha256_hex(e->site_text, strlen(e->site_text), e->site_sha256, d) : AB_OK;
}

static void fill_signature(const struct scenario_case *sc, const struct results_case *rc, struct cert_entry *e)
{
	const struct site_desc *s = sc->site;
	snprintf(e->sig.site, sizeof e->sig.site, "%s", s->name);
	e->sig.rank = s->n_axes < CERT_MAX_RANK ? s->n_axes : CERT_MAX_RANK;
	for (int i = 0; i < e->sig.rank; i++) {
		snprintf(e->sig.axes[i], sizeof e->sig.axes[i], "%s", s->axes[i]);
		e->sig.shape[i] = sc->shape.dim[i];
	}
	snprintf(e->sig.dtype, sizeof e->sig.dtype, "%s", rc->dtype);
	e->sig.eps = rc->eps;
	e->sig.affine = rc->affine;
	snprintf(e->shape_text, sizeof e->shape_text, "%s", rc->shape);
	for (int t = 0; t < s->n_tensors && e->n_tensors < CERT_MAX_TENSORS; t++) {
		const struct site_tensor *st = &s->tensors[t];
		if (!site_tensor_present(st, rc->affine) ||
		    (st->role != SITE_IN_ACT && st->role != SITE_IN_PARAM && st->role != SITE_OUT))
			continue;
		snprintf(e->tensors[e->n_tensors].name, sizeof e->tensors[0].name, "%s", st->name);
		snprintf(e->tensors[e->n_tensors++].dtype, sizeof e->tensors[0].dtype, "%s", site_dtype_name(st->dtype));
	}
}

static enum ab_rc fill_entry(const struct results_run *r, const struct scenario *s, const struct scenario_case *sc,
			     const struct results_case *rc, int run, const char *dir, struct cert_entry *e,
			     struct ab_diag *d)
{
	e->run = run;
	snprintf(e->case_name, sizeof e->case_name, "%s", rc->name);
	snprintf(e->sweep, sizeof e->sweep, "%s", sc->sweep);
	snprintf(e->sweep_axis, sizeof e->sweep_axis, "%s", sc->axis);
	fill_signature(sc, rc, e);
	snprintf(e->seed, sizeof e->seed, "%llu", (unsigned long long)s->seed);
	input_kinds(sc, e->input_kinds, sizeof e->input_kinds);
	snprintf(e->input_desc, sizeof e->input_desc, "%s", rc->input);
	if (!(e->input_ini = input_ini(sc)))
		return ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
	cert_env_of_case(r, rc, &e->env);
	const struct results_slot *first = &rc->slots[0];
	for (int o = 0; o < first->n_outputs; o++) {
		struct cert_output *out = &e->outputs[e->n_outputs++];
		snprintf(out->tensor, sizeof out->tensor, "%s", first->outputs[o].tensor);
		snprintf(out->md5, sizeof out->md5, "%s", first->outputs[o].md5);
		out->bytes = first->outputs[o].bytes;
	}
	enum ab_rc rc2 = fill_site(s, sc, e, d);
	for (int j = 0; !rc2 && j < 2; j++)
		rc2 = fill_arm(r, s, sc, rc, j, dir, &e->arm[j], d);
	return rc2;
}

/* ---- runs ------------------------------------------------------------------------ */

/* The folder the scenario's relative paths lead from, absolute: where
 * `run` read it (its stored path, from the directory certify runs in, as
 * `run --resume` reads it), links resolved when it is there. */
static void scenario_dir(const char *scenario_path, char *out, size_t cap)
{
	char dir[PATH_MAX], cwd[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(scenario_path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == scenario_path ? 1 : (int)(slash - scenario_path), scenario_path);
	if (realpath(dir, real))
		snprintf(out, cap, "%.511s", real);
	else if (dir[0] != '/' && getcwd(cwd, sizeof cwd))
		snprintf(out, cap, "%.200s/%.300s", cwd, dir);
	else
		snprintf(out, cap, "%.511s", dir);
}

static enum ab_rc add_run(const struct results_run *r, struct cert *c, struct ab_diag *d)
{
	struct cert_run *cr = cert_add_run(c);
	int n = r->n_set_runs ? r->n_set_runs : 1;
	if (!cr || !(cr->ids = calloc((size_t)n, sizeof *cr->ids)))
		return ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
	for (int i = 0; i < n; i++)
		cr->ids[cr->n_ids++] = r->n_set_runs ? r->set_run_ids[i] : r->id;
	snprintf(cr->run_set, sizeof cr->run_set, "%s", r->n_set_runs ? r->run_set : "");
	snprintf(cr->scenario, sizeof cr->scenario, "%s", r->scenario_name);
	snprintf(cr->scenario_hash, sizeof cr->scenario_hash, "%s", r->scenario_hash);
	scenario_dir(r->scenario_path, cr->scenario_dir, sizeof cr->scenario_dir);
	snprintf(cr->backend, sizeof cr->backend, "%s", r->backend);
	cr->fake_timer = r->fake_timer;
	snprintf(cr->git_commit, sizeof cr->git_commit, "%s", r->git_commit);
	return AB_OK;
}

static const struct scenario_case *scenario_case_named(const struct scenario *s, const char *name)
{
	for (int k = 0; k < s->n_cases; k++)
		if (!strcmp(s->cases[k].name, name))
			return &s->cases[k];
	return NULL;
}

static enum ab_rc certify_one(const struct results_run *r, int run, struct cert *c, struct ab_diag *d)
{
	struct scenario *s = NULL;
	if (strcmp(r->status, "ok"))
		return ab_fail(d, AB_ERR_DATA, "run %lld is '%s', not 'ok': certify finished runs only", (long long)r->id,
			       r->status);
	enum ab_rc rc = add_run(r, c, d);
	if (!rc)
		rc = certify_stored_scenario(r, &s, d);
	for (int k = 0; !rc && k < r->n_cases; k++) {
		const struct results_case *rcase = &r->cases[k];
		const struct scenario_case *sc = scenario_case_named(s, rcase->name);
		char why[256];
		if (!sc) {
			rc = ab_fail(d, AB_ERR_DATA, "run %lld: case '%s' is not in its stored scenario", (long long)r->id,
				     rcase->name);
		} else if (cert_case_exact(rcase, why, sizeof why)) {
			struct cert_entry *e = cert_add_entry(c);
			rc = e ? fill_entry(r, s, sc, rcase, run, c->runs[run].scenario_dir, e, d) :
				 ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
		} else {
			struct cert_excluded *x = cert_add_excluded(c);
			if (!x)
				return scenario_free(s), ab_fail(d, AB_ERR_NOMEM, "out of memory certifying");
			x->run = run;
			snprintf(x->case_name, sizeof x->case_name, "%s", rcase->name);
			snprintf(x->site, sizeof x->site, "%s", rcase->site);
			snprintf(x->shape_text, sizeof x->shape_text, "%s", rcase->shape);
			snprintf(x->reason, sizeof x->reason, "%s", why);
		}
	}
	scenario_free(s);
	return rc;
}

enum ab_rc certify_runs(struct results_run *const *runs, int n, struct cert *out, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	memset(out, 0, sizeof *out);
	snprintf(out->issuer_version, sizeof out->issuer_version, "%s", AB_VERSION);
	snprintf(out->issuer_commit, sizeof out->issuer_commit, "%s", ab_build_commit());
	for (int i = 0; !rc && i < n; i++)
		rc = certify_one(runs[i], i, out, d);
	if (!rc)
		rc = cert_seal(out, d);
	if (rc)
		cert_free(out);
	return rc;
}
