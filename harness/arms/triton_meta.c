/*
 * triton_meta.c - Triton's kernel metadata JSON (triton_meta.h), read with
 * jansson (linked statically, as for abbench's own JSON output).
 */
#include "arms/triton_meta.h"
#include "common/diag.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* An integer member in [lo, hi]; absent is an error when required, else
 * *present is false and *out keeps its value. */
static bool get_int(const json_t *obj, const char *key, bool required, int64_t lo, int64_t hi, int64_t *out,
		    bool *present, char *err, size_t len)
{
	const json_t *v = json_object_get(obj, key);
	if (present)
		*present = v != NULL;
	if (!v)
		return required ? ab_fail_text(err, len, "no '%s' in the metadata", key) : true;
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!(x >= (double)lo && x <= (double)hi) || x != floor(x))
		return ab_fail_text(err, len, "'%s' is not an integer from %lld to %lld", key, (long long)lo, (long long)hi);
	*out = (int64_t)x;
	return true;
}

static bool get_str(const json_t *obj, const char *key, bool required, char *out, size_t cap, char *err, size_t len)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return required ? ab_fail_text(err, len, "no '%s' in the metadata", key) : true;
	const char *str = json_string_value(v);
	if (!str || !str[0] || strlen(str) >= cap)
		return ab_fail_text(err, len, "'%s' is not a string of 1 to %zu characters", key, cap - 1);
	memcpy(out, str, strlen(str) + 1);
	return true;
}

static bool get_bool(const json_t *obj, const char *key, bool *out, char *err, size_t len)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return true;
	if (!json_is_boolean(v))
		return ab_fail_text(err, len, "'%s' is not true or false", key);
	*out = json_is_true(v);
	return true;
}

static bool read_target(const json_t *root, struct triton_meta *m, char *err, size_t len)
{
	const json_t *t = json_object_get(root, "target");
	int64_t arch = 0, warp = 32;
	if (!json_is_object(t))
		return ab_fail_text(err, len, "no 'target' object in the metadata");
	if (!get_str(t, "backend", true, m->backend, sizeof m->backend, err, len))
		return false;
	if (strcmp(m->backend, "cuda") != 0)
		return ab_fail_text(err, len, "target backend '%s': abbench runs cuda kernels only", m->backend);
	if (!get_int(t, "arch", true, 1, 1000, &arch, NULL, err, len) ||
	    !get_int(t, "warp_size", false, 1, 1024, &warp, NULL, err, len))
		return false;
	m->arch = (int)arch;
	m->warp_size = (int)warp;
	return true;
}

static bool read_scratch(const json_t *root, struct triton_meta *m, char *err, size_t len)
{
	int64_t big = (int64_t)1 << 40;
	m->global_scratch_align = m->profile_scratch_align = 1;
	return get_int(root, "global_scratch_size", false, 0, big, &m->global_scratch_size, &m->has_global_scratch,
		       err, len) &&
	       get_int(root, "global_scratch_align", false, 1, 1 << 20, &m->global_scratch_align, NULL, err, len) &&
	       get_int(root, "profile_scratch_size", false, 0, big, &m->profile_scratch_size, &m->has_profile_scratch,
		       err, len) &&
	       get_int(root, "profile_scratch_align", false, 1, 1 << 20, &m->profile_scratch_align, NULL, err, len);
}

static bool read_all(const json_t *root, struct triton_meta *m, char *err, size_t len)
{
	int64_t warps = 0, ctas = 1, shared = 0;
	if (!json_is_object(root))
		return ab_fail_text(err, len, "the metadata is not a JSON object");
	if (!get_str(root, "name", true, m->name, sizeof m->name, err, len) ||
	    !get_int(root, "num_warps", true, 1, 32, &warps, NULL, err, len) ||
	    !get_int(root, "num_ctas", false, 1, 64, &ctas, NULL, err, len) ||
	    !get_int(root, "shared", true, 0, 1 << 30, &shared, NULL, err, len) || !read_target(root, m, err, len) ||
	    !read_scratch(root, m, err, len) || !get_bool(root, "launch_cooperative_grid", &m->cooperative, err, len) ||
	    !get_bool(root, "launch_pdl", &m->pdl, err, len) ||
	    !get_str(root, "triton_version", false, m->version, sizeof m->version, err, len))
		return false;
	m->num_warps = (int)warps;
	m->num_ctas = (int)ctas;
	m->shared = (int)shared;
	if (m->num_ctas != 1)
		return ab_fail_text(err, len, "num_ctas = %d: cluster launches are not supported", m->num_ctas);
	if (m->cooperative)
		return ab_fail_text(err, len, "launch_cooperative_grid: cooperative launches are not supported");
	return true;
}

bool triton_meta_parse(const char *text, struct triton_meta *out, char *err, size_t len)
{
	json_error_t je;
	memset(out, 0, sizeof *out);
	json_t *root = json_loads(text, JSON_DECODE_ANY, &je);
	if (!root)
		return ab_fail_text(err, len, "not valid JSON (line %d: %s)", je.line, je.text);
	bool ok = read_all(root, out, err, len);
	json_decref(root);
	return ok;
}

int triton_meta_scratch_params(const struct triton_meta *m)
{
	return (int)m->has_global_scratch + (int)m->has_profile_scratch;
}
