/*
 * cert_json.c - the certificate's JSON document (cert.h): written with
 * jansson, indented for the file or in the canonical form its sha256 is
 * computed over; read back strictly (the documented members and no
 * other, no real number, no duplicate key) and its sha256 recomputed from
 * the certificate as read back, so that a certificate changed after it was
 * sealed is refused.
 */
#include "common/cert.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"

/* ---- writing ------------------------------------------------------------------ */

static json_t *str_list(const char *words)
{
	json_t *a = json_array();
	for (const char *w = words; a && *w;) {
		size_t n = strcspn(w, " ");
		if (n)
			json_array_append_new(a, json_stringn(w, n));
		w += n;
		w += *w == ' ';
	}
	return a;
}

static json_t *env_json(const struct cert_env *e)
{
	json_t *o = json_object();
	for (int i = 0; o && i < e->n; i++)
		json_object_set_new(o, e->kv[i].key, json_string(e->kv[i].value));
	return o;
}

static json_t *arm_json(const struct cert_arm *a)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "kind", a->kind, "name", a->name, "function",
			 a->function, "build_commit", a->build_commit, "path", a->path, "sha256", a->sha256, "detail",
			 a->detail, "shortcut", a->shortcut, "section", a->section ? a->section : "");
}

static json_t *sig_json(const struct cert_entry *e)
{
	const struct cert_sig *s = &e->sig;
	char eps[32];
	json_t *axes = json_array(), *shape = json_array(), *dtypes = json_object();
	for (int i = 0; axes && shape && i < s->rank; i++) {
		json_array_append_new(axes, json_string(s->axes[i]));
		json_array_append_new(shape, json_integer(s->shape[i]));
	}
	for (int i = 0; dtypes && i < e->n_tensors; i++)
		json_object_set_new(dtypes, e->tensors[i].name, json_string(e->tensors[i].dtype));
	cert_eps_text(s->eps, eps, sizeof eps);
	return json_pack("{s:o, s:o, s:s, s:s, s:o, s:s, s:b}", "axes", axes, "shape", shape, "shape_text",
			 e->shape_text, "dtype", s->dtype, "dtypes", dtypes, "eps", eps, "affine", s->affine);
}

static json_t *outputs_json(const struct cert_entry *e)
{
	json_t *a = json_array();
	for (int i = 0; a && i < e->n_outputs; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:I}", "tensor", e->outputs[i].tensor, "md5",
						   e->outputs[i].md5, "bytes", (json_int_t)e->outputs[i].bytes));
	return a;
}

static json_t *entry_json(const struct cert_entry *e)
{
	json_t *site = json_pack("{s:s, s:b, s:s, s:s}", "name", e->sig.site, "builtin", e->builtin_site, "sha256",
				 e->site_sha256, "text", e->site_text ? e->site_text : "");
	json_t *inputs = json_pack("{s:s, s:o, s:s, s:s}", "seed", e->seed, "kinds", str_list(e->input_kinds),
				   "description", e->input_desc, "ini", e->input_ini ? e->input_ini : "");
	json_t *arms = json_pack("{s:o, s:o}", "a", arm_json(&e->arm[0]), "b", arm_json(&e->arm[1]));
	return json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "run", e->run, "case", e->case_name,
			 "sweep", e->sweep, "sweep_axis", e->sweep_axis, "site", site, "signature", sig_json(e), "inputs",
			 inputs, "arms", arms, "env", env_json(&e->env), "outputs", outputs_json(e));
}

static json_t *run_json(const struct cert_run *r)
{
	json_t *ids = json_array();
	for (int i = 0; ids && i < r->n_ids; i++)
		json_array_append_new(ids, json_integer(r->ids[i]));
	return json_pack("{s:o, s:s, s:s, s:s, s:s, s:s, s:b, s:s}", "run_ids", ids, "run_set", r->run_set, "scenario",
			 r->scenario, "scenario_hash", r->scenario_hash, "scenario_dir", r->scenario_dir, "backend",
			 r->backend, "fake_timer", r->fake_timer, "git_commit", r->git_commit);
}

static json_t *excluded_json(const struct cert_excluded *x)
{
	return json_pack("{s:i, s:s, s:s, s:s, s:s}", "run", x->run, "case", x->case_name, "site", x->site,
			 "shape_text", x->shape_text, "reason", x->reason);
}

/* The document without its sha256; NULL when out of memory (json_pack
 * gives NULL for a NULL member, so one failure anywhere reaches here). */
static json_t *cert_json(const struct cert *c)
{
	json_t *runs = json_array(), *entries = json_array(), *excluded = json_array();
	for (int i = 0; runs && i < c->n_runs; i++)
		if (json_array_append_new(runs, run_json(&c->runs[i])))
			json_decref(runs), runs = NULL;
	for (int i = 0; entries && i < c->n_entries; i++)
		if (json_array_append_new(entries, entry_json(&c->entries[i])))
			json_decref(entries), entries = NULL;
	for (int i = 0; excluded && i < c->n_excluded; i++)
		if (json_array_append_new(excluded, excluded_json(&c->excluded[i])))
			json_decref(excluded), excluded = NULL;
	json_t *issuer = json_pack("{s:s, s:s}", "version", c->issuer_version, "git_commit", c->issuer_commit);
	return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o}", "format", CERT_FORMAT, "format_version", CERT_FORMAT_VERSION,
			 "abbench", issuer, "runs", runs, "entries", entries, "excluded", excluded);
}

#define CANONICAL_FLAGS (JSON_COMPACT | JSON_SORT_KEYS)

/* sha256 of the canonical form of doc (which holds no "sha256" member). */
static enum ab_rc canonical_sha256(const json_t *doc, char out[65], struct ab_diag *d)
{
	char *text = json_dumps(doc, CANONICAL_FLAGS);
	if (!text)
		return ab_fail(d, AB_ERR_NOMEM, "cannot write the certificate's canonical form");
	enum ab_rc rc = digest_sha256_hex(text, strlen(text), out, d);
	free(text);
	return rc;
}


/* The sha256 of c's canonical form, into sha: cert_seal's, and the one
 * cert_parse holds the stored seal against. */
static enum ab_rc canonical_of(const struct cert *c, char sha[65], struct ab_diag *d)
{
	json_t *doc = cert_json(c);
	if (!doc)
		return ab_fail(d, AB_ERR_NOMEM, "cannot build the certificate");
	enum ab_rc rc = canonical_sha256(doc, sha, d);
	json_decref(doc);
	return rc;
}

enum ab_rc cert_seal(struct cert *c, struct ab_diag *d)
{
	return canonical_of(c, c->sha256, d);
}

enum ab_rc cert_write(const struct cert *c, bool canonical, char **out, struct ab_diag *d)
{
	json_t *doc = cert_json(c);
	*out = NULL;
	if (doc && !canonical)
		json_object_set_new(doc, "sha256", json_string(c->sha256));
	char *text = doc ? json_dumps(doc, canonical ? CANONICAL_FLAGS : JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	json_decref(doc);
	size_t n = text ? strlen(text) : 0;
	char *t = text ? realloc(text, n + 2) : NULL;
	if (!t) {
		free(text);
		return ab_fail(d, AB_ERR_NOMEM, "cannot write the certificate");
	}
	memcpy(t + n, "\n", 2);
	*out = t;
	return AB_OK;
}

/* ---- reading ------------------------------------------------------------------ */

/* A reader's state: the certificate's name for messages, the first error. */
struct rd {
	const char *name;
	struct ab_diag *d;
	enum ab_rc rc;
};

__attribute__((format(printf, 3, 4))) static bool rd_fail(struct rd *r, const char *at, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!r->rc)
		r->rc = ab_fail(r->d, AB_ERR_INPUT, "certificate '%s': %s%s%s", r->name, at, at[0] ? ": " : "", msg);
	return false;
}

static const char *type_name(const json_t *v)
{
	static const char *const names[] = { "an object", "an array", "a string", "an integer", "a real", "true", "false",
					     "null" };
	return names[json_typeof(v)];
}

/* obj has exactly the members of keys (NULL-terminated). */
static bool only_keys(struct rd *r, const json_t *obj, const char *at, const char *const *keys)
{
	const char *k;
	json_t *v;
	if (!json_is_object(obj))
		return rd_fail(r, at, "expected an object, found %s", type_name(obj));
	json_object_foreach ((json_t *)obj, k, v) {
		bool known = false;
		for (int i = 0; keys[i] && !known; i++)
			known = !strcmp(k, keys[i]);
		if (!known)
			return rd_fail(r, at, "unknown member '%.60s'", k);
	}
	for (int i = 0; keys[i]; i++)
		if (!json_object_get(obj, keys[i]))
			return rd_fail(r, at, "missing member '%s'", keys[i]);
	return true;
}

static const json_t *typed(struct rd *r, const json_t *obj, const char *at, const char *key, json_type type)
{
	const json_t *v = json_object_get(obj, key);
	static const char *const want[] = { "an object", "an array", "a string", "an integer" };
	if (!v || json_typeof(v) != type) {
		char where[200];
		snprintf(where, sizeof where, "%s%s%s", at, at[0] ? "." : "", key);
		rd_fail(r, where, "expected %s, found %s", want[type], v ? type_name(v) : "nothing");
		return NULL;
	}
	return v;
}

static bool get_str(struct rd *r, const json_t *obj, const char *at, const char *key, char *buf, size_t cap)
{
	const json_t *v = typed(r, obj, at, key, JSON_STRING);
	if (!v)
		return false;
	if (json_string_length(v) >= cap || strlen(json_string_value(v)) != json_string_length(v))
		return rd_fail(r, at, "'%s' is longer than %zu bytes or holds a NUL", key, cap - 1);
	snprintf(buf, cap, "%s", json_string_value(v));
	return true;
}

static char *get_text(struct rd *r, const json_t *obj, const char *at, const char *key)
{
	const json_t *v = typed(r, obj, at, key, JSON_STRING);
	if (!v)
		return NULL;
	if (json_string_length(v) >= CERT_TEXT_MAX || strlen(json_string_value(v)) != json_string_length(v)) {
		rd_fail(r, at, "'%s' is longer than %d bytes or holds a NUL", key, CERT_TEXT_MAX - 1);
		return NULL;
	}
	char *t = strdup(json_string_value(v));
	if (!t && !r->rc)
		r->rc = ab_fail(r->d, AB_ERR_NOMEM, "out of memory reading certificate '%s'", r->name);
	return t;
}

static bool get_int(struct rd *r, const json_t *obj, const char *at, const char *key, int64_t lo, int64_t hi,
		    int64_t *out)
{
	const json_t *v = typed(r, obj, at, key, JSON_INTEGER);
	if (!v)
		return false;
	*out = json_integer_value(v);
	return (*out >= lo && *out <= hi) || rd_fail(r, at, "'%s' is %lld, not %lld to %lld", key, (long long)*out,
						     (long long)lo, (long long)hi);
}

static bool get_bool(struct rd *r, const json_t *obj, const char *at, const char *key, bool *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!json_is_boolean(v))
		return rd_fail(r, at, "'%s' must be true or false", key);
	*out = json_is_true(v);
	return true;
}

static bool read_env(struct rd *r, const json_t *obj, const char *at, struct cert_env *e)
{
	const char *k;
	json_t *v;
	memset(e, 0, sizeof *e);
	if (!json_is_object(obj))
		return rd_fail(r, at, "expected an object");
	json_object_foreach ((json_t *)obj, k, v)
		if (!json_is_string(v) || !cert_env_set(e, k, json_string_value(v)))
			return rd_fail(r, at, "'%.40s' must be a string (at most %d keys of 31 bytes, values of 127)", k,
				       CERT_MAX_ENV);
	cert_env_sort(e);
	return true;
}

static bool read_arm(struct rd *r, const json_t *o, const char *at, struct cert_arm *a)
{
	static const char *const keys[] = { "kind", "name", "function", "build_commit", "path", "sha256", "detail",
					    "shortcut", "section", NULL };
	static const char *const kinds[] = { "builtin", "plugin", "cubin", "python", NULL };
	if (!only_keys(r, o, at, keys) || !get_str(r, o, at, "kind", a->kind, sizeof a->kind) ||
	    !get_str(r, o, at, "name", a->name, sizeof a->name) ||
	    !get_str(r, o, at, "function", a->function, sizeof a->function) ||
	    !get_str(r, o, at, "build_commit", a->build_commit, sizeof a->build_commit) ||
	    !get_str(r, o, at, "path", a->path, sizeof a->path) || !get_str(r, o, at, "sha256", a->sha256, sizeof a->sha256) ||
	    !get_str(r, o, at, "detail", a->detail, sizeof a->detail) ||
	    !get_str(r, o, at, "shortcut", a->shortcut, sizeof a->shortcut) || !(a->section = get_text(r, o, at, "section")))
		return false;
	for (int i = 0; kinds[i]; i++)
		if (!strcmp(kinds[i], a->kind))
			return true;
	return rd_fail(r, at, "kind '%.20s' is none of builtin, plugin, cubin, python", a->kind);
}

static bool read_sig(struct rd *r, const json_t *o, const char *at, struct cert_entry *e)
{
	static const char *const keys[] = { "axes", "shape", "shape_text", "dtype", "dtypes", "eps", "affine", NULL };
	char eps[32], *end;
	const json_t *axes, *shape, *dtypes, *v;
	const char *k;
	if (!only_keys(r, o, at, keys) || !(axes = typed(r, o, at, "axes", JSON_ARRAY)) ||
	    !(shape = typed(r, o, at, "shape", JSON_ARRAY)) || !(dtypes = typed(r, o, at, "dtypes", JSON_OBJECT)) ||
	    !get_str(r, o, at, "shape_text", e->shape_text, sizeof e->shape_text) ||
	    !get_str(r, o, at, "dtype", e->sig.dtype, sizeof e->sig.dtype) || !get_str(r, o, at, "eps", eps, sizeof eps) ||
	    !get_bool(r, o, at, "affine", &e->sig.affine))
		return false;
	e->sig.eps = strtod(eps, &end);
	if (!eps[0] || *end || !isfinite(e->sig.eps) || e->sig.eps <= 0)
		return rd_fail(r, at, "eps '%s' is not a positive number", eps);
	/* The seal covers the text as issued and cert_write writes eps back
	   from the number: a spelling the writer would not give (1.0e-5 for
	   1e-05) would change the content under an unchanged seal. */
	char canon[32];
	cert_eps_text(e->sig.eps, canon, sizeof canon);
	if (strcmp(canon, eps))
		return rd_fail(r, at, "eps '%s' is not as abbench writes it ('%s')", eps, canon);
	e->sig.rank = (int)json_array_size(axes);
	if (e->sig.rank < 1 || e->sig.rank > CERT_MAX_RANK || json_array_size(shape) != (size_t)e->sig.rank)
		return rd_fail(r, at, "axes and shape must be lists of 1 to %d, as long as each other", CERT_MAX_RANK);
	for (int i = 0; i < e->sig.rank; i++) {
		const json_t *a = json_array_get(axes, (size_t)i), *s = json_array_get(shape, (size_t)i);
		if (!json_is_string(a) || json_string_length(a) >= sizeof e->sig.axes[i] || !json_is_integer(s) ||
		    json_integer_value(s) < 1)
			return rd_fail(r, at, "axis %d must be a name with a positive integer", i);
		snprintf(e->sig.axes[i], sizeof e->sig.axes[i], "%s", json_string_value(a));
		e->sig.shape[i] = json_integer_value(s);
	}
	json_object_foreach ((json_t *)dtypes, k, v) {
		if (e->n_tensors == CERT_MAX_TENSORS || !json_is_string(v) || strlen(k) >= sizeof e->tensors[0].name ||
		    json_string_length(v) >= sizeof e->tensors[0].dtype)
			return rd_fail(r, at, "dtypes: '%.40s' must name a dtype (at most %d tensors)", k, CERT_MAX_TENSORS);
		snprintf(e->tensors[e->n_tensors].name, sizeof e->tensors[0].name, "%s", k);
		snprintf(e->tensors[e->n_tensors++].dtype, sizeof e->tensors[0].dtype, "%s", json_string_value(v));
	}
	return true;
}

static bool read_words(struct rd *r, const json_t *list, const char *at, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *w = json_array_get(list, i);
		size_t used = strlen(buf);
		if (!json_is_string(w) || strchr(json_string_value(w), ' ') ||
		    used + json_string_length(w) + 2 > cap)
			return rd_fail(r, at, "kinds must be words, at most %zu bytes in all", cap - 1);
		snprintf(buf + used, cap - used, "%s%s", used ? " " : "", json_string_value(w));
	}
	return true;
}

static bool read_inputs(struct rd *r, const json_t *o, const char *at, struct cert_entry *e)
{
	static const char *const keys[] = { "seed", "kinds", "description", "ini", NULL };
	const json_t *kinds;
	return only_keys(r, o, at, keys) && get_str(r, o, at, "seed", e->seed, sizeof e->seed) &&
	       (kinds = typed(r, o, at, "kinds", JSON_ARRAY)) && read_words(r, kinds, at, e->input_kinds, sizeof e->input_kinds) &&
	       get_str(r, o, at, "description", e->input_desc, sizeof e->input_desc) &&
	       (e->input_ini = get_text(r, o, at, "ini")) != NULL;
}

static bool read_site(struct rd *r, const json_t *o, const char *at, struct cert_entry *e)
{
	static const char *const keys[] = { "name", "builtin", "sha256", "text", NULL };
	return only_keys(r, o, at, keys) && get_str(r, o, at, "name", e->sig.site, sizeof e->sig.site) &&
	       get_bool(r, o, at, "builtin", &e->builtin_site) &&
	       get_str(r, o, at, "sha256", e->site_sha256, sizeof e->site_sha256) &&
	       (e->site_text = get_text(r, o, at, "text")) != NULL;
}

static bool read_outputs(struct rd *r, const json_t *list, const char *at, struct cert_entry *e)
{
	static const char *const keys[] = { "tensor", "md5", "bytes", NULL };
	if (json_array_size(list) < 1 || json_array_size(list) > RESULTS_MAX_OUTPUTS)
		return rd_fail(r, at, "outputs must list 1 to %d outputs", RESULTS_MAX_OUTPUTS);
	for (size_t i = 0; i < json_array_size(list); i++) {
		const json_t *o = json_array_get(list, i);
		struct cert_output *out = &e->outputs[e->n_outputs++];
		char here[240];
		snprintf(here, sizeof here, "%.200s[%zu]", at, i);
		if (!only_keys(r, o, here, keys) || !get_str(r, o, here, "tensor", out->tensor, sizeof out->tensor) ||
		    !get_str(r, o, here, "md5", out->md5, sizeof out->md5) ||
		    !get_int(r, o, here, "bytes", 0, INT64_MAX, &out->bytes))
			return false;
	}
	return true;
}

static bool read_entry(struct rd *r, const json_t *o, const char *at, int n_runs, struct cert_entry *e)
{
	static const char *const keys[] = { "run",    "case",   "sweep", "sweep_axis", "site",    "signature",
					    "inputs", "arms",   "env",   "outputs",    NULL };
	char here[200];
	int64_t run;
	const json_t *arms, *outs;
	if (!only_keys(r, o, at, keys) || !get_int(r, o, at, "run", 0, n_runs - 1, &run) ||
	    !get_str(r, o, at, "case", e->case_name, sizeof e->case_name) ||
	    !get_str(r, o, at, "sweep", e->sweep, sizeof e->sweep) ||
	    !get_str(r, o, at, "sweep_axis", e->sweep_axis, sizeof e->sweep_axis))
		return false;
	e->run = (int)run;
	snprintf(here, sizeof here, "%s.site", at);
	if (!read_site(r, json_object_get(o, "site"), here, e))
		return false;
	snprintf(here, sizeof here, "%s.signature", at);
	if (!read_sig(r, json_object_get(o, "signature"), here, e))
		return false;
	snprintf(here, sizeof here, "%s.inputs", at);
	if (!read_inputs(r, json_object_get(o, "inputs"), here, e))
		return false;
	snprintf(here, sizeof here, "%s.env", at);
	if (!read_env(r, json_object_get(o, "env"), here, &e->env))
		return false;
	static const char *const sides[] = { "a", "b", NULL };
	if (!(arms = typed(r, o, at, "arms", JSON_OBJECT)) || !only_keys(r, arms, at, sides))
		return false;
	for (int j = 0; j < 2; j++) {
		snprintf(here, sizeof here, "%s.arms.%s", at, sides[j]);
		if (!read_arm(r, json_object_get(arms, sides[j]), here, &e->arm[j]))
			return false;
	}
	snprintf(here, sizeof here, "%s.outputs", at);
	return (outs = typed(r, o, at, "outputs", JSON_ARRAY)) && read_outputs(r, outs, here, e);
}

static bool read_run(struct rd *r, const json_t *o, const char *at, struct cert_run *run)
{
	static const char *const keys[] = { "run_ids",      "run_set", "scenario",   "scenario_hash",
					    "scenario_dir", "backend", "fake_timer", "git_commit", NULL };
	const json_t *ids;
	if (!only_keys(r, o, at, keys) || !(ids = typed(r, o, at, "run_ids", JSON_ARRAY)) ||
	    !get_str(r, o, at, "run_set", run->run_set, sizeof run->run_set) ||
	    !get_str(r, o, at, "scenario", run->scenario, sizeof run->scenario) ||
	    !get_str(r, o, at, "scenario_hash", run->scenario_hash, sizeof run->scenario_hash) ||
	    !get_str(r, o, at, "scenario_dir", run->scenario_dir, sizeof run->scenario_dir) ||
	    !get_str(r, o, at, "backend", run->backend, sizeof run->backend) ||
	    !get_bool(r, o, at, "fake_timer", &run->fake_timer) ||
	    !get_str(r, o, at, "git_commit", run->git_commit, sizeof run->git_commit))
		return false;
	size_t n = json_array_size(ids);
	if (n < 1 || n > 4096)
		return rd_fail(r, at, "run_ids must list 1 to 4096 runs");
	if (!(run->ids = calloc(n, sizeof *run->ids)))
		return rd_fail(r, at, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_array_get(ids, i);
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return rd_fail(r, at, "run_ids[%zu] must be a positive integer", i);
		run->ids[run->n_ids++] = json_integer_value(v);
	}
	return true;
}

static bool read_excluded(struct rd *r, const json_t *o, const char *at, int n_runs, struct cert_excluded *x)
{
	static const char *const keys[] = { "run", "case", "site", "shape_text", "reason", NULL };
	int64_t run;
	if (!only_keys(r, o, at, keys) || !get_int(r, o, at, "run", 0, n_runs - 1, &run) ||
	    !get_str(r, o, at, "case", x->case_name, sizeof x->case_name) ||
	    !get_str(r, o, at, "site", x->site, sizeof x->site) ||
	    !get_str(r, o, at, "shape_text", x->shape_text, sizeof x->shape_text) ||
	    !get_str(r, o, at, "reason", x->reason, sizeof x->reason))
		return false;
	x->run = (int)run;
	return true;
}

/* Each element of root's member key through one of the readers above. */
static bool read_list(struct rd *r, const json_t *root, const char *key, struct cert *c)
{
	const json_t *list = typed(r, root, "", key, JSON_ARRAY);
	for (size_t i = 0; list && i < json_array_size(list); i++) {
		char at[64];
		const json_t *o = json_array_get(list, i);
		snprintf(at, sizeof at, "%s[%zu]", key, i);
		bool ok;
		if (!strcmp(key, "runs")) {
			struct cert_run *run = cert_add_run(c);
			ok = run && read_run(r, o, at, run);
		} else if (!strcmp(key, "entries")) {
			struct cert_entry *e = cert_add_entry(c);
			ok = e && read_entry(r, o, at, c->n_runs, e);
		} else {
			struct cert_excluded *x = cert_add_excluded(c);
			ok = x && read_excluded(r, o, at, c->n_runs, x);
		}
		if (!ok) {
			if (!r->rc)
				rd_fail(r, at, "out of memory");
			return false;
		}
	}
	return list != NULL;
}

/* No real number anywhere: the canonical form must be rebuilt byte for
 * byte by any reader, and reals have no one text. */
static bool no_reals(struct rd *r, const json_t *v)
{
	const char *k;
	json_t *m;
	size_t i;
	if (json_is_real(v))
		return rd_fail(r, "", "holds a real number (%g): a certificate has none", json_real_value(v));
	if (json_is_object(v))
		json_object_foreach ((json_t *)v, k, m)
			if (!no_reals(r, m))
				return false;
	if (json_is_array(v))
		json_array_foreach (v, i, m)
			if (!no_reals(r, m))
				return false;
	return true;
}

static bool read_doc(struct rd *r, json_t *root, struct cert *c)
{
	static const char *const keys[] = { "format", "format_version", "abbench", "runs", "entries", "excluded", "sha256",
					    NULL };
	static const char *const issuer_keys[] = { "version", "git_commit", NULL };
	char format[40];
	int64_t version;
	const json_t *issuer;
	if (!json_is_object(root))
		return rd_fail(r, "", "not a JSON object");
	if (!get_str(r, root, "", "format", format, sizeof format))
		return false;
	if (strcmp(format, CERT_FORMAT))
		return rd_fail(r, "", "format is '%s', not '%s'", format, CERT_FORMAT);
	if (!get_int(r, root, "", "format_version", CERT_FORMAT_VERSION, CERT_FORMAT_VERSION, &version) ||
	    !only_keys(r, root, "", keys) || !no_reals(r, root) || !get_str(r, root, "", "sha256", c->sha256, sizeof c->sha256) ||
	    !(issuer = typed(r, root, "", "abbench", JSON_OBJECT)) || !only_keys(r, issuer, "abbench", issuer_keys) ||
	    !get_str(r, issuer, "abbench", "version", c->issuer_version, sizeof c->issuer_version) ||
	    !get_str(r, issuer, "abbench", "git_commit", c->issuer_commit, sizeof c->issuer_commit))
		return false;
	return read_list(r, root, "runs", c) && read_list(r, root, "entries", c) && read_list(r, root, "excluded", c);
}

enum ab_rc cert_parse(const char *text, size_t len, const char *name, struct cert *out, struct ab_diag *d)
{
	struct rd r = { .name = name, .d = d };
	json_error_t err;
	char sha[65];
	memset(out, 0, sizeof *out);
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!root)
		return ab_fail(d, AB_ERR_INPUT, "certificate '%s': line %d: %s", name, err.line, err.text);
	if (read_doc(&r, root, out)) {
		/* The seal is checked against the certificate as read back (what
		 * --check and coverage use and cert_write writes), not the text:
		 * a member the reader takes in another spelling than the writer
		 * gives cannot change the content under an unchanged seal. */
		r.rc = canonical_of(out, sha, d);
		if (!r.rc && strcmp(sha, out->sha256))
			r.rc = ab_fail(d, AB_ERR_INPUT,
				       "certificate '%s': its sha256 %.16s... is not that of its content (%.16s...): it was "
				       "changed after it was issued; certify the runs again",
				       name, out->sha256, sha);
	}
	json_decref(root);
	if (r.rc)
		cert_free(out);
	return r.rc;
}
