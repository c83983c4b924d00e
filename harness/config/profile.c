/*
 * profile.c - parsing device profiles (inih) and finding the one for a
 * device. See profile.h for the format and the lookup rules.
 */
#include "config/profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "common/numparse.h"
#include "common/suggest.h"

#define PROF_MAX_FILES 256
#define PROF_MAX_TEXT (1 << 20)

enum {
	SEEN_NOISE = 1 << 0,
	SEEN_GATE = 1 << 1,
	SEEN_MIN_CHANGE = 1 << 2,
};

/* What the inih handler fills; msg keeps the first error only, inih
 * returns that error's line number. */
struct parse_ctx {
	struct profile *p;
	unsigned seen;
	char seen_keys[16][32];
	int n_seen;
	char msg[256];
};

static int fail_key(struct parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first error's message; returns 0, inih's "error" value. */
static int fail_key(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->msg[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	va_end(ap);
	return 0;
}

static int set_string(struct parse_ctx *c, const char *key, const char *value, char *dst, size_t len)
{
	if (strlen(value) >= len)
		return fail_key(c, "value of '%s' too long ('%.40s...')", key, value);
	memcpy(dst, value, strlen(value) + 1);
	return 1;
}

/* A number key with its allowed range [lo, hi] (lo_open: lo excluded). */
static int set_number(struct parse_ctx *c, const char *key, const char *value, double lo, bool lo_open,
		      double hi, double *dst)
{
	double v;
	if (!numparse_double(value, &v))
		return fail_key(c, "'%s' needs a number, not '%s'", key, value);
	if (v < lo || (lo_open && v == lo) || v > hi)
		return fail_key(c, "'%s' out of range: '%s'", key, value);
	*dst = v;
	return 1;
}

static int set_count(struct parse_ctx *c, const char *key, const char *value, int64_t hi, int64_t *dst)
{
	int64_t v;
	if (!numparse_i64(value, &v))
		return fail_key(c, "'%s' needs an integer, not '%s'", key, value);
	if (v < 0 || v > hi)
		return fail_key(c, "'%s' out of range: '%s'", key, value);
	*dst = v;
	return 1;
}

static int set_backend(struct parse_ctx *c, const char *value)
{
	const char *b;
	char names[128];
	backend_names(names, sizeof names, " or ");
	if (!backend_choice_parse(value, &b) || !strcmp(b, BACKEND_AUTO)) {
		const char *const *words = backend_choice_names();
		int n = 0;
		while (words[n])
			n++;
		const char *near = suggest_nearest(value, words + 1, n - 1); /* auto is no profile's backend */
		return fail_key(c, "'backend' must be %s, not '%s'%s%s%s", names, value, near ? " (did you mean '" : "",
				near ? near : "", near ? "'?)" : "");
	}
	return set_string(c, "backend", value, c->p->backend, sizeof c->p->backend);
}

/* "unknown key 'noise_flor' (did you mean 'noise_floor'?)", else the keys. */
static int unknown_key(struct parse_ctx *c, const char *key)
{
	static const char *const keys[] = { "name", "match", "backend", "notes", "dram_gbps", "noise_floor",
					    "gate_max_regression_pct", "gate_min_change_ns", "gate_machine_moved_pct",
					    "l2_bytes", "sm_count" };
	char hint[SUGGEST_LIST_MAX + 64];
	suggest_hint(key, keys, (int)(sizeof keys / sizeof keys[0]), "keys", "docs/REPORTS.md lists the keys", 0, hint,
		     sizeof hint);
	return fail_key(c, "unknown key '%s'%s", key, hint);
}

static int set_key(struct parse_ctx *c, const char *key, const char *value)
{
	struct profile *p = c->p;
	int64_t n;

	if (!strcmp(key, "name"))
		return set_string(c, key, value, p->name, sizeof p->name);
	if (!strcmp(key, "match"))
		return set_string(c, key, value, p->match, sizeof p->match);
	if (!strcmp(key, "backend"))
		return set_backend(c, value);
	if (!strcmp(key, "notes"))
		return set_string(c, key, value, p->notes, sizeof p->notes);
	if (!strcmp(key, "dram_gbps"))
		return set_number(c, key, value, 0, false, 1e6, &p->dram_gbps);
	if (!strcmp(key, "noise_floor")) {
		c->seen |= SEEN_NOISE;
		return set_number(c, key, value, 0, true, 0.99, &p->noise_floor);
	}
	if (!strcmp(key, "gate_max_regression_pct")) {
		c->seen |= SEEN_GATE;
		return set_number(c, key, value, 0, true, 1000, &p->gate_max_regression_pct);
	}
	if (!strcmp(key, "gate_min_change_ns")) {
		c->seen |= SEEN_MIN_CHANGE;
		return set_number(c, key, value, 0, false, 1e9, &p->gate_min_change_ns);
	}
	if (!strcmp(key, "gate_machine_moved_pct"))
		return set_number(c, key, value, 0, true, 1000, &p->gate_machine_moved_pct);
	if (!strcmp(key, "l2_bytes"))
		return set_count(c, key, value, INT64_MAX, &p->l2_bytes);
	if (!strcmp(key, "sm_count")) {
		if (!set_count(c, key, value, INT_MAX, &n))
			return 0;
		p->sm_count = (int)n;
		return 1;
	}
	return unknown_key(c, key);
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;

	if (strcmp(section, "profile"))
		return fail_key(c, "unknown section '[%s]' (profiles have one [profile] section)", section);
	for (int i = 0; i < c->n_seen; i++)
		if (!strcmp(c->seen_keys[i], key))
			return fail_key(c, "duplicate key '%s'", key);
	if (c->n_seen < 16)
		snprintf(c->seen_keys[c->n_seen++], sizeof c->seen_keys[0], "%s", key);
	return set_key(c, key, value);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

enum ab_rc profile_parse_text(const char *path, const char *text, struct profile *out, struct ab_diag *d)
{
	struct parse_ctx c = { .p = out };

	memset(out, 0, sizeof *out);
	snprintf(out->file, sizeof out->file, "%s", base_name(path));
	int line = ini_parse_string(text, on_entry, &c);
	if (line < 0)
		return ab_fail(d, AB_ERR_NOMEM, "%s: out of memory while parsing", path);
	if (line > 0)
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: %s", path, line, c.msg[0] ? c.msg : "syntax error");
	if (!(c.seen & SEEN_NOISE))
		return ab_fail(d, AB_ERR_INPUT, "%s: missing 'noise_floor' in [profile]", path);
	if (!(c.seen & SEEN_GATE))
		return ab_fail(d, AB_ERR_INPUT, "%s: missing 'gate_max_regression_pct' in [profile]", path);
	if (!(c.seen & SEEN_MIN_CHANGE))
		return ab_fail(d, AB_ERR_INPUT, "%s: missing 'gate_min_change_ns' in [profile]", path);
	if (!out->name[0])
		snprintf(out->name, sizeof out->name, "%.*s", (int)strcspn(out->file, "."), out->file);
	if (!(out->gate_machine_moved_pct > 0))
		out->gate_machine_moved_pct = out->gate_max_regression_pct;
	return AB_OK;
}

/* Reads a whole (small) file into a malloc'd string. */
static enum ab_rc read_text(const char *path, char **out, struct ab_diag *d)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return ab_fail(d, errno == ENOENT ? AB_ERR_INPUT : AB_ERR_IO, "cannot open '%s': %s", path,
			       strerror(errno));
	char *buf = malloc(PROF_MAX_TEXT + 1);
	if (!buf) {
		fclose(f);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory reading '%s'", path);
	}
	size_t n = fread(buf, 1, PROF_MAX_TEXT + 1, f);
	bool bad = ferror(f), big = n > PROF_MAX_TEXT;
	fclose(f);
	if (bad) {
		free(buf);
		return ab_fail(d, AB_ERR_IO, "cannot read '%s'", path);
	}
	if (big) {
		int line = 1;
		for (size_t i = 0; i < PROF_MAX_TEXT; i++)
			line += buf[i] == '\n';
		free(buf);
		return ab_fail(d, AB_ERR_INPUT, "%s:%d: the file is larger than %d MiB, too large for a profile", path,
			       line, PROF_MAX_TEXT >> 20);
	}
	buf[n] = '\0';
	*out = buf;
	return AB_OK;
}

enum ab_rc profile_parse_file(const char *path, struct profile *out, struct ab_diag *d)
{
	char *text = NULL;
	enum ab_rc rc = read_text(path, &text, d);
	if (rc != AB_OK)
		return rc;
	rc = profile_parse_text(path, text, out, d);
	free(text);
	return rc;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

enum ab_rc profile_dir(char *buf, size_t len, struct ab_diag *d)
{
	const char *env = getenv("ABBENCH_PROFILES");
	char exe[PATH_MAX];

	if (env && *env) {
		if (!is_dir(env))
			return ab_fail(d, AB_ERR_INPUT, "$ABBENCH_PROFILES '%s' is not a directory", env);
		snprintf(buf, len, "%s", env);
		return AB_OK;
	}
	if (is_dir("profiles")) {
		snprintf(buf, len, "profiles");
		return AB_OK;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/../profiles", exe);
			if (is_dir(buf))
				return AB_OK;
		}
	}
	return ab_fail(d, AB_ERR_INPUT, "no 'profiles' directory here or next to the executable (set $ABBENCH_PROFILES)");
}

/* Case-insensitive substring test (strcasestr is a GNU extension). */
static bool contains_ci(const char *hay, const char *needle, size_t nlen)
{
	if (!nlen)
		return false;
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < nlen && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == nlen)
			return true;
	}
	return false;
}

/* Whether any comma-separated item of list (trimmed) occurs in name. */
static bool match_list(const char *list, const char *name)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		const char *s = p, *e = p + n;
		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		if (contains_ci(name, s, (size_t)(e - s)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

int profile_matches(const struct profile *p, const char *device_name, const char *backend)
{
	if (device_name && match_list(p->match, device_name))
		return 2;
	if (backend && p->backend[0] && !strcmp(p->backend, backend))
		return 1;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_profile_file(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && name[0] != '.' && !strcmp(name + n - 4, ".ini") && strcmp(name, PROFILE_DEFAULT_FILE);
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The profile files of dir except default.ini, sorted; *names malloc'd. */
static enum ab_rc list_files(const char *dir, char ***names, int *n, struct ab_diag *d)
{
	DIR *dh = opendir(dir);
	struct dirent *e;

	*names = NULL;
	*n = 0;
	if (!dh)
		return ab_fail(d, AB_ERR_INPUT, "cannot open profiles directory '%s': %s", dir, strerror(errno));
	char **v = calloc(PROF_MAX_FILES, sizeof *v);
	if (!v) {
		closedir(dh);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory listing '%s'", dir);
	}
	while ((e = readdir(dh)) && *n < PROF_MAX_FILES) {
		if (!is_profile_file(e->d_name))
			continue;
		if (!(v[*n] = strdup(e->d_name))) {
			closedir(dh);
			free_names(v, *n);
			*n = 0;
			return ab_fail(d, AB_ERR_NOMEM, "out of memory listing '%s'", dir);
		}
		(*n)++;
	}
	closedir(dh);
	qsort(v, (size_t)*n, sizeof *v, cmp_names);
	*names = v;
	return AB_OK;
}

static enum ab_rc parse_in(const char *dir, const char *file, struct profile *p, struct ab_diag *d)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_INPUT, "profile path too long in '%s'", dir);
	return profile_parse_file(path, p, d);
}

/* Best match among the named files: by name first, then by backend. */
static enum ab_rc best_match(const char *dir, char **names, int n, const char *device, const char *backend,
			     struct profile *out, int *score, struct ab_diag *d)
{
	struct profile p;

	*score = 0;
	for (int i = 0; i < n; i++) {
		enum ab_rc rc = parse_in(dir, names[i], &p, d);
		if (rc != AB_OK)
			return rc;
		int s = profile_matches(&p, device, backend);
		if (s > *score) {
			*out = p;
			*score = s;
		}
	}
	return AB_OK;
}

enum ab_rc profile_lookup(const char *dir, const char *device_name, const char *backend, struct profile *out,
		       bool *fell_back, struct ab_diag *d)
{
	char **names;
	int n, score;

	*fell_back = false;
	enum ab_rc rc = list_files(dir, &names, &n, d);
	if (rc != AB_OK)
		return rc;
	rc = best_match(dir, names, n, device_name, backend, out, &score, d);
	free_names(names, n);
	if (rc != AB_OK || score > 0)
		return rc;
	*fell_back = true;
	rc = parse_in(dir, PROFILE_DEFAULT_FILE, out, d);
	if (rc != AB_OK)
		return ab_wrap(d, rc, "no profile matches device '%s' and the fallback failed", device_name);
	return AB_OK;
}

enum ab_rc profile_find(const char *device_name, const char *backend, struct profile *out, bool *fell_back,
		     struct ab_diag *d)
{
	char dir[PATH_MAX + 16];
	enum ab_rc rc = profile_dir(dir, sizeof dir, d);
	if (rc != AB_OK)
		return rc;
	return profile_lookup(dir, device_name, backend, out, fell_back, d);
}
