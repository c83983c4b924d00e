/*
 * scenario_arms.c - the arms a scenario names (scenario_int.h): a and b of
 * [arms] and of each [case] (a built-in variant, the NAME of an [arm
 * NAME], or a KIND:PATH:NAME shortcut such as plugin:PATH:ARM; a case's
 * own a and b override [arms]'s), the [arm NAME] sections kept as records
 * (config/arm_spec.h) with the keys every kind has (site, bytes, writes),
 * and the checks once the file is read: each side resolved, each case's
 * arms existing for its site. Two cases that write the same shortcut share
 * one arm, loaded once.
 *
 * What an [arm] section's keys mean, its kind included, is checked by the
 * kind (harness/arms/arm_kind.h) once the scenario is read, before any
 * database is opened: this file knows no kind of arm.
 */
#include "config/scenario_int.h"

#include "common/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a and b may name [arm NAME] sections further down: kept as text here,
 * resolved by resolve_arm once the whole file is read. */
enum ab_rc scenario_arms_set(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	(void)field;
	return scenario_keys_set_text(c, k->name, c->arm_text[k->name[0] == 'b'], sizeof c->arm_text[0], val);
}

struct arm_spec *scenario_arms_current(struct pctx *c)
{
	return &c->scn->arms[c->cur_arm];
}

/* ---- [arm NAME] keys ------------------------------------------------------- */

/* site = NAME: kept as text, found once the file is read (as a case's
 * is), and held against each case. */
static enum ab_rc arm_site(struct pctx *c, struct arm_spec *a, const char *val)
{
	a->site_line = c->line;
	return scenario_keys_set_text(c, "site", a->site_name, sizeof a->site_name, val);
}

/* The line of key in section a, 0 when it has none yet. */
static int seen_at(const struct arm_spec *a, const char *key)
{
	if (strcmp(key, "type") == 0)
		return a->kind_line;
	if (strcmp(key, "site") == 0)
		return a->site_line;
	if (strcmp(key, "bytes") == 0)
		return a->bytes_line;
	if (strcmp(key, "writes") == 0)
		return a->writes_line;
	const struct arm_spec_key *k = arm_spec_find(a, key);
	return k ? k->line : 0;
}

enum ab_rc scenario_arms_key(struct pctx *c, const char *key, const char *val)
{
	struct arm_spec *a = scenario_arms_current(c);
	int first = seen_at(a, key);
	if (first)
		return scenario_perr(c, c->line, key, "duplicate key (first set at line %d)", first);
	if (!*val)
		return scenario_perr(c, c->line, key, "missing value");
	if (strcmp(key, "site") == 0)
		return arm_site(c, a, val);
	if (strcmp(key, "type") == 0) {
		a->kind_line = c->line;
		return scenario_keys_set_text(c, key, a->kind, sizeof a->kind, val);
	}
	if (strcmp(key, "bytes") == 0) {
		a->bytes_line = c->line;
		return scenario_keys_set_text(c, key, a->bytes, sizeof a->bytes, val);
	}
	if (strcmp(key, "writes") == 0) {
		a->writes_line = c->line;
		return scenario_keys_set_text(c, key, a->writes, sizeof a->writes, val);
	}
	if (a->n_keys == ARM_SPEC_MAX_KEYS)
		return scenario_perr(c, c->line, key, "[arm %s] has more than %d keys", a->name, ARM_SPEC_MAX_KEYS);
	struct arm_spec_key *k = &a->keys[a->n_keys++];
	k->line = c->line;
	snprintf(k->key, sizeof k->key, "%s", key); /* both fit: a line is shorter */
	snprintf(k->value, sizeof k->value, "%s", val);
	return AB_OK;
}

/* ---- sections ------------------------------------------------------------- */

/* Room for one more arm; the shortcuts of [arms] come after the sections. */
static enum ab_rc grow_arms(struct pctx *c)
{
	struct scenario *s = c->scn;
	if (s->n_arms < c->arm_cap)
		return AB_OK;
	int cap = c->arm_cap ? 2 * c->arm_cap : 4;
	struct arm_spec *na = realloc(s->arms, (size_t)cap * sizeof *na);
	if (!na)
		return scenario_nomem(c);
	s->arms = na;
	c->arm_cap = cap;
	return AB_OK;
}

/* Whether name is a built-in variant of some site. */
static bool is_variant(const char *name)
{
	for (const struct site_desc *const *s = site_registry; *s; s++)
		if (site_find_variant(*s, name))
			return true;
	return false;
}

static int find_arm(const struct scenario *s, const char *name)
{
	for (int i = 0; i < s->n_arms; i++)
		if (strcmp(s->arms[i].name, name) == 0)
			return i;
	return -1;
}

enum ab_rc scenario_arms_open(struct pctx *c, const char *inner, const char *name)
{
	struct scenario *s = c->scn;
	size_t n = strlen(name);
	if (n == 0 || !scenario_name_ok(name))
		return scenario_perr(c, c->line, NULL, "[%s]: an arm needs a name of letters, digits, '_', '-' and '.', as in [arm my_ln]",
			    inner);
	if (n >= ARM_SPEC_NAME_MAX)
		return scenario_perr(c, c->line, NULL, "[%s]: arm name is %zu characters long, at most %d allowed", inner, n,
			    ARM_SPEC_NAME_MAX - 1);
	if (is_variant(name))
		return scenario_perr(c, c->line, NULL, "[%s]: '%s' is a built-in variant (abbench sites): choose another name",
			    inner, name);
	int dup = find_arm(s, name);
	if (dup >= 0)
		return scenario_perr(c, c->line, NULL, "[%s]: duplicate arm name (first at line %d)", inner,
			    s->arms[dup].header);
	if (grow_arms(c))
		return c->rc;
	struct arm_spec *a = &s->arms[s->n_arms];
	memset(a, 0, sizeof *a);
	memcpy(a->name, name, n + 1);
	a->header = c->line;
	c->cur_arm = s->n_arms++;
	c->sec = SEC_ARM;
	return AB_OK;
}

/* ---- once the whole file is read ----------------------------------------- */

/* A shortcut written before (in [arms] or another case): the same arm. */
static int find_shortcut(const struct scenario *s, const char *kind, const char *path, const char *name)
{
	for (int i = 0; i < s->n_arms; i++)
		if (arm_spec_is_shortcut(&s->arms[i]) && !strcmp(s->arms[i].kind, kind) && !strcmp(s->arms[i].path, path) &&
		    !strcmp(s->arms[i].name, name))
			return i;
	return -1;
}

/* key (a or b) = KIND:PATH:NAME at line: an arm of its own, after the
 * sections (its kind checks PATH, harness/arms/); its index. */
static enum ab_rc add_shortcut(struct pctx *c, const char *key, const char *text, int line, int *ref)
{
	struct scenario *s = c->scn;
	char kind[ARM_SPEC_KIND_MAX], path[ARM_SPEC_TEXT_MAX], arm[ARM_SPEC_NAME_MAX], err[AB_DIAG_MAX / 2];
	if (!arm_spec_split_shortcut(text, kind, sizeof kind, path, sizeof path, arm, sizeof arm, err, sizeof err))
		return scenario_perr(c, line, key, "%s", err);
	if (!scenario_name_ok(arm))
		return scenario_perr(c, line, key, "'%s': the arm name '%s' may use only letters, digits, '_', '-' and '.'", text,
			    arm);
	if ((*ref = find_shortcut(s, kind, path, arm)) >= 0)
		return AB_OK;
	for (int i = 0; i < s->n_arms; i++)
		if (strcmp(s->arms[i].name, arm) == 0)
			return scenario_perr(c, line, key, "'%s': an arm named '%s' exists already (line %d): arms are told apart "
					     "by name (give one an [arm NAME] section of its own)", text, arm, s->arms[i].header);
	if (grow_arms(c))
		return c->rc;
	struct arm_spec *a = &s->arms[s->n_arms];
	memset(a, 0, sizeof *a);
	snprintf(a->name, sizeof a->name, "%s", arm);
	snprintf(a->kind, sizeof a->kind, "%s", kind);
	snprintf(a->path, sizeof a->path, "%s", path);
	snprintf(a->via, sizeof a->via, "%s", key);
	a->header = a->kind_line = line;
	*ref = s->n_arms++;
	return AB_OK;
}

/* Whether the ", "-joined list holds word. */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/* Every built-in variant of every site and every [arm NAME] of the
 * scenario, as a list: what a mistyped arm is held against. */
static void every_arm_name(const struct scenario *s, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct site_desc *const *st = site_registry; *st; st++)
		for (int v = 0; v < (*st)->n_variants; v++)
			if (!list_has(buf, (*st)->variants[v].name))
				scenario_list_add(buf, len, (*st)->variants[v].name);
	for (int i = 0; i < s->n_arms; i++)
		scenario_list_add(buf, len, s->arms[i].name);
}

static enum ab_rc unknown_arm(struct pctx *c, int line, const char *key, const char *text)
{
	const struct scenario *s = c->scn;
	/* Variants of the first site that has the most of them. */
	const struct site_desc *most = site_registry[0];
	for (const struct site_desc *const *st = site_registry; *st; st++)
		if ((*st)->n_variants > most->n_variants)
			most = *st;
	char list[128], arms[128] = "", every[1024], near[ARM_SPEC_NAME_MAX], dym[ARM_SPEC_NAME_MAX + 32] = "";
	scenario_variant_names(most, list, sizeof list);
	for (int i = 0; i < s->n_arms; i++)
		scenario_list_add(arms, sizeof arms, s->arms[i].name);
	every_arm_name(s, every, sizeof every);
	if (suggest_nearest_in(text, every, near, sizeof near))
		snprintf(dym, sizeof dym, "did you mean '%s'? ", near);
	if (!arms[0])
		return scenario_perr(c, line, key, "unknown variant '%s' (%svariants: %s; or an [arm NAME], or plugin:PATH:ARM)",
			    text, dym, list);
	return scenario_perr(c, line, key, "unknown variant or arm '%s' (%svariants: %s; arms: %s)", text, dym, list, arms);
}

/* text as key (a or b) names it at line: KIND:PATH:NAME, the name of an
 * [arm NAME], or a built-in variant (checked for each case's site by
 * check_case): its name into name, its index in the arms into *ref (-1
 * for a variant). */
static enum ab_rc resolve_text(struct pctx *c, const char *key, const char *text, int line, char *name, int *ref)
{
	struct scenario *s = c->scn;
	*ref = -1;
	if (arm_spec_looks_like_shortcut(text)) {
		if (add_shortcut(c, key, text, line, ref))
			return c->rc;
		snprintf(name, ARM_SPEC_NAME_MAX, "%s", s->arms[*ref].name);
		return AB_OK;
	}
	int i = find_arm(s, text);
	if (i < 0 && !is_variant(text))
		return unknown_arm(c, line, key, text);
	if (strlen(text) >= ARM_SPEC_NAME_MAX)
		return scenario_perr(c, line, key, "'%s' is too long a variant name", text);
	*ref = i;
	snprintf(name, ARM_SPEC_NAME_MAX, "%s", text);
	return AB_OK;
}

/* [arms]'s side j: its text, or eager and fused. */
static enum ab_rc resolve_arm(struct pctx *c, int j)
{
	struct scenario *s = c->scn;
	const char *key = j ? "b" : "a";
	const char *text = c->arm_text[j][0] ? c->arm_text[j] : j ? "fused" : "eager";
	int line = scenario_keys_line(&c->fixed[SEC_ARMS], scenario_keys_arms, key);
	return resolve_text(c, key, text, line, j ? s->arm_b : s->arm_a, &s->arm_ref[j]);
}

/* "writes: 'ss' is not a stat or scratch tensor of site 'ln_modulate' (did
 * you mean ...? stat and scratch tensors: mean, rstd, ...)": the tensors an
 * arm may write besides its outputs. */
static enum ab_rc unknown_written(struct pctx *c, const struct arm_spec *a, const char *name)
{
	const char *names[SITE_MAX_TENSORS];
	char hint[SUGGEST_LIST_MAX + 96];
	int n = 0;
	for (int t = 0; t < a->site->n_tensors && n < SITE_MAX_TENSORS; t++)
		if (a->site->tensors[t].role == SITE_AUX || a->site->tensors[t].role == SITE_SCRATCH)
			names[n++] = a->site->tensors[t].name;
	if (n)
		suggest_hint(name, names, n, "its stat and scratch tensors", NULL, 1, hint, sizeof hint);
	else
		snprintf(hint, sizeof hint, ": it has none");
	return scenario_perr(c, a->writes_line, "writes", "'%s' is not a stat or scratch tensor of site '%s'%s", name,
			     a->site->name, hint);
}

/* An [arm]'s site, its traffic expression and the tensors it writes. */
static enum ab_rc finish_spec(struct pctx *c, struct arm_spec *a)
{
	char err[AB_DIAG_MAX / 2], item[ARM_SPEC_TEXT_MAX];
	if (a->site_name[0] && scenario_site_resolve(c, a->site_name, a->site_line, "site", &a->site))
		return c->rc;
	if ((a->bytes[0] || a->writes[0]) && !a->site)
		return scenario_perr(c, a->bytes[0] ? a->bytes_line : a->writes_line, a->bytes[0] ? "bytes" : "writes",
				     "[arm %s] needs site = NAME: its expression and tensors are the site's", a->name);
	if (a->bytes[0]) {
		struct expr e;
		if (!expr_parse(a->bytes, a->site, &e, err, sizeof err))
			return scenario_perr(c, a->bytes_line, "bytes", "%s", err);
		if (!(a->bytes_expr = scenario_keep_expr(c, &e)))
			return c->rc;
	}
	for (const char *p = a->writes; *p;) {
		size_t n = strcspn(p, ",");
		snprintf(item, sizeof item, "%.*s", (int)n, p);
		char *b = item, *e = item + strlen(item);
		while (*b == ' ' || *b == '\t')
			b++;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		int t = site_tensor_index(a->site, b);
		if (t < 0 || (a->site->tensors[t].role != SITE_AUX && a->site->tensors[t].role != SITE_SCRATCH))
			return unknown_written(c, a, b);
		a->writes_mask |= SITE_IO(t);
		p += n + (p[n] == ',');
	}
	return AB_OK;
}

/* The case's side j: its own arm, else [arms]'s; into the case. */
static enum ab_rc case_arm(struct pctx *c, int i, int j)
{
	struct scenario_case *cs = &c->scn->cases[i];
	const char *own = c->ctext[i].arm[j], *key = j ? "b" : "a";
	char *name = j ? cs->arm_b : cs->arm_a;
	if (own[0]) {
		cs->arm_line[j] = scenario_keys_line(&c->cscope[i], scenario_keys_case, key);
		return resolve_text(c, key, own, cs->arm_line[j], name, &cs->arm_ref[j]);
	}
	int line = scenario_keys_line(&c->fixed[SEC_ARMS], scenario_keys_arms, key);
	cs->arm_line[j] = line ? line : cs->line;
	cs->arm_ref[j] = c->scn->arm_ref[j];
	snprintf(name, ARM_SPEC_NAME_MAX, "%s", j ? c->scn->arm_b : c->scn->arm_a);
	return AB_OK;
}

/* A user arm whose site the scenario names must be the case's. */
static enum ab_rc check_user_arm(struct pctx *c, const struct scenario_case *cs, int j)
{
	const struct arm_spec *a = &c->scn->arms[cs->arm_ref[j]];
	if (!a->site || a->site == cs->site)
		return AB_OK;
	return scenario_perr(c, a->site_line, "site", "arm '%s' is for site '%s', but case '%s' (line %d) has site '%s'",
		    a->name, a->site->name, cs->name, cs->line, cs->site->name);
}

enum ab_rc scenario_arms_check_case(struct pctx *c, int i)
{
	struct scenario_case *cs = &c->scn->cases[i];
	for (int j = 0; j < 2; j++) {
		const char *arm = j ? cs->arm_b : cs->arm_a, *key = j ? "b" : "a";
		if (case_arm(c, i, j))
			return c->rc;
		if (cs->arm_ref[j] >= 0) {
			if (check_user_arm(c, cs, j))
				return c->rc;
			continue;
		}
		if (site_find_variant(cs->site, arm))
			continue;
		char list[128];
		scenario_variant_names(cs->site, list, sizeof list);
		if (cs->site->declared_at)
			return scenario_perr(c, cs->arm_line[j], key,
					     "case '%s' (line %d) has site '%s', which is declared (%s) and has no built-in "
					     "variant '%s': name a plugin, cubin or python arm (a = ..., b = ... in [arms] or "
					     "the case)", cs->name, cs->line, cs->site->name, cs->site->declared_at, arm);
		return scenario_perr(c, cs->arm_line[j], key,
			    "case '%s' (line %d) has site '%s', which has no variant '%s' (it has: %s)", cs->name,
			    cs->line, cs->site->name, arm, list);
	}
	return AB_OK;
}

enum ab_rc scenario_arms_case_set(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	(void)field;
	return scenario_keys_set_text(c, k->name, c->ctext[c->cur].arm[k->name[0] == 'b'], sizeof c->ctext[0].arm[0], val);
}

void scenario_arms_run_arms(struct pctx *c)
{
	struct scenario *s = c->scn;
	for (int j = 0; j < 2; j++) {
		char *run = j ? s->arm_b : s->arm_a;
		bool used = false;
		for (int i = 0; i < s->n_cases && !used; i++)
			used = strcmp(j ? s->cases[i].arm_b : s->cases[i].arm_a, run) == 0;
		if (!used && s->n_cases) {
			run[0] = '\0';
			s->arm_ref[j] = -1;
		}
	}
}

enum ab_rc scenario_arms_finish(struct pctx *c)
{
	for (int i = 0; i < c->scn->n_arms; i++)
		if (finish_spec(c, &c->scn->arms[i]))
			return c->rc;
	if (resolve_arm(c, 0) || resolve_arm(c, 1))
		return c->rc;
	return AB_OK;
}

/* Each case's bytes = EXPR of its arms, evaluated once the sweeps are
 * expanded: an expression that overflows, divides by zero or is not
 * positive is refused at its line, as a site's require is, rather than
 * left for the GB/s to fall back to the site's minimum without a word. */
enum ab_rc scenario_arms_bytes(struct pctx *c)
{
	const struct scenario *s = c->scn;
	char err[AB_DIAG_MAX / 4];
	for (int i = 0; i < s->n_cases; i++)
		for (int j = 0; j < 2; j++) {
			const struct scenario_case *cs = &s->cases[i];
			const struct arm_spec *a = cs->arm_ref[j] >= 0 ? &s->arms[cs->arm_ref[j]] : NULL;
			int64_t v = 0;
			if (!a || !a->bytes_expr)
				continue;
			if (!expr_eval(a->bytes_expr, &cs->dims, &v, err, sizeof err))
				return scenario_perr(c, a->bytes_line, "bytes", "'%s' of arm '%s' for case '%s': %s", a->bytes,
						     a->name, cs->name, err);
			if (v <= 0)
				return scenario_perr(c, a->bytes_line, "bytes", "'%s' of arm '%s' for case '%s' is %lld: the "
						     "bytes an arm moves must be more than 0", a->bytes, a->name, cs->name,
						     (long long)v);
		}
	return AB_OK;
}
