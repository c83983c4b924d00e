/*
 * scenario_arms.c - the arms a scenario names (scenario_int.h): a and b of
 * [arms] (a built-in variant, the NAME of an [arm NAME], or
 * plugin:PATH:ARM), the [arm NAME] sections and their keys
 * (config/arm_spec.h), and the checks once the file is read: a and b
 * resolved, every [arm] section complete, each case's arms existing for
 * its site.
 */
#include "config/scenario_int.h"

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

/* ---- [arm NAME] keys ------------------------------------------------------- */

struct arm_spec *scenario_arms_current(struct pctx *c)
{
	return &c->scn->arms[c->cur_arm];
}

static enum ab_rc set_arm_type(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "plugin", "cubin", NULL };
	static const enum arm_spec_type map[] = { ARM_SPEC_PLUGIN, ARM_SPEC_CUBIN };
	int i = scenario_keys_word_index(words, val);
	if (i < 0)
		return scenario_keys_word_err(c, k->name, val, words);
	*(enum arm_spec_type *)field = map[i];
	return AB_OK;
}

/* A file named relative to the scenario's folder. */
static enum ab_rc set_path(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!arm_spec_resolve_path(c->scn->path, val, field, k->size))
		return scenario_perr(c, c->line, k->name, "'%s' is too long a path", val);
	return AB_OK;
}

static enum ab_rc set_entry(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!scenario_name_ok(val))
		return scenario_perr(c, c->line, k->name, "'%s' may use only letters, digits, '_', '-' and '.'", val);
	return scenario_keys_set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_kernel(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (val[strcspn(val, " \t")])
		return scenario_perr(c, c->line, k->name, "'%s': a kernel's name has no blanks", val);
	return scenario_keys_set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_dims(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	char err[AB_DIAG_MAX / 2];
	struct arm_spec *a = scenario_arms_current(c);
	int *n = k->name[0] == 'g' ? &a->n_grid : &a->n_block;
	if (!arm_spec_parse_dims(val, field, n, err, sizeof err))
		return scenario_perr(c, c->line, k->name, "%s", err);
	return AB_OK;
}

static enum ab_rc set_expr(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	char err[AB_DIAG_MAX / 2];
	if (!expr_parse(val, field, err, sizeof err))
		return scenario_perr(c, c->line, k->name, "%s", err);
	scenario_arms_current(c)->have_shared = true;
	return AB_OK;
}

/* Resolved against the site once the section is read (finish_arm). */
static enum ab_rc set_params(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	return scenario_keys_set_text(c, k->name, field, k->size, val);
}

const struct key_def scenario_arms_keys[] = {
	KEY_FN("type", B_ARM, struct arm_spec, type, set_arm_type, 0),
	KEY_FN("site", B_ARM, struct arm_spec, site, scenario_keys_set_site, 0),
	KEY_FN("library", B_ARM, struct arm_spec, library, set_path, 0),
	KEY_FN("name", B_ARM, struct arm_spec, entry, set_entry, 0),
	KEY_FN("triton", B_ARM, struct arm_spec, triton, set_path, 0),
	KEY_FN("binary", B_ARM, struct arm_spec, binary, set_path, 0),
	KEY_FN("kernel", B_ARM, struct arm_spec, kernel, set_kernel, 0),
	KEY_FN("grid", B_ARM, struct arm_spec, grid, set_dims, 0),
	KEY_FN("block", B_ARM, struct arm_spec, block, set_dims, 0),
	KEY_FN("shared", B_ARM, struct arm_spec, shared, set_expr, 0),
	KEY_FN("params", B_ARM, struct arm_spec, params_text, set_params, 0),
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

/* ---- sections ------------------------------------------------------------- */

/* Room for one more arm (and its scope); the shortcuts of [arms] come
 * after the sections, without a scope. */
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
	struct scope *ns = realloc(c->ascope, (size_t)cap * sizeof *ns);
	if (!ns)
		return scenario_nomem(c);
	c->ascope = ns;
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
			    s->arms[dup].lines.header);
	if (grow_arms(c))
		return c->rc;
	struct arm_spec *a = &s->arms[s->n_arms];
	memset(a, 0, sizeof *a);
	memcpy(a->name, name, n + 1);
	a->lines.header = c->line;
	c->ascope[s->n_arms] = (struct scope){ .header_line = c->line };
	c->cur_arm = s->n_arms++;
	c->sec = SEC_ARM;
	return AB_OK;
}

/* ---- once the whole file is read ----------------------------------------- */

/* The line of every key of [arm] section i, for the messages of later
 * checks (harness/arms/ opens the files at plan time). */
static void arm_lines(struct pctx *c, int i)
{
	const struct scope *sc = &c->ascope[i];
	struct arm_spec_lines *l = &c->scn->arms[i].lines;
	l->type = scenario_keys_line(sc, scenario_arms_keys, "type");
	l->site = scenario_keys_line(sc, scenario_arms_keys, "site");
	l->library = scenario_keys_line(sc, scenario_arms_keys, "library");
	l->name = scenario_keys_line(sc, scenario_arms_keys, "name");
	l->triton = scenario_keys_line(sc, scenario_arms_keys, "triton");
	l->binary = scenario_keys_line(sc, scenario_arms_keys, "binary");
	l->kernel = scenario_keys_line(sc, scenario_arms_keys, "kernel");
	l->grid = scenario_keys_line(sc, scenario_arms_keys, "grid");
	l->block = scenario_keys_line(sc, scenario_arms_keys, "block");
	l->shared = scenario_keys_line(sc, scenario_arms_keys, "shared");
	l->params = scenario_keys_line(sc, scenario_arms_keys, "params");
}

static enum ab_rc finish_arm(struct pctx *c, int i)
{
	struct arm_spec *a = &c->scn->arms[i];
	char err[AB_DIAG_MAX / 2];
	int line = a->lines.header;
	arm_lines(c, i);
	if (!arm_spec_finish(a, &line, err, sizeof err))
		return scenario_perr(c, line, NULL, "%s", err);
	if (a->type == ARM_SPEC_CUBIN && !arm_spec_parse_params(a, err, sizeof err))
		return scenario_perr(c, a->lines.params, "params", "%s", err);
	return AB_OK;
}

/* a or b = plugin:PATH:ARM: an arm of its own, after the sections. */
static enum ab_rc add_shortcut(struct pctx *c, int j, const char *text, int line)
{
	struct scenario *s = c->scn;
	const char *key = j ? "b" : "a";
	char path[ARM_SPEC_PATH_MAX], arm[ARM_SPEC_NAME_MAX], err[AB_DIAG_MAX / 2];
	if (!arm_spec_split_shortcut(text, path, sizeof path, arm, sizeof arm, err, sizeof err))
		return scenario_perr(c, line, key, "%s", err);
	if (!scenario_name_ok(arm))
		return scenario_perr(c, line, key, "'%s': the arm name '%s' may use only letters, digits, '_', '-' and '.'", text,
			    arm);
	if (grow_arms(c))
		return c->rc;
	struct arm_spec *a = &s->arms[s->n_arms];
	memset(a, 0, sizeof *a);
	a->type = ARM_SPEC_PLUGIN;
	a->shortcut = true;
	snprintf(a->name, sizeof a->name, "%s", arm);
	snprintf(a->entry, sizeof a->entry, "%s", arm);
	a->lines = (struct arm_spec_lines){ .header = line, .type = line, .library = line, .name = line };
	if (!arm_spec_resolve_path(s->path, path, a->library, sizeof a->library))
		return scenario_perr(c, line, key, "'%s' is too long a path", path);
	s->arm_ref[j] = s->n_arms++;
	snprintf(j ? s->arm_b : s->arm_a, sizeof s->arm_a, "%s", arm);
	return AB_OK;
}

static enum ab_rc unknown_arm(struct pctx *c, int line, const char *key, const char *text)
{
	const struct scenario *s = c->scn;
	/* Variants of the first site that has the most of them. */
	const struct site_desc *most = site_registry[0];
	for (const struct site_desc *const *st = site_registry; *st; st++)
		if ((*st)->n_variants > most->n_variants)
			most = *st;
	char list[128], arms[128] = "";
	scenario_variant_names(most, list, sizeof list);
	for (int i = 0; i < s->n_arms; i++)
		scenario_list_add(arms, sizeof arms, s->arms[i].name);
	if (!arms[0])
		return scenario_perr(c, line, key, "unknown variant '%s' (variants: %s; or an [arm NAME], or plugin:PATH:ARM)",
			    text, list);
	return scenario_perr(c, line, key, "unknown variant or arm '%s' (variants: %s; arms: %s)", text, list, arms);
}

/* Arm j (a or b) from its text: plugin:PATH:ARM, the name of an [arm
 * NAME], or a built-in variant (scenario_arms_check_case checks it for each case). */
static enum ab_rc resolve_arm(struct pctx *c, int j)
{
	struct scenario *s = c->scn;
	const char *key = j ? "b" : "a";
	const char *text = c->arm_text[j][0] ? c->arm_text[j] : j ? "fused" : "eager";
	int line = scenario_keys_line(&c->fixed[SEC_ARMS], scenario_keys_arms, key);
	char *dst = j ? s->arm_b : s->arm_a;
	s->arm_ref[j] = -1;
	if (strncmp(text, "plugin:", 7) == 0)
		return add_shortcut(c, j, text, line);
	int i = find_arm(s, text);
	if (i < 0 && !is_variant(text))
		return unknown_arm(c, line, key, text);
	if (strlen(text) >= sizeof s->arm_a)
		return scenario_perr(c, line, key, "'%s' is too long a variant name", text);
	s->arm_ref[j] = i;
	snprintf(dst, sizeof s->arm_a, "%s", text);
	return AB_OK;
}

/* A user arm whose site the scenario names must be the case's. */
static enum ab_rc check_user_arm(struct pctx *c, const struct scenario_case *cs, int j)
{
	const struct arm_spec *a = &c->scn->arms[c->scn->arm_ref[j]];
	if (!a->site || a->site == cs->site)
		return AB_OK;
	return scenario_perr(c, a->lines.site, "site", "arm '%s' is for site '%s', but case '%s' (line %d) has site '%s'",
		    a->name, a->site->name, cs->name, cs->line, cs->site->name);
}

/* Both arms must exist for the case's site. */
enum ab_rc scenario_arms_check_case(struct pctx *c, const struct scenario_case *cs)
{
	const char *arm[2] = { c->scn->arm_a, c->scn->arm_b }, *key[2] = { "a", "b" };
	for (int j = 0; j < 2; j++) {
		if (c->scn->arm_ref[j] >= 0) {
			if (check_user_arm(c, cs, j))
				return c->rc;
			continue;
		}
		if (site_find_variant(cs->site, arm[j]))
			continue;
		char list[128];
		int line = scenario_keys_line(&c->fixed[SEC_ARMS], scenario_keys_arms, key[j]);
		scenario_variant_names(cs->site, list, sizeof list);
		return scenario_perr(c, line ? line : cs->line, key[j],
			    "case '%s' (line %d) has site '%s', which has no variant '%s' (it has: %s)", cs->name,
			    cs->line, cs->site->name, arm[j], list);
	}
	return AB_OK;
}

enum ab_rc scenario_arms_finish(struct pctx *c)
{
	for (int i = 0; i < c->scn->n_arms; i++)
		if (finish_arm(c, i) != AB_OK)
			return c->rc;
	if (resolve_arm(c, 0) || resolve_arm(c, 1))
		return c->rc;
	return AB_OK;
}
