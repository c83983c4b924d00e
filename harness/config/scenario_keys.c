/*
 * scenario_keys.c - the keys of [scenario], [arms], [model] and [case]
 * (scenario_int.h): one table per section (name, kind, where the value
 * goes, its range), the value parsers, the handler that looks a key up
 * and stores its value, and the checks of those sections once read.
 */
#include "config/scenario_int.h"
#include "common/suggest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- value parsers ----------------------------------------------------- */

static enum ab_rc parse_double(struct pctx *c, const char *key, const char *val, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (end == val)
		return scenario_perr(c, c->line, key, "'%s' is not a number", val);
	if (*end)
		return scenario_perr(c, c->line, key, "'%s' is not a number (trailing '%s')", val, end);
	if (!isfinite(v))
		return scenario_perr(c, c->line, key, "'%s' is not a finite number", val);
	*out = v;
	return AB_OK;
}

/* Whether val is an optional '+' then decimal digits only (strtoll and
 * strtoull accept blanks and, for strtoull, a wrapping '-'). */
static bool all_digits(const char *val, bool sign_ok)
{
	const char *p = val + ((*val == '-' && sign_ok) || *val == '+');
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

static enum ab_rc parse_int(struct pctx *c, const char *key, const char *val, long long *out)
{
	if (!all_digits(val, true))
		return scenario_perr(c, c->line, key, "'%s' is not an integer", val);
	errno = 0;
	long long v = strtoll(val, NULL, 10);
	if (errno == ERANGE)
		return scenario_perr(c, c->line, key, "'%s' is out of range", val);
	*out = v;
	return AB_OK;
}

static enum ab_rc parse_u64(struct pctx *c, const char *key, const char *val, uint64_t *out)
{
	if (!all_digits(val, false))
		return scenario_perr(c, c->line, key, "'%s' is not an integer from 0 to 18446744073709551615", val);
	errno = 0;
	unsigned long long v = strtoull(val, NULL, 10);
	if (errno == ERANGE)
		return scenario_perr(c, c->line, key, "'%s' is larger than 18446744073709551615", val);
	*out = (uint64_t)v;
	return AB_OK;
}

static enum ab_rc parse_bool(struct pctx *c, const char *key, const char *val, bool *out)
{
	static const char *const yes[] = { "true", "yes", "1" }, *const no[] = { "false", "no", "0" };
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcmp(val, yes[i]) == 0 || strcmp(val, no[i]) == 0) {
			*out = strcmp(val, yes[i]) == 0;
			return AB_OK;
		}
	}
	return scenario_perr(c, c->line, key, "'%s' is not a boolean (use true or false)", val);
}

/* "must be > 0 and < 1", from a key's range. */
static void range_text(const struct key_def *k, char *buf, size_t len)
{
	const char *fmt = k->kind == K_INT ? "%s%s %.0f" : "%s%s %g";
	buf[0] = '\0';
	if (k->lo > -HUGE_VAL)
		snprintf(buf, len, fmt, "", k->flags & KF_OPEN_LO ? ">" : ">=", k->lo);
	if (k->hi < HUGE_VAL) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, fmt, used ? " and " : "", k->flags & KF_OPEN_HI ? "<" : "<=", k->hi);
	}
}

static bool in_range(const struct key_def *k, double v)
{
	bool lo_ok = k->flags & KF_OPEN_LO ? v > k->lo : v >= k->lo;
	bool hi_ok = k->flags & KF_OPEN_HI ? v < k->hi : v <= k->hi;
	return lo_ok && hi_ok;
}

static enum ab_rc range_err(struct pctx *c, const struct key_def *k, const char *val)
{
	char range[96];
	range_text(k, range, sizeof range);
	return scenario_perr(c, c->line, k->name, "%s is out of range (must be %s)", val, range);
}

/* Copies a word into a fixed buffer, or complains that it is too long. */
enum ab_rc scenario_keys_set_text(struct pctx *c, const char *key, char *dst, size_t cap, const char *val)
{
	size_t n = strlen(val);
	if (n >= cap)
		return scenario_perr(c, c->line, key, "'%s' is %zu characters long, at most %zu allowed", val, n, cap - 1);
	memcpy(dst, val, n + 1);
	return AB_OK;
}

/* Looks val up in a NULL-terminated word list; -1 when absent. */
int scenario_keys_word_index(const char *const *words, const char *val)
{
	for (int i = 0; words[i]; i++)
		if (strcmp(words[i], val) == 0)
			return i;
	return -1;
}

enum ab_rc scenario_keys_word_err(struct pctx *c, const char *key, const char *val, const char *const *words)
{
	char list[128] = "", dym[96] = "";
	int n = 0;
	for (; words[n]; n++)
		scenario_list_add(list, sizeof list, words[n]);
	const char *near = suggest_nearest(val, words, n);
	if (near)
		snprintf(dym, sizeof dym, " (did you mean '%.48s'?)", near);
	return scenario_perr(c, c->line, key, "'%s' is not one of: %s%s", val, list, dym);
}

/* ---- key setters (K_FN) ------------------------------------------------- */

static enum ab_rc set_name(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!scenario_name_ok(val))
		return scenario_perr(c, c->line, k->name, "'%s' may use only letters, digits, '_', '-' and '.'", val);
	return scenario_keys_set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_description(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	return scenario_keys_set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_backend(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!backend_choice_parse(val, field))
		return scenario_keys_word_err(c, k->name, val, backend_choice_names());
	return AB_OK;
}

static enum ab_rc set_dtype(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (strcmp(val, "bf16") != 0)
		return scenario_perr(c, c->line, k->name, "'%s' is not supported: only bf16 is, for now", val);
	return scenario_keys_set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_bracket(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	size_t n = strlen(val);
	if (val[strspn(val, "AB")] != '\0')
		return scenario_perr(c, c->line, k->name, "'%s' may use only the letters A and B, as in ABA", val);
	if (n > SCENARIO_BRACKET_MAX)
		return scenario_perr(c, c->line, k->name, "'%s' is %zu slots long, at most %d allowed", val, n, SCENARIO_BRACKET_MAX);
	if (val[0] != 'A' || val[n - 1] != 'A')
		return scenario_perr(c, c->line, k->name, "'%s' must start and end with A, as in ABA", val);
	if (!strchr(val, 'B'))
		return scenario_perr(c, c->line, k->name, "'%s' has no B slot", val);
	memcpy(field, val, n + 1);
	return AB_OK;
}

static enum ab_rc set_gaps(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "include", "hide", NULL };
	static const enum backend_launch_gaps map[] = { BACKEND_GAPS_INCLUDE, BACKEND_GAPS_HIDE };
	int i = scenario_keys_word_index(words, val);
	if (i < 0)
		return scenario_keys_word_err(c, k->name, val, words);
	*(enum backend_launch_gaps *)field = map[i];
	return AB_OK;
}

static enum ab_rc set_timing(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "events", "graph", "cpu", NULL };
	static const enum backend_timing map[] = { BACKEND_TIMING_EVENTS, BACKEND_TIMING_GRAPH, BACKEND_TIMING_CPU };
	int i = scenario_keys_word_index(words, val);
	if (i < 0)
		return scenario_keys_word_err(c, k->name, val, words);
	*(enum backend_timing *)field = map[i];
	return AB_OK;
}

static enum ab_rc set_invariance(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "none", "rows", NULL };
	static const enum scenario_invariance map[] = { SCENARIO_INVARIANCE_NONE, SCENARIO_INVARIANCE_ROWS };
	int i = scenario_keys_word_index(words, val);
	if (i < 0)
		return scenario_keys_word_err(c, k->name, val, words);
	*(enum scenario_invariance *)field = map[i];
	return AB_OK;
}

static const char *const dist_words[] = { "normal", "uniform", "constant", "special", NULL };
static const enum scenario_dist dist_map[] = { SCENARIO_DIST_NORMAL, SCENARIO_DIST_UNIFORM, SCENARIO_DIST_CONSTANT,
						      SCENARIO_DIST_SPECIAL };

static enum ab_rc set_dist(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	int i = scenario_keys_word_index(dist_words, val);
	if (i < 0)
		return scenario_keys_word_err(c, k->name, val, dist_words);
	*(enum scenario_dist *)field = dist_map[i];
	return AB_OK;
}

/* site = NAME: kept as text, found once the file is read (a site may be
 * declared further down, or in an included file). */
static enum ab_rc set_site(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	(void)field;
	return scenario_keys_set_text(c, k->name, c->ctext[c->cur].site, sizeof c->ctext[0].site, val);
}

static enum ab_rc set_noise(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "median", "mean", NULL };
	static const enum scenario_noise map[] = { SCENARIO_NOISE_MEDIAN, SCENARIO_NOISE_MEAN };
	int i = scenario_keys_word_index(words, val);
	if (i < 0)
		return scenario_keys_word_err(c, k->name, val, words);
	*(enum scenario_noise *)field = map[i];
	return AB_OK;
}

/* ---- key tables ---------------------------------------------------------- */

#define INT_MAXV 1e6 /* counts and sample numbers: far past any sane run, far from int overflow */
#define INPUT_KEYS                                                                                    \
	KEY_FN("input", B_INPUT, struct scenario_input, dist, set_dist, 0),                                \
	KEY_NUM("input_mean", K_DOUBLE, B_INPUT, struct scenario_input, mean, -HUGE_VAL, HUGE_VAL, 0),     \
	KEY_NUM("input_std", K_DOUBLE, B_INPUT, struct scenario_input, std, 0, HUGE_VAL, 0),               \
	KEY_NUM("input_low", K_DOUBLE, B_INPUT, struct scenario_input, low, -HUGE_VAL, HUGE_VAL, 0),       \
	KEY_NUM("input_high", K_DOUBLE, B_INPUT, struct scenario_input, high, -HUGE_VAL, HUGE_VAL, 0),     \
	KEY_NUM("input_value", K_DOUBLE, B_INPUT, struct scenario_input, value, -HUGE_VAL, HUGE_VAL, 0)

const struct key_def scenario_keys_scenario[] = {
	KEY_FN("name", B_SCN, struct scenario, name, set_name, 0),
	KEY_FN("description", B_SCN, struct scenario, description, set_description, KF_EMPTY_OK),
	KEY_FN("include", B_SCN, struct scenario, sites, scenario_include, 0),
	KEY_FN("backend", B_SCN, struct scenario, backend, set_backend, 0),
	KEY_FN("dtype", B_SCN, struct scenario, dtype, set_dtype, 0),
	KEY_FN("bracket", B_SCN, struct scenario, bracket, set_bracket, 0),
	KEY_NUM("seed", K_U64, B_SCN, struct scenario, seed, 0, 0, 0),
	KEY_NUM("warmup", K_INT, B_SCN, struct scenario, sampling.warmup, 0, INT_MAXV, 0),
	KEY_NUM("min_samples", K_INT, B_SCN, struct scenario, sampling.min_samples, 1, 1e7, 0),
	KEY_NUM("max_samples", K_INT, B_SCN, struct scenario, sampling.max_samples, 1, 1e7, 0),
	KEY_NUM("min_time_ms", K_DOUBLE, B_SCN, struct scenario, sampling.min_time_ms, 0, HUGE_VAL, KF_OPEN_LO),
	KEY_NUM("max_time_ms", K_DOUBLE, B_SCN, struct scenario, sampling.max_time_ms, 0, HUGE_VAL, KF_OPEN_LO),
	KEY_NUM("target_noise", K_DOUBLE, B_SCN, struct scenario, sampling.target_noise, 0, 1,
		KF_OPEN_LO | KF_OPEN_HI),
	KEY_FN("noise_measure", B_SCN, struct scenario, sampling.noise, set_noise, 0),
	KEY_NUM("rounds", K_INT, B_SCN, struct scenario, sampling.rounds, 1, SCENARIO_ROUNDS_MAX, 0),
	KEY_NUM("l2_flush", K_BOOL, B_SCN, struct scenario, l2_flush, 0, 0, 0),
	KEY_FN("launch_gaps", B_SCN, struct scenario, launch_gaps, set_gaps, 0),
	KEY_FN("timing", B_SCN, struct scenario, timing, set_timing, 0),
	INPUT_KEYS,
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

const struct key_def scenario_keys_arms[] = {
	KEY_FN("a", B_SCN, struct scenario, arm_a, scenario_arms_set, 0),
	KEY_FN("b", B_SCN, struct scenario, arm_b, scenario_arms_set, 0),
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

static const struct key_def model_keys[] = {
	KEY_NUM("steps", K_INT, B_SCN, struct scenario, steps, 1, INT_MAXV, 0),
	KEY_NUM("forwards_per_step", K_INT, B_SCN, struct scenario, forwards_per_step, 1, INT_MAXV, 0),
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

const struct key_def scenario_keys_case[] = {
	KEY_FN("site", B_CASE, struct scenario_case, site, set_site, 0),
	KEY_FN("shape", B_CASE, struct scenario_case, shape, scenario_sweep_set_shape, 0),
	KEY_NUM("eps", K_DOUBLE, B_CASE, struct scenario_case, eps, 0, HUGE_VAL, KF_OPEN_LO),
	KEY_NUM("affine", K_BOOL, B_CASE, struct scenario_case, affine, 0, 0, 0),
	KEY_NUM("count", K_INT, B_CASE, struct scenario_case, count, 1, INT_MAXV, 0),
	KEY_FN("a", B_CASE, struct scenario_case, arm_a, scenario_arms_case_set, 0),
	KEY_FN("b", B_CASE, struct scenario_case, arm_b, scenario_arms_case_set, 0),
	KEY_FN("invariance", B_CASE, struct scenario_case, invariance, set_invariance, 0),
	INPUT_KEYS,
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

_Static_assert(sizeof scenario_keys_scenario / sizeof scenario_keys_scenario[0] - 1 <= MAX_KEYS, "struct scope holds MAX_KEYS keys");
_Static_assert(sizeof scenario_keys_case / sizeof scenario_keys_case[0] - 1 <= MAX_KEYS, "struct scope holds MAX_KEYS keys");

const struct scenario_keys_section scenario_keys_sections[SEC_COUNT] = {
	[SEC_NONE] = { "", NULL },
	[SEC_SCENARIO] = { "scenario", scenario_keys_scenario },
	[SEC_ARMS] = { "arms", scenario_keys_arms },
	[SEC_MODEL] = { "model", model_keys },
	[SEC_CASE] = { "case", scenario_keys_case },
	[SEC_ARM] = { "arm", NULL },   /* records: scenario_arms_key */
	[SEC_SITE] = { "site", NULL }, /* kept lines: scenario_site_key */
};

int scenario_keys_index(const struct key_def *keys, const char *name)
{
	for (int i = 0; keys[i].name; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* The line a key was set on in a scope, 0 when it was not. */
int scenario_keys_line(const struct scope *sc, const struct key_def *keys, const char *name)
{
	int i = scenario_keys_index(keys, name);
	return i >= 0 && (sc->seen & (1u << i)) ? sc->line[i] : 0;
}

/* ---- storing one key ----------------------------------------------------- */

static void *key_field(struct pctx *c, const struct key_def *k)
{
	char *base = NULL;
	switch (k->base) {
	case B_SCN:
		base = (char *)c->scn;
		break;
	case B_CASE:
		base = (char *)&c->scn->cases[c->cur];
		break;
	case B_INPUT:
		base = c->sec == SEC_CASE ? (char *)&c->scn->cases[c->cur].input : (char *)&c->dflt;
		break;
	}
	return base + k->off;
}

static enum ab_rc store_value(struct pctx *c, const struct key_def *k, const char *val)
{
	void *field = key_field(c, k);
	long long i = 0;
	double v = 0;
	switch (k->kind) {
	case K_INT:
		if (parse_int(c, k->name, val, &i) != AB_OK)
			return c->rc;
		if (!in_range(k, (double)i))
			return range_err(c, k, val);
		*(int *)field = (int)i;
		return AB_OK;
	case K_DOUBLE:
		if (parse_double(c, k->name, val, &v) != AB_OK)
			return c->rc;
		if (!in_range(k, v))
			return range_err(c, k, val);
		*(double *)field = v;
		return AB_OK;
	case K_U64:
		return parse_u64(c, k->name, val, field);
	case K_BOOL:
		return parse_bool(c, k->name, val, field);
	case K_FN:
		return k->fn(c, k, field, val);
	}
	return AB_OK;
}

static struct scope *cur_scope(struct pctx *c)
{
	return c->sec == SEC_CASE ? &c->cscope[c->cur] : &c->fixed[c->sec];
}

/* "[scenario]" or "[case NAME]": the current section as written. */
static void section_label(const struct pctx *c, char *buf, size_t len)
{
	if (c->sec == SEC_CASE)
		snprintf(buf, len, "[case %s]", c->scn->cases[c->cur].name);
	else
		snprintf(buf, len, "[%s]", scenario_keys_sections[c->sec].name);
}

static enum ab_rc unknown_key(struct pctx *c, const struct key_def *keys, const char *name)
{
	const char *names[MAX_KEYS];
	char sec[96], msg[AB_DIAG_MAX / 2];
	int n = 0;
	while (keys[n].name && n < MAX_KEYS)
		names[n] = keys[n].name, n++;
	section_label(c, sec, sizeof sec);
	suggest_unknown_key(name, names, n, sec, msg, sizeof msg);
	return scenario_perr(c, c->line, name, "%s", msg);
}

static enum ab_rc handle_key(struct pctx *c, const char *name, const char *value)
{
	if (!*name)
		return scenario_perr(c, c->line, NULL, "missing key name before '='");
	if (c->sec == SEC_NONE)
		return scenario_perr(c, c->line, name, c->included ? "key outside any section (an included file holds [site "
								       "NAME] sections only)"
								     : "key outside any section (put it under [scenario], "
								       "[arms], [model], [case NAME], [arm NAME] or [site NAME])");
	if (c->sec == SEC_ARM)
		return scenario_arms_key(c, name, value);
	if (c->sec == SEC_SITE)
		return scenario_site_key(c, name, value);
	if ((c->sec == SEC_SCENARIO || c->sec == SEC_CASE) && strncmp(name, "input.", 6) == 0)
		return scenario_gen_key(c, name + 6, value);
	const struct key_def *keys = scenario_keys_sections[c->sec].keys;
	int k = scenario_keys_index(keys, name);
	if (k < 0)
		return unknown_key(c, keys, name);
	struct scope *sc = cur_scope(c);
	if (sc->seen & (1u << k))
		return scenario_perr(c, c->line, name, "duplicate key (first set at line %d)", sc->line[k]);
	sc->seen |= 1u << k;
	sc->line[k] = c->line;
	if (!*value && !(keys[k].flags & KF_EMPTY_OK))
		return scenario_perr(c, c->line, name, "missing value");
	return store_value(c, &keys[k], value);
}

/* inih's handler, for each key = value line. section is ignored: inih
 * truncates it, and the reader tracks the section itself. */
int scenario_keys_on_key(void *user, const char *section, const char *name, const char *value)
{
	struct pctx *c = user;
	(void)section;
	return c->rc == AB_OK && handle_key(c, name, value) == AB_OK;
}

/* ---- checks once the whole file is read ----------------------------------- */

/* lo <= hi (or lo < hi when strict) for two keys of a scope, reported at
 * whichever of the two the scope set last (keys is the scope's table). */
static enum ab_rc check_order(struct pctx *c, const struct scope *sc, const struct key_def *keys, const char *lo_key,
			      double lo, const char *hi_key, double hi, bool strict)
{
	if (strict ? lo < hi : lo <= hi)
		return AB_OK;
	int lo_line = scenario_keys_line(sc, keys, lo_key), hi_line = scenario_keys_line(sc, keys, hi_key);
	return scenario_perr(c, hi_line >= lo_line ? hi_line : lo_line, hi_line >= lo_line ? hi_key : lo_key,
		    "%s (%g) must be %s %s (%g)", lo_key, lo, strict ? "less than" : "at most", hi_key, hi);
}

enum ab_rc scenario_keys_finish_scenario(struct pctx *c)
{
	const struct scenario_sampling *sm = &c->scn->sampling;
	const struct scope *sc = &c->fixed[SEC_SCENARIO];
	const struct key_def *k = scenario_keys_scenario;
	if (check_order(c, sc, k, "min_samples", sm->min_samples, "max_samples", sm->max_samples, false) ||
	    check_order(c, sc, k, "min_time_ms", sm->min_time_ms, "max_time_ms", sm->max_time_ms, false))
		return c->rc;
	return check_order(c, sc, k, "input_low", c->dflt.low, "input_high", c->dflt.high, true);
}

/* The case's input: the [scenario] defaults, then each field the case set. */
static void merge_input(struct pctx *c, int i)
{
	struct scenario_case *cs = &c->scn->cases[i];
	struct scenario_input merged = c->dflt;
	for (int k = 0; scenario_keys_case[k].name; k++) {
		const struct key_def *kd = &scenario_keys_case[k];
		if (kd->base == B_INPUT && (c->cscope[i].seen & (1u << k)))
			memcpy((char *)&merged + kd->off, (char *)&cs->input + kd->off, kd->size);
	}
	cs->input = merged;
}

static bool site_has_affine(const struct site_desc *s)
{
	for (int i = 0; i < s->n_tensors; i++)
		if (s->tensors[i].affine_only)
			return true;
	return false;
}

enum ab_rc scenario_keys_finish_case(struct pctx *c, int i)
{
	struct scenario_case *cs = &c->scn->cases[i];
	const struct scope *sc = &c->cscope[i];
	char err[512], shape[96];
	if (!c->ctext[i].site[0]) {
		scenario_site_names(c->scn, err, sizeof err);
		return scenario_perr(c, cs->line, NULL, "[case %s]: missing key 'site' (sites: %s)", cs->name, err);
	}
	if (scenario_site_resolve(c, c->ctext[i].site, scenario_keys_line(sc, scenario_keys_case, "site"), "site",
				  &cs->site))
		return c->rc;
	if (!(sc->seen & (1u << scenario_keys_index(scenario_keys_case, "shape"))))
		return scenario_perr(c, cs->line, NULL, "[case %s]: missing key 'shape' (%s takes %s)", cs->name, cs->site->name,
			    cs->site->shape_help);
	err[0] = '\0';
	if (!site_geometry(cs->site, &cs->shape, &cs->dims, err, sizeof err)) {
		site_format_shape(&cs->shape, shape, sizeof shape);
		return scenario_perr(c, scenario_keys_line(sc, scenario_keys_case, "shape"), "shape", "site '%s' rejects '%s': %s", cs->site->name,
			    shape, err);
	}
	if (cs->affine && !site_has_affine(cs->site))
		return scenario_perr(c, scenario_keys_line(sc, scenario_keys_case, "affine"), "affine",
			    "site '%s' has no weight or bias (affine = true applies to LayerNorm sites)",
			    cs->site->name);
	merge_input(c, i);
	if (check_order(c, sc, scenario_keys_case, "input_low", cs->input.low, "input_high", cs->input.high, true))
		return c->rc;
	return scenario_gen_finish_case(c, i);
}

const char *scenario_dist_str(enum scenario_dist dist)
{
	for (int i = 0; dist_words[i]; i++)
		if (dist_map[i] == dist)
			return dist_words[i];
	return "unknown";
}
