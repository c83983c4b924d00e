/*
 * scenario.c - reads an INI scenario with inih and validates all of it
 * before any work starts.
 *
 * inih (Debian's build) gives its handler no line number, so we feed it the
 * text through our own line reader: the reader counts lines, so every
 * message can say FILE:LINE. The reader also handles what inih does poorly
 * for us: it rejects lines inih would silently split (longer than its line
 * buffer), recognises section headers itself (inih truncates long section
 * names and never reports a section without keys), and strips leading
 * blanks so that an indented line is never taken as the continuation of the
 * previous value.
 *
 * Keys are described by one table per section (name, kind, where the value
 * goes, its range); the handler looks the key up and stores the value.
 * Checks that involve several keys, the site registry or defaults run once
 * the whole file is read (finish_*). The first error wins; on any error the
 * half-built scenario is freed.
 */
#include "config/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"

/* Scenario files are a few kilobytes; anything this big is a wrong path. */
#define SCN_FILE_MAX (1 << 20)
#define MAX_KEYS 24

enum section { SEC_NONE, SEC_SCENARIO, SEC_ARMS, SEC_MODEL, SEC_CASE, SEC_ARM, SEC_COUNT };

enum kind { K_INT, K_U64, K_DOUBLE, K_BOOL, K_FN };

/* Where a key's value goes: the scenario, the current case, the input
 * distribution of the current section (the defaults in [scenario], the
 * case's own overrides in [case]), or the current [arm NAME]. */
enum base { B_SCN, B_CASE, B_INPUT, B_ARM };

#define KF_OPEN_LO 1u  /* the range excludes lo */
#define KF_OPEN_HI 2u  /* the range excludes hi */
#define KF_EMPTY_OK 4u /* an empty value is allowed */

struct pctx;
struct key_def;

typedef enum ab_rc (*key_fn)(struct pctx *c, const struct key_def *k, void *field, const char *val);

struct key_def {
	const char *name;
	enum kind kind;
	enum base base;
	size_t off, size; /* the field inside its base */
	double lo, hi;    /* range of K_INT and K_DOUBLE */
	unsigned flags;
	key_fn fn; /* K_FN */
};

/* Which keys a section (or a case) has seen, and where. */
struct scope {
	int header_line;
	unsigned seen;
	int line[MAX_KEYS];
};

/* The values a case's shape lists for its swept dimension (dim < 0: none),
 * kept until the case is expanded once the file is read. */
struct sweep {
	int dim;
	int n;
	int64_t v[SCENARIO_SWEEP_MAX];
};

struct pctx {
	struct scenario *scn;
	struct ab_diag *d;
	enum ab_rc rc;
	const char *pos; /* reader position in scn->text */
	int line;        /* the line the reader returned last */
	enum section sec;
	int cur;                   /* current case index */
	struct scope fixed[SEC_CASE]; /* [scenario], [arms], [model] */
	struct scope *cscope;      /* one per case */
	struct sweep *sweeps;      /* one per case */
	int cap;
	int cur_arm;               /* current [arm NAME] index */
	struct scope *ascope;      /* one per [arm NAME] */
	int arm_cap;
	char arm_text[2][ARM_SPEC_PARAMS_TEXT]; /* the values of a and b, resolved once all is read */
	struct scenario_input dflt; /* the [scenario] input defaults */
};

/* ---- messages ---------------------------------------------------------- */

/* Records the first error as "FILE:LINE: WHAT: reason"; WHAT is a key or a
 * "[section]", or NULL for errors about the line itself. */
__attribute__((format(printf, 4, 5)))
static enum ab_rc perr(struct pctx *c, int line, const char *what, const char *fmt, ...)
{
	char reason[AB_DIAG_MAX];
	va_list ap;
	if (c->rc != AB_OK)
		return c->rc;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	if (what)
		c->rc = ab_fail(c->d, AB_ERR_INPUT, "%s:%d: %s: %s", c->scn->path, line, what, reason);
	else
		c->rc = ab_fail(c->d, AB_ERR_INPUT, "%s:%d: %s", c->scn->path, line, reason);
	return c->rc;
}

static enum ab_rc nomem(struct pctx *c)
{
	if (c->rc == AB_OK)
		c->rc = ab_fail(c->d, AB_ERR_NOMEM, "%s:%d: out of memory", c->scn->path, c->line);
	return c->rc;
}

/* Appends s to buf (of len bytes) with a ", " separator. */
static void list_add(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);
	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

static void site_names(char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct site_desc *const *s = site_registry; *s; s++)
		list_add(buf, len, (*s)->name);
}

static void variant_names(const struct site_desc *s, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < s->n_variants; i++)
		list_add(buf, len, s->variants[i].name);
}

/* ---- value parsers ----------------------------------------------------- */

static enum ab_rc parse_double(struct pctx *c, const char *key, const char *val, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (end == val)
		return perr(c, c->line, key, "'%s' is not a number", val);
	if (*end)
		return perr(c, c->line, key, "'%s' is not a number (trailing '%s')", val, end);
	if (!isfinite(v))
		return perr(c, c->line, key, "'%s' is not a finite number", val);
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
		return perr(c, c->line, key, "'%s' is not an integer", val);
	errno = 0;
	long long v = strtoll(val, NULL, 10);
	if (errno == ERANGE)
		return perr(c, c->line, key, "'%s' is out of range", val);
	*out = v;
	return AB_OK;
}

static enum ab_rc parse_u64(struct pctx *c, const char *key, const char *val, uint64_t *out)
{
	if (!all_digits(val, false))
		return perr(c, c->line, key, "'%s' is not an integer from 0 to 18446744073709551615", val);
	errno = 0;
	unsigned long long v = strtoull(val, NULL, 10);
	if (errno == ERANGE)
		return perr(c, c->line, key, "'%s' is larger than 18446744073709551615", val);
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
	return perr(c, c->line, key, "'%s' is not a boolean (use true or false)", val);
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
	return perr(c, c->line, k->name, "%s is out of range (must be %s)", val, range);
}

/* Copies a word into a fixed buffer, or complains that it is too long. */
static enum ab_rc set_text(struct pctx *c, const char *key, char *dst, size_t cap, const char *val)
{
	size_t n = strlen(val);
	if (n >= cap)
		return perr(c, c->line, key, "'%s' is %zu characters long, at most %zu allowed", val, n, cap - 1);
	memcpy(dst, val, n + 1);
	return AB_OK;
}

/* Looks val up in a NULL-terminated word list; -1 when absent. */
static int word_index(const char *const *words, const char *val)
{
	for (int i = 0; words[i]; i++)
		if (strcmp(words[i], val) == 0)
			return i;
	return -1;
}

static enum ab_rc word_err(struct pctx *c, const char *key, const char *val, const char *const *words)
{
	char list[128] = "";
	for (int i = 0; words[i]; i++)
		list_add(list, sizeof list, words[i]);
	return perr(c, c->line, key, "'%s' is not one of: %s", val, list);
}

/* Names of cases and of the scenario: safe in file names, NVTX ranges and
 * reports. */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	return true;
}

/* ---- key setters (K_FN) ------------------------------------------------- */

static enum ab_rc set_name(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!name_ok(val))
		return perr(c, c->line, k->name, "'%s' may use only letters, digits, '_', '-' and '.'", val);
	return set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_description(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	return set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_backend(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!backend_choice_parse(val, field))
		return word_err(c, k->name, val, backend_choice_names());
	return AB_OK;
}

static enum ab_rc set_dtype(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (strcmp(val, "bf16") != 0)
		return perr(c, c->line, k->name, "'%s' is not supported: only bf16 is, for now", val);
	return set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_bracket(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	size_t n = strlen(val);
	if (val[strspn(val, "AB")] != '\0')
		return perr(c, c->line, k->name, "'%s' may use only the letters A and B, as in ABA", val);
	if (n > SCENARIO_BRACKET_MAX)
		return perr(c, c->line, k->name, "'%s' is %zu slots long, at most %d allowed", val, n, SCENARIO_BRACKET_MAX);
	if (val[0] != 'A' || val[n - 1] != 'A')
		return perr(c, c->line, k->name, "'%s' must start and end with A, as in ABA", val);
	if (!strchr(val, 'B'))
		return perr(c, c->line, k->name, "'%s' has no B slot", val);
	memcpy(field, val, n + 1);
	return AB_OK;
}

static enum ab_rc set_gaps(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "include", "hide", NULL };
	static const enum backend_launch_gaps map[] = { BACKEND_GAPS_INCLUDE, BACKEND_GAPS_HIDE };
	int i = word_index(words, val);
	if (i < 0)
		return word_err(c, k->name, val, words);
	*(enum backend_launch_gaps *)field = map[i];
	return AB_OK;
}

static const char *const dist_words[] = { "normal", "uniform", "constant", "special", NULL };
static const enum scenario_dist dist_map[] = { SCENARIO_DIST_NORMAL, SCENARIO_DIST_UNIFORM, SCENARIO_DIST_CONSTANT, SCENARIO_DIST_SPECIAL };

static enum ab_rc set_dist(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	int i = word_index(dist_words, val);
	if (i < 0)
		return word_err(c, k->name, val, dist_words);
	*(enum scenario_dist *)field = dist_map[i];
	return AB_OK;
}

/* a and b may name [arm NAME] sections further down: kept as text here,
 * resolved by resolve_arms once the whole file is read. */
static enum ab_rc set_arm(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	(void)field;
	return set_text(c, k->name, c->arm_text[k->name[0] == 'b'], sizeof c->arm_text[0], val);
}

static enum ab_rc set_site(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	const struct site_desc *s = site_find(val);
	if (!s) {
		char list[256];
		site_names(list, sizeof list);
		return perr(c, c->line, k->name, "unknown site '%s' (sites: %s)", val, list);
	}
	*(const struct site_desc **)field = s;
	return AB_OK;
}

static enum ab_rc set_noise(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "median", "mean", NULL };
	static const enum scenario_noise map[] = { SCENARIO_NOISE_MEDIAN, SCENARIO_NOISE_MEAN };
	int i = word_index(words, val);
	if (i < 0)
		return word_err(c, k->name, val, words);
	*(enum scenario_noise *)field = map[i];
	return AB_OK;
}

/* ---- sweeps: one dimension of a shape in braces ------------------------- */

#define SWEEP_DIM_MAX ((int64_t)1 << 31) /* site_parse_shape's largest dimension */

/* One positive integer at *p (advanced past it), at most SWEEP_DIM_MAX. */
static bool sweep_number(const char **p, int64_t *out)
{
	int64_t v = 0;
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > SWEEP_DIM_MAX)
			return false;
	*p = s;
	*out = v;
	return v > 0;
}

static enum ab_rc sweep_add(struct pctx *c, struct sweep *sw, int64_t v, const char *text)
{
	for (int i = 0; i < sw->n; i++)
		if (sw->v[i] == v)
			return perr(c, c->line, "shape", "sweep '%s' lists %lld twice", text, (long long)v);
	if (sw->n == SCENARIO_SWEEP_MAX)
		return perr(c, c->line, "shape", "sweep '%s' has more than %d values (the limit of one sweep)", text,
			    SCENARIO_SWEEP_MAX);
	sw->v[sw->n++] = v;
	return AB_OK;
}

/* "256,1024,4096" */
static enum ab_rc sweep_list(struct pctx *c, const char *in, struct sweep *sw, const char *text)
{
	for (const char *p = in;; p++) {
		int64_t v;
		if (!sweep_number(&p, &v) || (*p != ',' && *p != '\0'))
			return perr(c, c->line, "shape", "sweep '%s' is not a list of positive integers, as in {256,1024}",
				    text);
		if (sweep_add(c, sw, v, text) != AB_OK || *p == '\0')
			return c->rc;
	}
}

/* "256:16384:x2" (times 2) or "256:1024:+256" (plus 256): lo, then every
 * step while the value stays <= hi. */
static enum ab_rc sweep_range(struct pctx *c, const char *in, struct sweep *sw, const char *text)
{
	int64_t lo, hi, step;
	const char *p = in;
	char op;
	if (!sweep_number(&p, &lo) || *p++ != ':' || !sweep_number(&p, &hi) || *p++ != ':' ||
	    ((op = *p++) != 'x' && op != '+') || !sweep_number(&p, &step) || *p)
		return perr(c, c->line, "shape", "sweep '%s' is not a range LOW:HIGH:xFACTOR or LOW:HIGH:+STEP, as in "
			    "{256:16384:x2}", text);
	if (lo > hi)
		return perr(c, c->line, "shape", "sweep '%s' starts above its end", text);
	if (op == 'x' && step < 2)
		return perr(c, c->line, "shape", "sweep '%s' multiplies by %lld: the factor must be at least 2", text,
			    (long long)step);
	for (int64_t v = lo; v <= hi; v = op == 'x' ? v * step : v + step)
		if (sweep_add(c, sw, v, text) != AB_OK)
			return c->rc;
	return AB_OK;
}

/* The dimension at open ('{') of val: its index, and the braces' text
 * checked to be a whole dimension. */
static enum ab_rc sweep_parse(struct pctx *c, const char *val, const char *open, struct sweep *sw)
{
	const char *close = strchr(open, '}');
	char inner[256];
	if (!close)
		return perr(c, c->line, "shape", "'%s' opens a sweep with '{' and never closes it", val);
	if (strchr(close + 1, '{') || memchr(open + 1, '{', (size_t)(close - open - 1)))
		return perr(c, c->line, "shape", "'%s' sweeps more than one dimension (one per case)", val);
	if ((open != val && open[-1] != 'x') || (close[1] != '\0' && close[1] != 'x'))
		return perr(c, c->line, "shape", "'%s': a sweep in braces must be a whole dimension, as in 1x{256,1024}x4096",
			    val);
	snprintf(inner, sizeof inner, "%.*s", (int)(close - open - 1), open + 1);
	sw->dim = 0;
	for (const char *p = val; p < open; p++)
		sw->dim += *p == 'x';
	sw->n = 0;
	return strchr(inner, ':') ? sweep_range(c, inner, sw, inner) : sweep_list(c, inner, sw, inner);
}

static enum ab_rc shape_err(struct pctx *c, const struct key_def *k, const char *val)
{
	return perr(c, c->line, k->name, "'%s' is not a shape (1 to %d positive dimensions joined by 'x', as in %s)",
		    val, SITE_MAX_RANK, strchr(val, '{') ? "1x{256:16384:x2}x4096" : "1x4096x4096");
}

/* A plain shape, or a swept one: the case keeps the first value in its
 * shape, the sweep keeps them all. */
static enum ab_rc set_shape(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	const char *open = strchr(val, '{');
	struct sweep *sw = &c->sweeps[c->cur];
	char first[256];
	if (!open) {
		sw->dim = -1;
		return site_parse_shape(val, field) ? AB_OK : shape_err(c, k, val);
	}
	if (sweep_parse(c, val, open, sw) != AB_OK)
		return c->rc;
	snprintf(first, sizeof first, "%.*s%lld%s", (int)(open - val), val, (long long)sw->v[0], strchr(open, '}') + 1);
	return site_parse_shape(first, field) ? AB_OK : shape_err(c, k, val);
}

/* ---- [arm NAME] keys ------------------------------------------------------- */

static struct arm_spec *cur_arm(struct pctx *c)
{
	return &c->scn->arms[c->cur_arm];
}

static enum ab_rc set_arm_type(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	static const char *const words[] = { "plugin", "cubin", NULL };
	static const enum arm_spec_type map[] = { ARM_SPEC_PLUGIN, ARM_SPEC_CUBIN };
	int i = word_index(words, val);
	if (i < 0)
		return word_err(c, k->name, val, words);
	*(enum arm_spec_type *)field = map[i];
	return AB_OK;
}

/* A file named relative to the scenario's folder. */
static enum ab_rc set_path(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!arm_spec_resolve_path(c->scn->path, val, field, k->size))
		return perr(c, c->line, k->name, "'%s' is too long a path", val);
	return AB_OK;
}

static enum ab_rc set_entry(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (!name_ok(val))
		return perr(c, c->line, k->name, "'%s' may use only letters, digits, '_', '-' and '.'", val);
	return set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_kernel(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	if (val[strcspn(val, " \t")])
		return perr(c, c->line, k->name, "'%s': a kernel's name has no blanks", val);
	return set_text(c, k->name, field, k->size, val);
}

static enum ab_rc set_dims(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	char err[AB_DIAG_MAX / 2];
	struct arm_spec *a = cur_arm(c);
	int *n = k->name[0] == 'g' ? &a->n_grid : &a->n_block;
	if (!arm_spec_parse_dims(val, field, n, err, sizeof err))
		return perr(c, c->line, k->name, "%s", err);
	return AB_OK;
}

static enum ab_rc set_expr(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	char err[AB_DIAG_MAX / 2];
	if (!expr_parse(val, field, err, sizeof err))
		return perr(c, c->line, k->name, "%s", err);
	cur_arm(c)->have_shared = true;
	return AB_OK;
}

/* Resolved against the site once the section is read (finish_arm). */
static enum ab_rc set_params(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	return set_text(c, k->name, field, k->size, val);
}

/* ---- key tables ---------------------------------------------------------- */

#define FIELD(type, member) offsetof(type, member), sizeof(((type *)0)->member)
#define KEY_FN(nm, b, type, member, f, fl) { nm, K_FN, b, FIELD(type, member), 0, 0, fl, f }
#define KEY_NUM(nm, kd, b, type, member, l, h, fl) { nm, kd, b, FIELD(type, member), l, h, fl, NULL }
#define INT_MAXV 1e6 /* counts and sample numbers: far past any sane run, far from int overflow */
#define INPUT_KEYS                                                                                    \
	KEY_FN("input", B_INPUT, struct scenario_input, dist, set_dist, 0),                                \
	KEY_NUM("input_mean", K_DOUBLE, B_INPUT, struct scenario_input, mean, -HUGE_VAL, HUGE_VAL, 0),     \
	KEY_NUM("input_std", K_DOUBLE, B_INPUT, struct scenario_input, std, 0, HUGE_VAL, 0),               \
	KEY_NUM("input_low", K_DOUBLE, B_INPUT, struct scenario_input, low, -HUGE_VAL, HUGE_VAL, 0),       \
	KEY_NUM("input_high", K_DOUBLE, B_INPUT, struct scenario_input, high, -HUGE_VAL, HUGE_VAL, 0),     \
	KEY_NUM("input_value", K_DOUBLE, B_INPUT, struct scenario_input, value, -HUGE_VAL, HUGE_VAL, 0)

static const struct key_def scenario_keys[] = {
	KEY_FN("name", B_SCN, struct scenario, name, set_name, 0),
	KEY_FN("description", B_SCN, struct scenario, description, set_description, KF_EMPTY_OK),
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
	KEY_NUM("l2_flush", K_BOOL, B_SCN, struct scenario, l2_flush, 0, 0, 0),
	KEY_FN("launch_gaps", B_SCN, struct scenario, launch_gaps, set_gaps, 0),
	INPUT_KEYS,
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

static const struct key_def arms_keys[] = {
	KEY_FN("a", B_SCN, struct scenario, arm_a, set_arm, 0),
	KEY_FN("b", B_SCN, struct scenario, arm_b, set_arm, 0),
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

static const struct key_def model_keys[] = {
	KEY_NUM("steps", K_INT, B_SCN, struct scenario, steps, 1, INT_MAXV, 0),
	KEY_NUM("forwards_per_step", K_INT, B_SCN, struct scenario, forwards_per_step, 1, INT_MAXV, 0),
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

static const struct key_def case_keys[] = {
	KEY_FN("site", B_CASE, struct scenario_case, site, set_site, 0),
	KEY_FN("shape", B_CASE, struct scenario_case, shape, set_shape, 0),
	KEY_NUM("eps", K_DOUBLE, B_CASE, struct scenario_case, eps, 0, HUGE_VAL, KF_OPEN_LO),
	KEY_NUM("affine", K_BOOL, B_CASE, struct scenario_case, affine, 0, 0, 0),
	KEY_NUM("count", K_INT, B_CASE, struct scenario_case, count, 1, INT_MAXV, 0),
	INPUT_KEYS,
	{ NULL, K_FN, B_SCN, 0, 0, 0, 0, 0, NULL },
};

static const struct key_def arm_keys[] = {
	KEY_FN("type", B_ARM, struct arm_spec, type, set_arm_type, 0),
	KEY_FN("site", B_ARM, struct arm_spec, site, set_site, 0),
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

_Static_assert(sizeof scenario_keys / sizeof scenario_keys[0] - 1 <= MAX_KEYS, "struct scope holds MAX_KEYS keys");
_Static_assert(sizeof case_keys / sizeof case_keys[0] - 1 <= MAX_KEYS, "struct scope holds MAX_KEYS keys");

static const struct section_def {
	const char *name;
	const struct key_def *keys;
} sections[SEC_COUNT] = {
	[SEC_NONE] = { "", NULL },
	[SEC_SCENARIO] = { "scenario", scenario_keys },
	[SEC_ARMS] = { "arms", arms_keys },
	[SEC_MODEL] = { "model", model_keys },
	[SEC_CASE] = { "case", case_keys },
	[SEC_ARM] = { "arm", arm_keys },
};

static int key_index(const struct key_def *keys, const char *name)
{
	for (int i = 0; keys[i].name; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* The line a key was set on in a scope, 0 when it was not. */
static int key_line(const struct scope *sc, const struct key_def *keys, const char *name)
{
	int i = key_index(keys, name);
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
	case B_ARM:
		base = (char *)cur_arm(c);
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
	if (c->sec == SEC_ARM)
		return &c->ascope[c->cur_arm];
	return c->sec == SEC_CASE ? &c->cscope[c->cur] : &c->fixed[c->sec];
}

/* Small edit distance, for "did you mean". */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64];
	if (la >= 64 || lb >= 64)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* "[scenario]" or "[case NAME]": the current section as written. */
static void section_label(const struct pctx *c, char *buf, size_t len)
{
	if (c->sec == SEC_CASE)
		snprintf(buf, len, "[case %s]", c->scn->cases[c->cur].name);
	else if (c->sec == SEC_ARM)
		snprintf(buf, len, "[arm %s]", c->scn->arms[c->cur_arm].name);
	else
		snprintf(buf, len, "[%s]", sections[c->sec].name);
}

static enum ab_rc unknown_key(struct pctx *c, const struct key_def *keys, const char *name)
{
	char list[160] = "", sec[96];
	section_label(c, sec, sizeof sec);
	for (int i = 0; keys[i].name; i++) {
		int dist = edit_distance(name, keys[i].name);
		if (dist <= 2 && 2 * dist < (int)strlen(keys[i].name))
			return perr(c, c->line, name, "unknown key in %s (did you mean '%s'?)", sec, keys[i].name);
	}
	for (int i = 0; keys[i].name; i++)
		list_add(list, sizeof list, keys[i].name);
	if (strlen(list) > 100)
		return perr(c, c->line, name, "unknown key in %s (docs/SCENARIO_FORMAT.md lists the keys)", sec);
	return perr(c, c->line, name, "unknown key in %s (keys: %s)", sec, list);
}

static enum ab_rc handle_key(struct pctx *c, const char *name, const char *value)
{
	if (!*name)
		return perr(c, c->line, NULL, "missing key name before '='");
	if (c->sec == SEC_NONE)
		return perr(c, c->line, name,
			    "key outside any section (put it under [scenario], [arms], [model], [case NAME] or [arm NAME])");
	const struct key_def *keys = sections[c->sec].keys;
	int k = key_index(keys, name);
	if (k < 0)
		return unknown_key(c, keys, name);
	struct scope *sc = cur_scope(c);
	if (sc->seen & (1u << k))
		return perr(c, c->line, name, "duplicate key (first set at line %d)", sc->line[k]);
	sc->seen |= 1u << k;
	sc->line[k] = c->line;
	if (!*value && !(keys[k].flags & KF_EMPTY_OK))
		return perr(c, c->line, name, "missing value");
	return store_value(c, &keys[k], value);
}

/* inih's handler, for each key = value line. section is ignored: inih
 * truncates it, and the reader tracks the section itself. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct pctx *c = user;
	(void)section;
	return c->rc == AB_OK && handle_key(c, name, value) == AB_OK;
}

/* ---- sections ------------------------------------------------------------- */

static enum ab_rc add_case(struct pctx *c, const char *name)
{
	struct scenario *s = c->scn;
	for (int i = 0; i < s->n_cases; i++)
		if (strcmp(s->cases[i].name, name) == 0)
			return perr(c, c->line, NULL, "[case %s]: duplicate case name (first at line %d)", name,
				    s->cases[i].line);
	if (s->n_cases == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		struct scenario_case *nc = realloc(s->cases, (size_t)cap * sizeof *nc);
		if (!nc)
			return nomem(c);
		s->cases = nc;
		struct scope *ns = realloc(c->cscope, (size_t)cap * sizeof *ns);
		if (!ns)
			return nomem(c);
		c->cscope = ns;
		struct sweep *nw = realloc(c->sweeps, (size_t)cap * sizeof *nw);
		if (!nw)
			return nomem(c);
		c->sweeps = nw;
		c->cap = cap;
	}
	struct scenario_case *cs = &s->cases[s->n_cases];
	*cs = (struct scenario_case){ .eps = 1e-5, .affine = false, .count = 1, .line = c->line };
	memcpy(cs->name, name, strlen(name) + 1);
	c->cscope[s->n_cases] = (struct scope){ .header_line = c->line };
	c->sweeps[s->n_cases].dim = -1;
	c->cur = s->n_cases++;
	c->sec = SEC_CASE;
	return AB_OK;
}

static enum ab_rc open_case(struct pctx *c, const char *inner, const char *name)
{
	size_t n = strlen(name);
	if (n == 0)
		return perr(c, c->line, NULL, "[%s]: a case needs a name, as in [case img_ln_modulate]", inner);
	if (!name_ok(name))
		return perr(c, c->line, NULL, "[%s]: case name '%s' may use only letters, digits, '_', '-' and '.'",
			    inner, name);
	if (n >= SCENARIO_NAME_MAX)
		return perr(c, c->line, NULL, "[%s]: case name is %zu characters long, at most %d allowed", inner, n,
			    SCENARIO_NAME_MAX - 1);
	return add_case(c, name);
}

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
		return nomem(c);
	s->arms = na;
	struct scope *ns = realloc(c->ascope, (size_t)cap * sizeof *ns);
	if (!ns)
		return nomem(c);
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

static enum ab_rc open_arm(struct pctx *c, const char *inner, const char *name)
{
	struct scenario *s = c->scn;
	size_t n = strlen(name);
	if (n == 0 || !name_ok(name))
		return perr(c, c->line, NULL, "[%s]: an arm needs a name of letters, digits, '_', '-' and '.', as in [arm my_ln]",
			    inner);
	if (n >= ARM_SPEC_NAME_MAX)
		return perr(c, c->line, NULL, "[%s]: arm name is %zu characters long, at most %d allowed", inner, n,
			    ARM_SPEC_NAME_MAX - 1);
	if (is_variant(name))
		return perr(c, c->line, NULL, "[%s]: '%s' is a built-in variant (abbench sites): choose another name",
			    inner, name);
	int dup = find_arm(s, name);
	if (dup >= 0)
		return perr(c, c->line, NULL, "[%s]: duplicate arm name (first at line %d)", inner,
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

/* "[case NAME]" or "[arm NAME]": the word, then the name after blanks. */
static const char *named_section(const char *inner, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(inner, word, n) != 0 || (inner[n] != '\0' && !isspace((unsigned char)inner[n])))
		return NULL;
	inner += n;
	while (isspace((unsigned char)*inner))
		inner++;
	return inner;
}

/* inner is the text between the brackets, blanks trimmed. */
static enum ab_rc open_section(struct pctx *c, const char *inner)
{
	for (int s = SEC_SCENARIO; s < SEC_CASE; s++) {
		if (strcmp(inner, sections[s].name) != 0)
			continue;
		if (c->fixed[s].header_line)
			return perr(c, c->line, NULL, "[%s]: section repeated (first at line %d)", inner,
				    c->fixed[s].header_line);
		c->fixed[s].header_line = c->line;
		c->sec = (enum section)s;
		return AB_OK;
	}
	const char *name = named_section(inner, "case");
	if (name)
		return open_case(c, inner, name);
	if ((name = named_section(inner, "arm")))
		return open_arm(c, inner, name);
	return perr(c, c->line, NULL,
		    "[%s]: unknown section (sections: [scenario], [arms], [model], [case NAME], [arm NAME])", inner);
}

/* A "[...]" line (leading blanks already gone). */
static enum ab_rc section_line(struct pctx *c, const char *line)
{
	char inner[256];
	const char *close = strchr(line, ']');
	if (!close)
		return perr(c, c->line, NULL, "section header '%s' has no closing ']'", line);
	const char *rest = close + 1;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest && *rest != ';' && *rest != '#')
		return perr(c, c->line, NULL, "text after the section header: '%s'", rest);
	const char *b = line + 1, *e = close;
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	/* The line fits inih's buffer, so the name fits ours. */
	memcpy(inner, b, (size_t)(e - b));
	inner[e - b] = '\0';
	return open_section(c, inner);
}

/* Whether a key line has its '=' or ':' before any inline comment, as inih
 * demands (a ';' after a blank starts a comment). */
static bool has_separator(const char *s)
{
	bool was_space = false;
	for (; *s; s++) {
		if (*s == '=' || *s == ':')
			return true;
		if (was_space && *s == ';')
			return false;
		was_space = isspace((unsigned char)*s);
	}
	return false;
}

/* Looks at a line before inih does: sections are ours, and a line inih
 * would call an error gets a message. */
static enum ab_rc classify_line(struct pctx *c, const char *line)
{
	if (*line == '[')
		return section_line(c, line);
	if (*line == '\0' || *line == ';' || *line == '#' || has_separator(line))
		return AB_OK;
	return perr(c, c->line, NULL, "expected '[section]', 'key = value' or a comment, not '%s'", line);
}

/* inih's reader over the text in memory, one line per call (fgets-like).
 * Returns NULL at the end or after an error, which stops inih. */
static char *read_line(char *str, int num, void *stream)
{
	struct pctx *c = stream;
	if (c->rc != AB_OK || *c->pos == '\0')
		return NULL;
	const char *line = c->pos;
	size_t len = strcspn(line, "\n");
	c->pos += len + (line[len] == '\n');
	c->line++;
	if (len && line[len - 1] == '\r')
		len--;
	if (c->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
		line += 3, len -= 3;
	/* inih needs room for "\r\n\0" in its buffer of num bytes. */
	if (num < 4 || len > (size_t)num - 3) {
		perr(c, c->line, NULL, "line is %zu characters long, at most %d allowed", len, num - 3);
		return NULL;
	}
	while (len && isspace((unsigned char)*line))
		line++, len--;
	memcpy(str, line, len);
	str[len] = '\0';
	return classify_line(c, str) == AB_OK ? str : NULL;
}

/* ---- checks once the whole file is read ----------------------------------- */

/* lo <= hi (or lo < hi when strict) for two keys of a scope, reported at
 * whichever of the two the scope set last (keys is the scope's table). */
static enum ab_rc check_order(struct pctx *c, const struct scope *sc, const struct key_def *keys, const char *lo_key,
			      double lo, const char *hi_key, double hi, bool strict)
{
	if (strict ? lo < hi : lo <= hi)
		return AB_OK;
	int lo_line = key_line(sc, keys, lo_key), hi_line = key_line(sc, keys, hi_key);
	return perr(c, hi_line >= lo_line ? hi_line : lo_line, hi_line >= lo_line ? hi_key : lo_key,
		    "%s (%g) must be %s %s (%g)", lo_key, lo, strict ? "less than" : "at most", hi_key, hi);
}

static enum ab_rc finish_scenario(struct pctx *c)
{
	const struct scenario_sampling *sm = &c->scn->sampling;
	const struct scope *sc = &c->fixed[SEC_SCENARIO];
	const struct key_def *k = scenario_keys;
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
	for (int k = 0; case_keys[k].name; k++) {
		const struct key_def *kd = &case_keys[k];
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

static enum ab_rc finish_case(struct pctx *c, int i)
{
	struct scenario_case *cs = &c->scn->cases[i];
	const struct scope *sc = &c->cscope[i];
	char err[256], shape[96];
	if (!cs->site) {
		site_names(err, sizeof err);
		return perr(c, cs->line, NULL, "[case %s]: missing key 'site' (sites: %s)", cs->name, err);
	}
	if (!(sc->seen & (1u << key_index(case_keys, "shape"))))
		return perr(c, cs->line, NULL, "[case %s]: missing key 'shape' (%s takes %s)", cs->name, cs->site->name,
			    cs->site->shape_help);
	err[0] = '\0';
	if (!cs->site->geometry(&cs->shape, &cs->dims, err, sizeof err)) {
		site_format_shape(&cs->shape, shape, sizeof shape);
		return perr(c, key_line(sc, case_keys, "shape"), "shape", "site '%s' rejects '%s': %s", cs->site->name,
			    shape, err);
	}
	if (cs->affine && !site_has_affine(cs->site))
		return perr(c, key_line(sc, case_keys, "affine"), "affine",
			    "site '%s' has no weight or bias (affine = true applies to LayerNorm sites)",
			    cs->site->name);
	merge_input(c, i);
	return check_order(c, sc, case_keys, "input_low", cs->input.low, "input_high", cs->input.high, true);
}

/* ---- user arms ------------------------------------------------------------- */

/* The line of every key of [arm] section i, for the messages of later
 * checks (harness/arms/ opens the files at plan time). */
static void arm_lines(struct pctx *c, int i)
{
	const struct scope *sc = &c->ascope[i];
	struct arm_spec_lines *l = &c->scn->arms[i].lines;
	l->type = key_line(sc, arm_keys, "type");
	l->site = key_line(sc, arm_keys, "site");
	l->library = key_line(sc, arm_keys, "library");
	l->name = key_line(sc, arm_keys, "name");
	l->triton = key_line(sc, arm_keys, "triton");
	l->binary = key_line(sc, arm_keys, "binary");
	l->kernel = key_line(sc, arm_keys, "kernel");
	l->grid = key_line(sc, arm_keys, "grid");
	l->block = key_line(sc, arm_keys, "block");
	l->shared = key_line(sc, arm_keys, "shared");
	l->params = key_line(sc, arm_keys, "params");
}

static enum ab_rc finish_arm(struct pctx *c, int i)
{
	struct arm_spec *a = &c->scn->arms[i];
	char err[AB_DIAG_MAX / 2];
	int line = a->lines.header;
	arm_lines(c, i);
	if (!arm_spec_finish(a, &line, err, sizeof err))
		return perr(c, line, NULL, "%s", err);
	if (a->type == ARM_SPEC_CUBIN && !arm_spec_parse_params(a, err, sizeof err))
		return perr(c, a->lines.params, "params", "%s", err);
	return AB_OK;
}

/* a or b = plugin:PATH:ARM: an arm of its own, after the sections. */
static enum ab_rc add_shortcut(struct pctx *c, int j, const char *text, int line)
{
	struct scenario *s = c->scn;
	const char *key = j ? "b" : "a";
	char path[ARM_SPEC_PATH_MAX], arm[ARM_SPEC_NAME_MAX], err[AB_DIAG_MAX / 2];
	if (!arm_spec_split_shortcut(text, path, sizeof path, arm, sizeof arm, err, sizeof err))
		return perr(c, line, key, "%s", err);
	if (!name_ok(arm))
		return perr(c, line, key, "'%s': the arm name '%s' may use only letters, digits, '_', '-' and '.'", text,
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
		return perr(c, line, key, "'%s' is too long a path", path);
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
	variant_names(most, list, sizeof list);
	for (int i = 0; i < s->n_arms; i++)
		list_add(arms, sizeof arms, s->arms[i].name);
	if (!arms[0])
		return perr(c, line, key, "unknown variant '%s' (variants: %s; or an [arm NAME], or plugin:PATH:ARM)",
			    text, list);
	return perr(c, line, key, "unknown variant or arm '%s' (variants: %s; arms: %s)", text, list, arms);
}

/* Arm j (a or b) from its text: plugin:PATH:ARM, the name of an [arm
 * NAME], or a built-in variant (check_arms checks it for each case). */
static enum ab_rc resolve_arm(struct pctx *c, int j)
{
	struct scenario *s = c->scn;
	const char *key = j ? "b" : "a";
	const char *text = c->arm_text[j][0] ? c->arm_text[j] : j ? "fused" : "eager";
	int line = key_line(&c->fixed[SEC_ARMS], arms_keys, key);
	char *dst = j ? s->arm_b : s->arm_a;
	s->arm_ref[j] = -1;
	if (strncmp(text, "plugin:", 7) == 0)
		return add_shortcut(c, j, text, line);
	int i = find_arm(s, text);
	if (i < 0 && !is_variant(text))
		return unknown_arm(c, line, key, text);
	if (strlen(text) >= sizeof s->arm_a)
		return perr(c, line, key, "'%s' is too long a variant name", text);
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
	return perr(c, a->lines.site, "site", "arm '%s' is for site '%s', but case '%s' (line %d) has site '%s'",
		    a->name, a->site->name, cs->name, cs->line, cs->site->name);
}

/* Both arms must exist for the case's site. */
static enum ab_rc check_arms(struct pctx *c, const struct scenario_case *cs)
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
		int line = key_line(&c->fixed[SEC_ARMS], arms_keys, key[j]);
		variant_names(cs->site, list, sizeof list);
		return perr(c, line ? line : cs->line, key[j],
			    "case '%s' (line %d) has site '%s', which has no variant '%s' (it has: %s)", cs->name,
			    cs->line, cs->site->name, arm[j], list);
	}
	return AB_OK;
}

/* ---- expanding sweeps ------------------------------------------------------ */

/* Every value of case i's sweep against the site's shape rule (the case's
 * own shape holds the first), and the length of each expanded name. */
static enum ab_rc check_sweep(struct pctx *c, int i)
{
	const struct scenario_case *cs = &c->scn->cases[i];
	const struct sweep *sw = &c->sweeps[i];
	int line = key_line(&c->cscope[i], case_keys, "shape");
	char axis[8], err[256], shape[96], name[128];
	site_axis_name(cs->site, sw->dim, axis, sizeof axis);
	for (int v = 0; v < sw->n; v++) {
		struct site_shape sh = cs->shape;
		struct site_dims dims;
		sh.dim[sw->dim] = sw->v[v];
		err[0] = '\0';
		if (!cs->site->geometry(&sh, &dims, err, sizeof err)) {
			site_format_shape(&sh, shape, sizeof shape);
			return perr(c, line, "shape", "site '%s' rejects '%s' (%s=%lld of the sweep): %s", cs->site->name,
				    shape, axis, (long long)sw->v[v], err);
		}
		int n = snprintf(name, sizeof name, "%s[%s=%lld]", cs->name, axis, (long long)sw->v[v]);
		if (n >= SCENARIO_NAME_MAX)
			return perr(c, cs->line, NULL, "[case %s]: expanded case name '%s' is %d characters long, at most %d "
				    "allowed (shorten the case name)", cs->name, name, n, SCENARIO_NAME_MAX - 1);
	}
	return AB_OK;
}

/* The cases the scenario will have once expanded; an error past
 * SCENARIO_CASES_MAX, at the case that crosses it. */
static enum ab_rc count_expanded(struct pctx *c, int *total)
{
	*total = 0;
	for (int i = 0; i < c->scn->n_cases; i++) {
		const struct sweep *sw = &c->sweeps[i];
		*total += sw->dim >= 0 ? sw->n : 1;
		if (*total > SCENARIO_CASES_MAX)
			return perr(c, sw->dim >= 0 ? key_line(&c->cscope[i], case_keys, "shape") : c->scn->cases[i].line,
				    NULL, "[case %s]: the scenario expands to more than %d cases (the limit)",
				    c->scn->cases[i].name, SCENARIO_CASES_MAX);
	}
	return AB_OK;
}

/* Case i's sweep value v as a case of its own, "NAME[T=1024]". */
static void expanded_case(const struct scenario_case *base, const struct sweep *sw, int v, struct scenario_case *out)
{
	*out = *base;
	out->shape.dim[sw->dim] = sw->v[v];
	base->site->geometry(&out->shape, &out->dims, NULL, 0); /* checked by check_sweep */
	site_axis_name(base->site, sw->dim, out->axis, sizeof out->axis);
	out->axis_value = sw->v[v];
	snprintf(out->sweep, sizeof out->sweep, "%s", base->name);
	char name[128]; /* fits out->name: check_sweep said so */
	snprintf(name, sizeof name, "%s[%s=%lld]", base->name, out->axis, (long long)sw->v[v]);
	snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, name);
}

/* Replaces every swept case, in place, by one case per value. */
static enum ab_rc expand_sweeps(struct pctx *c)
{
	struct scenario *s = c->scn;
	int total, k = 0;
	bool any = false;
	for (int i = 0; i < s->n_cases; i++)
		any = any || c->sweeps[i].dim >= 0;
	if (count_expanded(c, &total) != AB_OK || !any)
		return c->rc;
	struct scenario_case *out = calloc((size_t)total, sizeof *out);
	if (!out)
		return nomem(c);
	for (int i = 0; i < s->n_cases; i++) {
		const struct sweep *sw = &c->sweeps[i];
		if (sw->dim < 0)
			out[k++] = s->cases[i];
		for (int v = 0; sw->dim >= 0 && v < sw->n; v++)
			expanded_case(&s->cases[i], sw, v, &out[k++]);
	}
	free(s->cases);
	s->cases = out;
	s->n_cases = total;
	return AB_OK;
}

static enum ab_rc finish(struct pctx *c)
{
	struct scenario *s = c->scn;
	if (finish_scenario(c) != AB_OK)
		return c->rc;
	for (int i = 0; i < s->n_arms; i++)
		if (finish_arm(c, i) != AB_OK)
			return c->rc;
	if (resolve_arm(c, 0) || resolve_arm(c, 1))
		return c->rc;
	if (s->n_cases == 0)
		return perr(c, c->line, NULL, "no case: a scenario needs at least one [case NAME] section");
	for (int i = 0; i < s->n_cases; i++)
		if (finish_case(c, i) != AB_OK || (c->sweeps[i].dim >= 0 && check_sweep(c, i) != AB_OK))
			return c->rc;
	for (int i = 0; i < s->n_cases; i++)
		if (check_arms(c, &s->cases[i]) != AB_OK)
			return c->rc;
	return expand_sweeps(c);
}

/* ---- entry points ------------------------------------------------------------ */

/* The scenario's name when the file gives none: its base name less ".ini". */
static void default_name(struct scenario *s)
{
	const char *base = strrchr(s->path, '/');
	base = base ? base + 1 : s->path;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
		n -= 4;
	if (n >= sizeof s->name)
		n = sizeof s->name - 1;
	memcpy(s->name, base, n);
	s->name[n] = '\0';
}

static void set_defaults(struct scenario *s, struct scenario_input *dflt)
{
	s->backend = BACKEND_AUTO;
	strcpy(s->dtype, "bf16");
	strcpy(s->bracket, "ABA");
	s->seed = 1;
	s->sampling = (struct scenario_sampling){ .warmup = 3, .min_samples = 10, .max_samples = 1000,
					     .min_time_ms = 500, .max_time_ms = 15000, .target_noise = 0.005,
					     .noise = SCENARIO_NOISE_MEDIAN };
	s->l2_flush = true;
	s->launch_gaps = BACKEND_GAPS_INCLUDE;
	strcpy(s->arm_a, "eager");
	strcpy(s->arm_b, "fused");
	s->steps = 1;
	s->forwards_per_step = 1;
	*dflt = (struct scenario_input){ .dist = SCENARIO_DIST_NORMAL, .mean = 0, .std = 1, .low = -1, .high = 1, .value = 1 };
}

static bool blank(const char *t)
{
	while (isspace((unsigned char)*t))
		t++;
	return *t == '\0';
}

/* Parses text, which the new scenario takes over (freed on failure). */
static enum ab_rc parse_owned(const char *path, char *text, struct scenario **out, struct ab_diag *d)
{
	struct scenario *s = calloc(1, sizeof *s);
	*out = NULL;
	if (!s)
		return free(text), ab_fail(d, AB_ERR_NOMEM, "%s: out of memory", path);
	s->text = text;
	snprintf(s->path, sizeof s->path, "%s", path);
	struct pctx c = { .scn = s, .d = d, .pos = text };
	set_defaults(s, &c.dflt);
	default_name(s);
	if (blank(text))
		perr(&c, 1, NULL, "the file is empty");
	if (c.rc == AB_OK)
		c.rc = digest_sha256_hex(text, strlen(text), s->hash, d);
	if (c.rc == AB_OK) {
		int at = ini_parse_stream(read_line, &c, on_key, &c);
		if (at > 0)
			perr(&c, at, NULL, "syntax error");
	}
	if (c.rc == AB_OK)
		finish(&c);
	free(c.cscope);
	free(c.sweeps);
	free(c.ascope);
	if (c.rc != AB_OK) {
		scenario_free(s);
		return c.rc;
	}
	*out = s;
	return AB_OK;
}

enum ab_rc scenario_parse_text(const char *path, const char *text, struct scenario **out, struct ab_diag *d)
{
	char *copy = strdup(text);
	*out = NULL;
	if (!copy)
		return ab_fail(d, AB_ERR_NOMEM, "%s: out of memory", path);
	return parse_owned(path, copy, out, d);
}

/* Reads all of f, stopping once past SCN_FILE_MAX bytes. On success *out is
 * NUL-terminated and *len excludes the NUL; returns an errno value or 0. */
static int slurp(FILE *f, char **out, size_t *len)
{
	char *buf = NULL;
	size_t used = 0, cap = 0, n;
	do {
		if (used == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				return ENOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		n = fread(buf + used, 1, cap - used, f);
		used += n;
	} while (n > 0 && used <= SCN_FILE_MAX);
	if (ferror(f)) {
		free(buf);
		return errno ? errno : EIO;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

/* The 1-based line that holds byte pos of text. */
static int line_of(const char *text, size_t pos)
{
	int line = 1;
	for (size_t i = 0; i < pos; i++)
		line += text[i] == '\n';
	return line;
}

/* The offset of the first control character other than tab, CR and LF (NUL
 * and DEL included), or n: none of them belongs in a scenario, and none
 * may reach a terminal through a message. */
static size_t first_control(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7F)
			return i;
	}
	return n;
}

/* Reads the whole file into a string: a text file of at most SCN_FILE_MAX
 * bytes. */
static enum ab_rc read_file(const char *path, char **out, struct ab_diag *d)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return ab_fail(d, AB_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	errno = 0;
	int err = slurp(f, &buf, &n);
	fclose(f);
	if (err == ENOMEM)
		return ab_fail(d, AB_ERR_NOMEM, "cannot read '%s': out of memory", path);
	if (err)
		return ab_fail(d, AB_ERR_IO, "cannot read '%s': %s", path, strerror(err));
	if (n > SCN_FILE_MAX) {
		int line = line_of(buf, SCN_FILE_MAX);
		free(buf);
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: the file is larger than %d MiB, too large for a scenario (a wrong path?)",
			       path, line, SCN_FILE_MAX >> 20);
	}
	size_t bad = first_control(buf, n);
	if (bad == n) {
		*out = buf;
		return AB_OK;
	}
	unsigned char c = (unsigned char)buf[bad];
	int line = line_of(buf, bad);
	free(buf);
	if (c == 0)
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: the file contains a NUL byte (not a text file?)", path, line);
	return ab_fail(d, AB_ERR_INPUT, "%s:%d: control character 0x%02X in the file (a scenario is plain text)", path,
		       line, c);
}

enum ab_rc scenario_parse_file(const char *path, struct scenario **out, struct ab_diag *d)
{
	char *text = NULL;
	*out = NULL;
	enum ab_rc rc = read_file(path, &text, d);
	if (rc != AB_OK)
		return rc;
	return parse_owned(path, text, out, d);
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	free(s->text);
	free(s->cases);
	free(s->arms);
	free(s);
}

/* Whether case name matches one pattern of the list: equal to it, or
 * matched by it as a glob. */
static bool case_matches(const char *name, const char *pat)
{
	return strcmp(name, pat) == 0 || fnmatch(pat, name, 0) == 0;
}

/* The next pattern of a comma-separated list into buf (empty ones
 * included: they match nothing); false at the end, where *p is NULL. */
static bool next_pattern(const char **p, char *buf, size_t len)
{
	if (!*p)
		return false;
	size_t n = strcspn(*p, ",");
	snprintf(buf, len, "%.*s", (int)n, *p);
	*p = (*p)[n] == ',' ? *p + n + 1 : NULL;
	return true;
}

static enum ab_rc no_match(const struct scenario *s, const char *pat, struct ab_diag *d)
{
	char list[256] = "";
	for (int i = 0; i < s->n_cases; i++)
		list_add(list, sizeof list, s->cases[i].name);
	return ab_fail(d, AB_ERR_USAGE, "no case matches '%s' in '%s' (cases: %s%s)", pat, s->path, list,
		       strlen(list) >= sizeof list - 1 ? "..." : "");
}

enum ab_rc scenario_keep_only(struct scenario *s, const char *patterns, struct ab_diag *d)
{
	char pat[256];
	int kept = 0;
	for (const char *p = patterns; next_pattern(&p, pat, sizeof pat);) {
		bool any = false;
		for (int i = 0; i < s->n_cases && !any; i++)
			any = case_matches(s->cases[i].name, pat);
		if (!any)
			return no_match(s, pat, d);
	}
	for (int i = 0; i < s->n_cases; i++) {
		bool keep = false;
		for (const char *p = patterns; !keep && next_pattern(&p, pat, sizeof pat);)
			keep = case_matches(s->cases[i].name, pat);
		if (keep)
			s->cases[kept++] = s->cases[i];
	}
	s->n_cases = kept;
	return kept ? AB_OK : no_match(s, patterns, d);
}

const char *scenario_noise_str(enum scenario_noise n)
{
	return n == SCENARIO_NOISE_MEAN ? "mean" : "median";
}

const char *scenario_dist_str(enum scenario_dist dist)
{
	for (int i = 0; dist_words[i]; i++)
		if (dist_map[i] == dist)
			return dist_words[i];
	return "unknown";
}

void scenario_input_describe(const struct scenario_input *in, char *buf, size_t len)
{
	switch (in->dist) {
	case SCENARIO_DIST_NORMAL:
	case SCENARIO_DIST_SPECIAL:
		snprintf(buf, len, "%s(mean=%g,std=%g)", scenario_dist_str(in->dist), in->mean, in->std);
		return;
	case SCENARIO_DIST_UNIFORM:
		snprintf(buf, len, "uniform(low=%g,high=%g)", in->low, in->high);
		return;
	case SCENARIO_DIST_CONSTANT:
		snprintf(buf, len, "constant(%g)", in->value);
		return;
	}
	snprintf(buf, len, "unknown");
}
