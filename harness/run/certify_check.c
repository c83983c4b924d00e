/*
 * certify_check.c - a certificate's entries proved again here
 * (certify_check.h): a scenario per source run, run into a temporary
 * database, each case judged against its entry.
 */
#include "run/certify_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arms/arms.h"
#include "backend/backend.h"
#include "config/cert_scenario.h"
#include "config/scenario.h"
#include "run/runner.h"
#include "store/store.h"

static void lose(struct certify_check_entry *k, const char *why)
{
	k->exact = false;
	snprintf(k->why, sizeof k->why, "%s", why);
}

/* "" when every user arm's file of e is a regular file at its recorded
 * path, else why not. */
static bool artefacts_here(const struct cert_entry *e, char *why, size_t len)
{
	for (int j = 0; j < 2; j++) {
		const struct cert_arm *a = &e->arm[j];
		struct stat st;
		if (!strcmp(a->kind, "builtin"))
			continue;
		if (stat(a->path, &st) != 0)
			return ab_fail_text(why, len, "arm %c '%s': its %s '%s' is not here (%s)", j ? 'b' : 'a', a->name,
					    a->kind, a->path, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return ab_fail_text(why, len, "arm %c '%s': '%s' is not a regular file", j ? 'b' : 'a', a->name,
					    a->path);
	}
	return true;
}

static const struct results_arm_source *source_of(const struct results_run *r, char arm, const char *name)
{
	for (int i = 0; i < r->n_arm_sources; i++)
		if (r->arm_sources[i].arm == arm && !strcmp(r->arm_sources[i].name, name))
			return &r->arm_sources[i];
	return NULL;
}

/* "arm b 'f' sha256 31c55b49... -> 77aa0312..." for each arm whose
 * artefact is not the certified one. */
static void artefact_diff(const struct cert_entry *e, const struct results_run *r, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int j = 0; j < 2; j++) {
		const struct cert_arm *a = &e->arm[j];
		const struct results_arm_source *src = source_of(r, j ? 'b' : 'a', a->name);
		const char *now = src ? src->sha256 : "";
		size_t used = strlen(buf);
		if (!strcmp(a->kind, "builtin")) {
			if (strcmp(a->build_commit, r->git_commit) && used < len)
				snprintf(buf + used, len - used, "%sarm %c '%s' build %s -> %s", used ? ", " : "", j ? 'b' : 'a',
					 a->name, a->build_commit, r->git_commit);
		} else if (strcmp(a->sha256, now) && used < len) {
			snprintf(buf + used, len - used, "%sarm %c '%s' sha256 %.16s... -> %.16s...", used ? ", " : "",
				 j ? 'b' : 'a', a->name, a->sha256, now[0] ? now : "(none)");
		}
	}
}

static bool md5_same(const struct cert_entry *e, const struct results_case *c)
{
	const struct results_slot *s = &c->slots[0];
	if (s->n_outputs != e->n_outputs)
		return false;
	for (int o = 0; o < e->n_outputs; o++)
		if (strcmp(s->outputs[o].md5, e->outputs[o].md5) || strcmp(s->outputs[o].tensor, e->outputs[o].tensor))
			return false;
	return true;
}

static void judge(const struct cert_entry *e, const struct results_run *r, const struct results_case *c,
		  struct certify_check_entry *k)
{
	struct cert_env now;
	k->run_id = r->id;
	k->exact = cert_case_exact(c, k->why, sizeof k->why);
	cert_env_of_case(r, c, &now);
	cert_env_diff(&e->env, &now, NULL, k->env_diff, sizeof k->env_diff);
	artefact_diff(e, r, k->artefact_diff, sizeof k->artefact_diff);
	k->md5_same = md5_same(e, c);
}

static const struct results_case *case_named(const struct results_run *r, const char *name)
{
	for (int i = 0; r && i < r->n_cases; i++)
		if (!strcmp(r->cases[i].name, name))
			return &r->cases[i];
	return NULL;
}

/* The check run's whole record, NULL when there is none. */
static struct results_run *load_check_run(const char *db, int64_t id)
{
	struct store *st = NULL;
	struct results_run *r = NULL;
	struct ab_diag d;
	if (id && !store_open_readonly(db, &st, &d))
		store_load_run(st, id, &r, &d);
	store_close(st);
	return r;
}

/* The scenario of the entries idx[0..n) of one source run, read as if it
 * stood in that run's scenario folder. */
static enum ab_rc group_scenario(const struct cert *c, const int *idx, int n, struct scenario **s, struct ab_diag *d)
{
	struct cert_scenario_case *cases = calloc((size_t)n, sizeof *cases);
	char *text = NULL, path[640];
	size_t len = 0;
	FILE *f = cases ? open_memstream(&text, &len) : NULL;
	if (!f) {
		free(cases);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory writing the check's scenario");
	}
	for (int i = 0; i < n; i++)
		cases[i] = (struct cert_scenario_case){ &c->entries[idx[i]], &c->entries[idx[i]].sig, NULL };
	enum ab_rc rc = cert_scenario_write(f, "certify_check", CERT_SCENARIO_CHECK, cases, n, d);
	if (fclose(f) && !rc)
		rc = ab_fail(d, AB_ERR_NOMEM, "out of memory writing the check's scenario");
	snprintf(path, sizeof path, "%.600s/abbench-certify-check.ini", c->runs[c->entries[idx[0]].run].scenario_dir);
	if (!rc)
		rc = scenario_parse_text(path, text, s, d);
	if (!rc && (rc = arms_check(*s, d)))
		scenario_free(*s), *s = NULL;
	free(text);
	free(cases);
	return rc;
}

/* Runs the scenario s into db; the run's id (0: none was written), and
 * *stop when a signal stopped it (the check stops there too). */
static int64_t run_group(const struct scenario *s, const char *db, bool progress, bool *stop, struct ab_diag *d)
{
	const struct backend_ops *ops = NULL;
	bool fell = false;
	char why[300];
	struct runner_result res = { 0 };
	if (backend_choose(s->backend, &ops, &fell, why, sizeof why, d))
		return 0;
	struct runner_options ro = { .ops = ops, .db_path = db, .progress = progress,
				     .command_line = "abbench certify --check", .label = "certify-check" };
	*stop = runner_scenario(s, &ro, &res, d) == AB_ERR_INTERRUPTED;
	return res.run_id;
}

/* Whether entries x and y run together: of one source run, with the
 * same two arms (an arm that cannot run here then loses only its own). */
static bool same_group(const struct cert_entry *x, const struct cert_entry *y)
{
	return x->run == y->run && !strcmp(x->arm[0].name, y->arm[0].name) && !strcmp(x->arm[1].name, y->arm[1].name) &&
	       !strcmp(x->arm[0].shortcut, y->arm[0].shortcut) && !strcmp(x->arm[1].shortcut, y->arm[1].shortcut);
}

/* The entries that run with entry g (the first of its group): each
 * judged, or lost with the reason. AB_ERR_INTERRUPTED when a signal
 * stopped its run. */
static enum ab_rc check_group(const struct cert *c, int g, const char *db, const struct certify_check_options *o,
			      struct certify_check *out, int *idx, struct ab_diag *stopped)
{
	bool stop = false;
	int n = 0;
	struct ab_diag d = { "" };
	char why[300];
	for (int i = g; i < c->n_entries; i++) {
		if (!same_group(&c->entries[g], &c->entries[i]))
			continue;
		if (artefacts_here(&c->entries[i], why, sizeof why))
			idx[n++] = i;
		else
			lose(&out->e[i], why);
	}
	if (!n)
		return AB_OK;
	struct scenario *s = NULL;
	int64_t id = group_scenario(c, idx, n, &s, &d) ? 0 : run_group(s, db, o->progress, &stop, &d);
	struct results_run *r = load_check_run(db, id);
	for (int i = 0; i < n; i++) {
		const struct results_case *rc = case_named(r, c->entries[idx[i]].case_name);
		if (rc)
			judge(&c->entries[idx[i]], r, rc, &out->e[idx[i]]);
		else
			lose(&out->e[idx[i]], d.msg[0] ? d.msg : "the check's run holds no such case");
	}
	results_run_free(r);
	scenario_free(s);
	return stop ? ab_fail(stopped, AB_ERR_INTERRUPTED, "%s", d.msg) : AB_OK;
}

static void count(struct certify_check *k)
{
	for (int i = 0; i < k->n; i++) {
		k->n_exact += k->e[i].exact;
		k->n_lost += !k->e[i].exact;
		k->n_env += k->e[i].env_diff[0] != '\0';
		k->n_artefact += k->e[i].artefact_diff[0] != '\0';
	}
}

enum ab_rc certify_check(const struct cert *c, const struct certify_check_options *o, struct certify_check *out,
			 struct ab_diag *d)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], db[600];
	memset(out, 0, sizeof *out);
	out->n = c->n_entries;
	out->e = calloc((size_t)(c->n_entries ? c->n_entries : 1), sizeof *out->e);
	int *idx = calloc((size_t)(c->n_entries ? c->n_entries : 1), sizeof *idx);
	if (!out->e || !idx) {
		free(idx);
		certify_check_free(out);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory checking the certificate");
	}
	snprintf(dir, sizeof dir, "%s/abbench-check-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!o->keep_db && !mkdtemp(dir)) {
		free(idx);
		certify_check_free(out);
		return ab_fail(d, AB_ERR_IO, "cannot make a temporary directory '%s': %s", dir, strerror(errno));
	}
	snprintf(db, sizeof db, "%s", o->keep_db ? o->keep_db : dir);
	if (!o->keep_db)
		strncat(db, "/check.db", sizeof db - strlen(db) - 1);
	enum ab_rc rc = AB_OK;
	for (int g = 0; !rc && g < c->n_entries; g++) {
		bool first = true;
		for (int k = 0; k < g && first; k++)
			first = !same_group(&c->entries[k], &c->entries[g]);
		if (first)
			rc = check_group(c, g, db, o, out, idx, d);
	}
	if (!o->keep_db) {
		store_remove_db_files(db);
		rmdir(dir);
	}
	free(idx);
	if (rc) {
		certify_check_free(out);
		return rc;
	}
	count(out);
	return AB_OK;
}

void certify_check_free(struct certify_check *k)
{
	free(k->e);
	memset(k, 0, sizeof *k);
}
