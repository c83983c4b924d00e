/*
 * scenario.c - reads an INI scenario with inih and validates all of it
 * before any work starts: the entry points of the parser (scenario_int.h
 * lists its files).
 *
 * inih (Debian's build) gives its handler no line number, so we feed it the
 * text through our own line reader (scenario_read.c): the reader counts
 * lines, so every message can say FILE:LINE.
 *
 * Keys are described by one table per section (scenario_keys.c); checks
 * that involve several keys, the site registry or defaults run once the
 * whole file is read (finish). The first error wins; on any error the
 * half-built scenario is freed.
 */
#include "config/scenario_int.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "common/digest.h"
#include "common/utf8.h"
#include "common/suggest.h"

/* Scenario files are a few kilobytes; anything this big is a wrong path. */
#define SCN_FILE_MAX (1 << 20)

/* ---- messages ---------------------------------------------------------- */

enum ab_rc scenario_perr(struct pctx *c, int line, const char *what, const char *fmt, ...)
{
	char reason[AB_DIAG_MAX];
	va_list ap;
	if (c->rc != AB_OK)
		return c->rc;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	if (what)
		c->rc = ab_fail(c->d, AB_ERR_INPUT, "%s:%d: %s: %s", c->file, line, what, reason);
	else
		c->rc = ab_fail(c->d, AB_ERR_INPUT, "%s:%d: %s", c->file, line, reason);
	return c->rc;
}

enum ab_rc scenario_nomem(struct pctx *c)
{
	if (c->rc == AB_OK)
		c->rc = ab_fail(c->d, AB_ERR_NOMEM, "%s:%d: out of memory", c->file, c->line);
	return c->rc;
}

struct expr *scenario_keep_expr(struct pctx *c, const struct expr *e)
{
	struct scenario *s = c->scn;
	struct expr **ne = realloc(s->exprs, (size_t)(s->n_exprs + 1) * sizeof *ne);
	if (!ne) {
		scenario_nomem(c);
		return NULL;
	}
	s->exprs = ne;
	if (!(ne[s->n_exprs] = malloc(sizeof *e))) {
		scenario_nomem(c);
		return NULL;
	}
	*ne[s->n_exprs] = *e;
	return ne[s->n_exprs++];
}

void scenario_list_add(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);
	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

void scenario_variant_names(const struct site_desc *s, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < s->n_variants; i++)
		scenario_list_add(buf, len, s->variants[i].name);
}

/* Names of cases and of the scenario: safe in file names, NVTX ranges and
 * reports. */
bool scenario_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	return true;
}

/* ---- once the whole file is read --------------------------------------- */

/* The checks that need the whole file, in an order that reports what a
 * reader fixes first: the declared sites, [scenario], the arms, each
 * case, each case's arms; then sweeps expand and randint's bounds are
 * evaluated for every case. */
static enum ab_rc finish(struct pctx *c)
{
	struct scenario *s = c->scn;
	if (scenario_site_finish(c) || scenario_keys_finish_scenario(c) || scenario_arms_finish(c))
		return c->rc;
	if (s->n_cases == 0 && !c->sites_only)
		return scenario_perr(c, c->line, NULL, "no case: a scenario needs at least one [case NAME] section");
	for (int i = 0; i < s->n_cases; i++)
		if (scenario_keys_finish_case(c, i) != AB_OK || (c->sweeps[i].dim >= 0 && scenario_sweep_check(c, i) != AB_OK) ||
		    scenario_sweep_check_invariance(c, i) != AB_OK)
			return c->rc;
	if (scenario_gen_check_scenario(c))
		return c->rc;
	for (int i = 0; i < s->n_cases; i++)
		if (scenario_arms_check_case(c, i) != AB_OK)
			return c->rc;
	scenario_arms_run_arms(c);
	if (scenario_sweep_expand(c))
		return c->rc;
	return scenario_gen_bounds(c);
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
					     .noise = SCENARIO_NOISE_MEDIAN, .rounds = 1 };
	s->l2_flush = true;
	/* the kernel question by default: every launch queued before the GPU
	 * starts, as do_bench and nvbench time; a block or model scenario
	 * says include (docs/SCENARIO_FORMAT.md, "What a case times") */
	s->launch_gaps = BACKEND_GAPS_HIDE;
	s->timing = BACKEND_TIMING_EVENTS;
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

/* The text must be UTF-8 (docs/RELIABILITY.md): every name, description
 * and value reaches the database and JSON, which hold only UTF-8, so a
 * Latin-1 byte is refused here, at its line and column. */
static void utf8_check(struct pctx *c, const char *text)
{
	size_t bad;
	if (utf8_valid_str(text, &bad))
		return;
	int line = 1;
	size_t col = 1;
	for (size_t i = 0; i < bad; i++, col++)
		if (text[i] == '\n')
			line++, col = 0;
	scenario_perr(c, line, NULL, "byte 0x%02X at column %zu is not UTF-8 (a scenario is UTF-8 text)",
	     (unsigned char)text[bad], col);
}

/* Reads the text of c's file through inih: every section and key of it
 * (the text's own checks first). */
static void parse_stream(struct pctx *c, const char *text)
{
	utf8_check(c, text);
	if (blank(text))
		scenario_perr(c, 1, NULL, "the file is empty");
	if (c->rc == AB_OK) {
		int at = ini_parse_stream(scenario_read_line, c, scenario_keys_on_key, c);
		if (at > 0)
			scenario_perr(c, at, NULL, "syntax error");
	}
}

/* What a run stores as the scenario's text: its own, then each file it
 * includes after a comment line that names it, so that the stored text
 * (and its sha256) holds every site the run measured. */
static enum ab_rc append_included(struct pctx *c, const char *path, const char *text)
{
	struct scenario *s = c->scn;
	size_t have = strlen(s->text), add = strlen(path) + strlen(text) + 64;
	char *nt = realloc(s->text, have + add);
	if (!nt)
		return scenario_nomem(c);
	s->text = nt;
	snprintf(nt + have, add, "%s; ---- abbench: included %s ----\n%s", have && nt[have - 1] != '\n' ? "\n" : "", path,
		 text);
	return AB_OK;
}

/* Parses text, which the new scenario takes over (freed on failure). */
static enum ab_rc parse_owned(const char *path, char *text, bool sites_only, struct scenario **out, struct ab_diag *d)
{
	struct scenario *s = calloc(1, sizeof *s);
	*out = NULL;
	if (!s)
		return free(text), ab_fail(d, AB_ERR_NOMEM, "%s: out of memory", path);
	s->text = text;
	snprintf(s->path, sizeof s->path, "%s", path);
	struct pctx c = { .scn = s, .d = d, .pos = text, .file = s->path, .sites_only = sites_only };
	set_defaults(s, &c.dflt);
	default_name(s);
	parse_stream(&c, text);
	if (c.rc == AB_OK)
		finish(&c);
	for (int i = 0; c.rc == AB_OK && i < c.n_included; i++)
		append_included(&c, c.included_path[i], c.included_text[i]);
	if (c.rc == AB_OK)
		c.rc = digest_sha256_hex(s->text, strlen(s->text), s->hash, d);
	for (int i = 0; i < c.n_included; i++)
		free(c.included_text[i]);
	free(c.cscope);
	free(c.sweeps);
	free(c.ctext);
	free(c.gkeys);
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
	return parse_owned(path, copy, false, out, d);
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
	return parse_owned(path, text, false, out, d);
}

enum ab_rc scenario_parse_sites(const char *path, struct scenario **out, struct ab_diag *d)
{
	char *text = NULL;
	*out = NULL;
	enum ab_rc rc = read_file(path, &text, d);
	if (rc != AB_OK)
		return rc;
	return parse_owned(path, text, true, out, d);
}

/* ---- included files ------------------------------------------------------------ */

/* One file of an include list: a regular file (a FIFO or a device would
 * block or never end), neither the scenario itself nor one named before;
 * read and parsed in a context of its own, its sites added to c's
 * scenario, its text kept for the stored scenario. */
static enum ab_rc include_one(struct pctx *c, const char *name)
{
	char path[ARM_SPEC_PATH_MAX], real[ARM_SPEC_PATH_MAX], self[ARM_SPEC_PATH_MAX];
	struct stat st;
	char *text = NULL;
	if (!arm_spec_resolve_path(c->scn->path, name, path, sizeof path) || strlen(path) >= sizeof c->included_path[0])
		return scenario_perr(c, c->line, "include", "'%s' is too long a path", name);
	if (strcmp(c->scn->path, path) == 0)
		return scenario_perr(c, c->line, "include", "'%s' is this scenario: a file cannot include itself", name);
	if (stat(path, &st) != 0)
		return scenario_perr(c, c->line, "include", "cannot include '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return scenario_perr(c, c->line, "include", "cannot include '%s': not a regular file", path);
	if (!realpath(path, real))
		snprintf(real, sizeof real, "%s", path);
	if (realpath(c->scn->path, self) && strcmp(self, real) == 0)
		return scenario_perr(c, c->line, "include", "'%s' is this scenario: a file cannot include itself", name);
	for (int i = 0; i < c->n_included; i++)
		if (strcmp(c->included_real[i], real) == 0)
			return scenario_perr(c, c->line, "include", "'%s' is included twice", name);
	if (c->n_included == SCENARIO_INCLUDE_MAX)
		return scenario_perr(c, c->line, "include", "more than %d included files", SCENARIO_INCLUDE_MAX);
	enum ab_rc rc = read_file(path, &text, c->d);
	if (rc != AB_OK)
		return c->rc = ab_wrap(c->d, rc, "%s:%d: include", c->scn->path, c->line);
	int k = c->n_included++;
	c->included_text[k] = text;
	snprintf(c->included_path[k], sizeof c->included_path[k], "%.511s", path); /* fits: checked above */
	snprintf(c->included_real[k], sizeof c->included_real[k], "%s", real);
	struct pctx sub = { .scn = c->scn, .d = c->d, .pos = text, .file = c->included_path[k], .included = true,
			    .site_cap = c->site_cap };
	parse_stream(&sub, text);
	c->site_cap = sub.site_cap;
	return c->rc = sub.rc;
}

enum ab_rc scenario_include(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	char item[ARM_SPEC_TEXT_MAX];
	(void)k;
	(void)field;
	for (const char *p = val;; p++) {
		size_t n = strcspn(p, ",");
		snprintf(item, sizeof item, "%.*s", (int)n, p);
		char *b = item, *e = item + strlen(item);
		while (isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*b)
			return scenario_perr(c, c->line, "include", "'%s' has an empty file name", val);
		if (include_one(c, b) || !p[n])
			return c->rc;
		p += n;
	}
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n_sites; i++) {
		free(s->sites[i]->keys);
		free(s->sites[i]);
	}
	for (int i = 0; i < s->n_exprs; i++)
		free(s->exprs[i]);
	free(s->sites);
	free(s->exprs);
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
	char list[256] = "", dym[96] = "";
	const char *names[256];
	int n = 0;
	for (int i = 0; i < s->n_cases; i++) {
		scenario_list_add(list, sizeof list, s->cases[i].name);
		if (n < 256)
			names[n++] = s->cases[i].name;
	}
	const char *near = suggest_nearest(pat, names, n);
	if (near)
		snprintf(dym, sizeof dym, "did you mean '%.64s'? ", near);
	return ab_fail(d, AB_ERR_USAGE, "no case matches '%s' in '%s' (%scases: %s%s)", pat, s->path, dym, list,
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
