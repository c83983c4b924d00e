/*
 * cert_sig.c - signatures as a model logs them (cert.h): one JSON object
 * a line, read with jansson, and the rule of when two are the same.
 */
#include "common/cert.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

const char *const cert_judged_keys[] = { "compute_capability", "torch", "triton", NULL };

bool cert_sig_equal(const struct cert_sig *a, const struct cert_sig *b)
{
	if (strcmp(a->site, b->site) || strcmp(a->dtype, b->dtype) || a->eps != b->eps || a->affine != b->affine ||
	    a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->shape[i] != b->shape[i])
			return false;
	return true;
}

static bool read_shape(const json_t *v, struct cert_sig *s, char *why, size_t len)
{
	size_t n = json_array_size(v);
	if (!json_is_array(v) || n < 1 || n > CERT_MAX_RANK)
		return ab_fail_text(why, len, "shape: expected a list of 1 to %d positive integers", CERT_MAX_RANK);
	s->rank = (int)n;
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_array_get(v, i);
		if (!json_is_integer(x) || json_integer_value(x) < 1)
			return ab_fail_text(why, len, "shape: expected a list of 1 to %d positive integers", CERT_MAX_RANK);
		s->shape[i] = json_integer_value(x);
	}
	return true;
}

static bool read_text(const json_t *o, const char *key, char *buf, size_t cap, char *why, size_t len)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= cap ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return ab_fail_text(why, len, "%s: expected a name of 1 to %zu bytes", key, cap - 1);
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return true;
}

static bool read_env(const json_t *v, struct cert_env *e, char *why, size_t len)
{
	const char *k;
	json_t *x;
	if (!v)
		return true;
	if (!json_is_object(v))
		return ab_fail_text(why, len, "env: expected an object of strings");
	json_object_foreach ((json_t *)v, k, x)
		if (!json_is_string(x) || !cert_env_set(e, k, json_string_value(x)))
			return ab_fail_text(why, len, "env: '%.40s' must be a string (at most %d keys of 31 bytes, values of 127)",
					    k, CERT_MAX_ENV);
	cert_env_sort(e);
	return true;
}

static bool read_line(const json_t *o, struct cert_logged *out, char *why, size_t len)
{
	const json_t *eps = json_object_get(o, "eps"), *affine = json_object_get(o, "affine"),
		     *count = json_object_get(o, "count");
	if (!json_is_object(o))
		return ab_fail_text(why, len, "expected a JSON object");
	if (!read_text(o, "site", out->sig.site, sizeof out->sig.site, why, len) ||
	    !read_text(o, "dtype", out->sig.dtype, sizeof out->sig.dtype, why, len) ||
	    !read_shape(json_object_get(o, "shape"), &out->sig, why, len) || !read_env(json_object_get(o, "env"), &out->env, why, len))
		return false;
	if (!json_is_number(eps) || !isfinite(json_number_value(eps)) || json_number_value(eps) <= 0)
		return ab_fail_text(why, len, "eps: expected a positive number");
	if (!json_is_boolean(affine))
		return ab_fail_text(why, len, "affine: expected true or false");
	if (count && (!json_is_integer(count) || json_integer_value(count) < 1))
		return ab_fail_text(why, len, "count: expected a positive integer");
	out->sig.eps = json_number_value(eps);
	out->sig.affine = json_is_true(affine);
	out->count = count ? json_integer_value(count) : 1;
	return true;
}

bool cert_logged_parse(const char *line, size_t len, struct cert_logged *out, char *why, size_t why_len)
{
	json_error_t err;
	memset(out, 0, sizeof *out);
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	if (!o)
		return ab_fail_text(why, why_len, "%s (column %d)", err.text, err.column);
	bool ok = read_line(o, out, why, why_len);
	json_decref(o);
	return ok;
}
