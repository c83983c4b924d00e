/*
 * results_check.c - what a stored run may hold (results_check.h), as
 * tables: each structure's text fields and integer fields with their
 * ranges, found by name, so that a new field is one line here beside its
 * column in the store.
 */
#include "common/results_check.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/diag.h"
#include "common/utf8.h"

/* A fixed char array of a structure. */
struct text_field {
	const char *name;
	size_t off, cap;
};

/* An int or int64_t member of a structure and its range. */
struct int_field {
	const char *name;
	size_t off, size;
	int64_t lo, hi;
};

#define TEXT(type, f) { #f, offsetof(type, f), sizeof(((type *)0)->f) }
#define INT(type, f, lo, hi) { #f, offsetof(type, f), sizeof(((type *)0)->f), (lo), (hi) }
#define INT_AS(column, type, f, lo, hi) { column, offsetof(type, f), sizeof(((type *)0)->f), (lo), (hi) }
#define NONNEG(type, f) INT(type, f, 0, sizeof(((type *)0)->f) == sizeof(int) ? INT_MAX : INT64_MAX)

bool results_check_text(const char *name, const char *s, size_t n, size_t cap, char *why, size_t len)
{
	size_t at = 0;
	if (memchr(s, '\0', n))
		return ab_fail_text(why, len, "%s holds a NUL byte", name);
	if (cap && n >= cap)
		return ab_fail_text(why, len, "%s is %zu bytes long, more than %zu", name, n, cap - 1);
	if (!utf8_valid(s, n, &at))
		return ab_fail_text(why, len, "%s is not valid UTF-8 (byte %zu)", name, at);
	return true;
}

void results_check_fit(char *dst, size_t cap, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t used = 0;
	if (!cap)
		return;
	while (*p) {
		int n = utf8_seq_len(p, strnlen((const char *)p, 4));
		char esc[5];
		const char *piece = (const char *)p;
		size_t len = (size_t)n;
		if (n == 0) {
			snprintf(esc, sizeof esc, "\\x%02X", *p);
			piece = esc;
			len = 4;
			n = 1;
		}
		if (used + len >= cap)
			break;
		memcpy(dst + used, piece, len);
		used += len;
		p += n;
	}
	dst[used] = '\0';
}

static bool texts_ok(const void *base, const struct text_field *t, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = (const char *)base + t[i].off;
		if (!results_check_text(t[i].name, s, strnlen(s, t[i].cap), t[i].cap, why, len))
			return false;
	}
	return true;
}

static int64_t int_at(const void *base, const struct int_field *f)
{
	const char *p = (const char *)base + f->off;
	if (f->size == sizeof(int64_t)) {
		int64_t v;
		memcpy(&v, p, sizeof v);
		return v;
	}
	int v;
	memcpy(&v, p, sizeof v);
	return v;
}

static bool ints_ok(const void *base, const struct int_field *k, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		int64_t v = int_at(base, &k[i]);
		if (v < k[i].lo || v > k[i].hi)
			return ab_fail_text(why, len, "%s is %lld, not %lld to %lld", k[i].name, (long long)v,
					    (long long)k[i].lo, (long long)k[i].hi);
	}
	return true;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FIELDS_OK(base, texts, ints, why, len) \
	(texts_ok((base), (texts), N(texts), (why), (len)) && ints_ok((base), (ints), N(ints), (why), (len)))

/* s is one of the words of the NULL-terminated list. */
static bool one_of(const char *name, const char *s, const char *const *words, char *why, size_t len)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return true;
	return ab_fail_text(why, len, "%s '%s' is none of the known ones", name, s);
}

static bool arm_ok(const char *name, char arm, char *why, size_t len)
{
	return arm == 'a' || arm == 'b' ||
	       ab_fail_text(why, len, "%s is '%c' (0x%02X), not 'a' or 'b'", name, isprint((unsigned char)arm) ? arm : '?',
			    (unsigned char)arm);
}

/* A malloc'd text (NULL for none): valid UTF-8, no length limit. */
static bool long_text_ok(const char *name, const char *s, char *why, size_t len)
{
	return !s || results_check_text(name, s, strlen(s), 0, why, len);
}

/* One KEY=VALUE word of an env text: its key's length, 0 when it is not one. */
static size_t env_word(const char *w, size_t n)
{
	size_t k = 0;
	while (k < n && (islower((unsigned char)w[k]) || isdigit((unsigned char)w[k]) || w[k] == '_'))
		k++;
	if (k == 0 || k > 31 || k + 1 >= n || w[k] != '=')
		return 0;
	for (size_t i = k + 1; i < n; i++)
		if (!isgraph((unsigned char)w[i]) || w[i] == '=' || w[i] == '"')
			return 0;
	return k;
}

bool results_check_env(const char *name, const char *s, char *why, size_t len)
{
	for (const char *w = s; *w;) {
		size_t n = strcspn(w, " ");
		if (!env_word(w, n))
			return ab_fail_text(why, len, "%s: '%.*s' is not a KEY=VALUE word", name, (int)(n < 40 ? n : 40), w);
		w += n;
		if (*w == ' ' && !*++w)
			return ab_fail_text(why, len, "%s ends with a blank", name);
	}
	return true;
}

/* ---- one row each ---------------------------------------------------------- */

static const struct text_field run_texts[] = {
	TEXT(struct results_run, uuid),          TEXT(struct results_run, run_set),
	TEXT(struct results_run, started_at),    TEXT(struct results_run, finished_at),
	TEXT(struct results_run, status),        TEXT(struct results_run, error),
	TEXT(struct results_run, label),         TEXT(struct results_run, scenario_name),
	TEXT(struct results_run, scenario_path), TEXT(struct results_run, scenario_hash),
	TEXT(struct results_run, git_commit),    TEXT(struct results_run, host),
	TEXT(struct results_run, backend),       TEXT(struct results_run, version),
	TEXT(struct results_run, noise_measure), TEXT(struct results_run, bracket),
	TEXT(struct results_run, arm_a),         TEXT(struct results_run, arm_b),
	TEXT(struct results_run, launch_gaps),   TEXT(struct results_run, notes),
	TEXT(struct results_run, timing),
	TEXT(struct results_run, only_cases),    TEXT(struct results_run, env),
};

static const struct int_field run_ints[] = {
	INT(struct results_run, shard_index, 0, RESULTS_MAX_SHARDS),
	INT(struct results_run, shard_count, 0, RESULTS_MAX_SHARDS),
	NONNEG(struct results_run, device_index),
	NONNEG(struct results_run, steps),
	NONNEG(struct results_run, forwards_per_step),
	INT(struct results_run, n_arm_sources, 0, RESULTS_MAX_ARM_SOURCES),
	NONNEG(struct results_run, n_cases),
	NONNEG(struct results_run, cases_planned),
	NONNEG(struct results_run, resumed),
};

static bool bracket_ok(const char *b, char *why, size_t len)
{
	size_t n = strlen(b);
	if (n < 1 || n > RESULTS_MAX_SLOTS || strspn(b, "AB") != n)
		return ab_fail_text(why, len, "bracket '%s' is not 1 to %d letters A and B", b, RESULTS_MAX_SLOTS);
	return true;
}

bool results_check_run_row(const struct results_run *r, char *why, size_t len)
{
	static const char *const statuses[] = { "running", "ok", "failed", "interrupted", NULL };
	if (!FIELDS_OK(r, run_texts, run_ints, why, len) || !long_text_ok("scenario_text", r->scenario_text, why, len) ||
	    !long_text_ok("command_line", r->command_line, why, len) || !one_of("status", r->status, statuses, why, len) ||
	    !bracket_ok(r->bracket, why, len) || !results_check_env("env", r->env, why, len))
		return false;
	if (r->shard_index > r->shard_count)
		return ab_fail_text(why, len, "shard_index %d is past shard_count %d", r->shard_index, r->shard_count);
	return true;
}

static const struct text_field device_texts[] = {
	TEXT(struct results_device, name),           TEXT(struct results_device, uuid),
	TEXT(struct results_device, backend),        TEXT(struct results_device, driver_version),
	TEXT(struct results_device, runtime_version),
};

static const struct int_field device_ints[] = {
	NONNEG(struct results_device, cc_major),  NONNEG(struct results_device, cc_minor),
	NONNEG(struct results_device, sm_count),  NONNEG(struct results_device, l2_bytes),
	NONNEG(struct results_device, mem_bytes), INT(struct results_device, default_sm_mhz, 0, 100000),
};

bool results_check_device(const struct results_device *dv, char *why, size_t len)
{
	if (!FIELDS_OK(dv, device_texts, device_ints, why, len))
		return false;
	if (!isnan(dv->copy_gbps) && !(dv->copy_gbps >= 0 && dv->copy_gbps <= RESULTS_MAX_GBPS)) /* NAN: unknown */
		return ab_fail_text(why, len, "copy_gbps is %g, not a bandwidth (0 to %g GB/s)", dv->copy_gbps,
				    RESULTS_MAX_GBPS);
	return true;
}

static const struct text_field arm_source_texts[] = {
	TEXT(struct results_arm_source, name),   TEXT(struct results_arm_source, kind),
	TEXT(struct results_arm_source, path),   TEXT(struct results_arm_source, sha256),
	TEXT(struct results_arm_source, detail), TEXT(struct results_arm_source, function),
	TEXT(struct results_arm_source, versions),
};

bool results_check_kind_name(const char *kind, char *why, size_t len)
{
	bool ok = kind[0] >= 'a' && kind[0] <= 'z' && strlen(kind) < sizeof(((struct results_arm_source *)0)->kind);
	for (const char *p = kind; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
	return ok || ab_fail_text(why, len, "kind '%s' is not the name of a kind of arm (a lower-case letter, then letters, "
					    "digits or '_', %zu at most)",
				  kind, sizeof(((struct results_arm_source *)0)->kind) - 1);
}

bool results_check_arm_source(const struct results_arm_source *a, char *why, size_t len)
{
	return arm_ok("arm", a->arm, why, len) && texts_ok(a, arm_source_texts, N(arm_source_texts), why, len) &&
	       results_check_kind_name(a->kind, why, len) && results_check_env("versions", a->versions, why, len);
}

static const struct text_field case_texts[] = {
	TEXT(struct results_case, name),  TEXT(struct results_case, site),  TEXT(struct results_case, shape),
	TEXT(struct results_case, dtype), TEXT(struct results_case, input), TEXT(struct results_case, sweep),
	TEXT(struct results_case, axis),  TEXT(struct results_case, arm_a), TEXT(struct results_case, arm_b),
	TEXT(struct results_case, copy_floor_method), TEXT(struct results_case, copy_floor_detail),
};

static const struct int_field case_ints[] = {
	NONNEG(struct results_case, ordinal),   NONNEG(struct results_case, count),
	NONNEG(struct results_case, axis_value), NONNEG(struct results_case, bytes_min),
	NONNEG(struct results_case, bytes_a),   NONNEG(struct results_case, bytes_b),
	INT(struct results_case, n_slots, 0, RESULTS_MAX_SLOTS),
	INT(struct results_case, copy_floor_samples, 0, RESULTS_MAX_SAMPLES),
};

/* A time a row may hold: 0 to RESULTS_MAX_NS (in the field's unit:
 * scale is its nanoseconds), or unknown (NAN) where nan_ok. */
static bool time_in(const char *name, double v, double scale, bool nan_ok, char *why, size_t len)
{
	if ((nan_ok && isnan(v)) || (v >= 0 && v * scale <= RESULTS_MAX_NS))
		return true;
	return ab_fail_text(why, len, "%s is %g, not a time (0 to %g ns)", name, v, RESULTS_MAX_NS);
}

static bool time_ok(const char *name, double v, char *why, size_t len)
{
	return time_in(name, v, 1, true, why, len);
}

/* lo <= hi, give or take rounding (a quantile interpolated between two
 * samples may land an ulp past the next). */
static bool ordered(const char *lo_name, double lo, const char *hi_name, double hi, char *why, size_t len)
{
	if (isnan(lo) || isnan(hi) || lo <= hi + 1e-9 * fabs(hi) + 1e-9)
		return true;
	return ab_fail_text(why, len, "%s %g is above %s %g", lo_name, lo, hi_name, hi);
}

/* The bytes a copy of bytes in ns nanoseconds moves per second: at most
 * RESULTS_MAX_GBPS (bytes per ns are GB/s). */
static bool bandwidth_ok(const char *name, int64_t bytes, double ns, char *why, size_t len)
{
	if (!(bytes > 0 && ns > 0) || (double)bytes / ns <= RESULTS_MAX_GBPS)
		return true;
	return ab_fail_text(why, len, "%s %g ns for %lld bytes is %g GB/s, more than any device moves (%g)", name, ns,
			    (long long)bytes, (double)bytes / ns, RESULTS_MAX_GBPS);
}

bool results_check_case_row(const struct results_case *c, char *why, size_t len)
{
	if (!(isnan(c->eps) || (c->eps >= 0 && isfinite(c->eps))))
		return ab_fail_text(why, len, "eps is %g, not a LayerNorm epsilon", c->eps);
	return FIELDS_OK(c, case_texts, case_ints, why, len) && time_ok("copy_floor_ns", c->copy_floor_ns, why, len) &&
	       time_ok("copy_floor_kernel_ns", c->copy_floor_kernel_ns, why, len) &&
	       bandwidth_ok("copy_floor_ns", c->bytes_min, c->copy_floor_ns, why, len) &&
	       bandwidth_ok("copy_floor_kernel_ns", c->bytes_min, c->copy_floor_kernel_ns, why, len);
}

static const struct text_field slot_texts[] = {
	TEXT(struct results_slot, label),
	TEXT(struct results_slot, variant),
	TEXT(struct results_slot, stopping_reason),
};

static const struct int_field slot_ints[] = {
	INT(struct results_slot, position, 0, RESULTS_MAX_SLOTS - 1),
	NONNEG(struct results_slot, warmup),
	INT(struct results_slot, n_samples, 0, RESULTS_MAX_SAMPLES),
	NONNEG(struct results_slot, n_discarded),
	NONNEG(struct results_slot, kernel_records_bad),
	INT(struct results_slot, n_kernels, 0, RESULTS_MAX_KERNELS),
	INT(struct results_slot, n_outputs, 0, RESULTS_MAX_OUTPUTS),
	INT_AS("before_sm_mhz", struct results_slot, clocks_before.sm_mhz, 0, 100000),
	INT_AS("before_mem_mhz", struct results_slot, clocks_before.mem_mhz, 0, 100000),
	INT_AS("before_temp_c", struct results_slot, clocks_before.temp_c, -273, 1000),
	INT_AS("after_sm_mhz", struct results_slot, clocks_after.sm_mhz, 0, 100000),
	INT_AS("after_mem_mhz", struct results_slot, clocks_after.mem_mhz, 0, 100000),
	INT_AS("after_temp_c", struct results_slot, clocks_after.temp_c, -273, 1000),
};

/* A slot's figures: times, each a time (unknown only without samples),
 * in the order quantiles have; its noise a relative spread, not negative. */
static bool slot_figures_ok(const struct results_slot *s, char *why, size_t len)
{
	const struct {
		const char *name;
		double v;
	} t[] = { { "min_ns", s->min_ns }, { "p10_ns", s->p10_ns }, { "median_ns", s->median_ns },
		  { "p90_ns", s->p90_ns }, { "max_ns", s->max_ns } };
	bool none = s->n_samples == 0;
	for (size_t i = 0; i < N(t); i++)
		if (!time_in(t[i].name, t[i].v, 1, none, why, len) ||
		    (i && !ordered(t[i - 1].name, t[i - 1].v, t[i].name, t[i].v, why, len)))
			return false;
	return time_in("mean_ns", s->mean_ns, 1, none, why, len) && ordered("min_ns", s->min_ns, "mean_ns", s->mean_ns, why, len) &&
	       ordered("mean_ns", s->mean_ns, "max_ns", s->max_ns, why, len) &&
	       time_ok("kernel_median_ns", s->kernel_median_ns, why, len) &&
	       time_in("elapsed_s", s->elapsed_s, 1e9, true, why, len) &&
	       (isnan(s->noise) || (s->noise >= 0 && isfinite(s->noise)) ||
		ab_fail_text(why, len, "noise is %g, not a relative spread", s->noise));
}

bool results_check_slot_row(const struct results_slot *s, char *why, size_t len)
{
	if (!FIELDS_OK(s, slot_texts, slot_ints, why, len) || !arm_ok("arm", s->arm, why, len))
		return false;
	if (!s->label[0])
		return ab_fail_text(why, len, "label is empty");
	return slot_figures_ok(s, why, len) && time_ok("host_median_ns", s->host_median_ns, why, len) &&
	       time_ok("host_p90_ns", s->host_p90_ns, why, len) &&
	       ordered("host_median_ns", s->host_median_ns, "host_p90_ns", s->host_p90_ns, why, len);
}

bool results_check_sample(double wall_ns, double kernel_ns, double host_ns, char *why, size_t len)
{
	return time_in("wall_ns", wall_ns, 1, false, why, len) && time_in("kernel_ns", kernel_ns, 1, true, why, len) &&
	       time_in("host_ns", host_ns, 1, true, why, len);
}

static const struct text_field kernel_texts[] = {
	TEXT(struct results_kernel, name),
	TEXT(struct results_kernel, family),
};
static const struct int_field kernel_ints[] = { NONNEG(struct results_kernel, launches) };

bool results_check_kernel(const struct results_kernel *k, char *why, size_t len)
{
	return FIELDS_OK(k, kernel_texts, kernel_ints, why, len) && time_ok("total_ns", k->total_ns, why, len) &&
	       time_ok("min_ns", k->min_ns, why, len) && time_ok("max_ns", k->max_ns, why, len) &&
	       ordered("min_ns", k->min_ns, "max_ns", k->max_ns, why, len);
}

static const struct text_field output_texts[] = {
	TEXT(struct results_output, tensor),
	TEXT(struct results_output, md5),
};
static const struct int_field output_ints[] = {
	NONNEG(struct results_output, bytes),
	NONNEG(struct results_output, mismatches),
	NONNEG(struct results_output, ref_skipped),
};

bool results_check_output(const struct results_output *o, char *why, size_t len)
{
	if (!FIELDS_OK(o, output_texts, output_ints, why, len))
		return false;
	size_t n = strlen(o->md5);
	if (n && (n != 32 || strspn(o->md5, "0123456789abcdef") != 32))
		return ab_fail_text(why, len, "md5 '%s' is not 32 hexadecimal digits", o->md5);
	if (o->mismatches > o->bytes || o->ref_skipped > o->bytes) /* an element is a byte at least */
		return ab_fail_text(why, len, "%s %lld is more than the output's %lld bytes",
				    o->mismatches > o->bytes ? "mismatches" : "ref_skipped",
				    (long long)(o->mismatches > o->bytes ? o->mismatches : o->ref_skipped), (long long)o->bytes);
	if (o->max_abs_err < 0 || o->max_err_ratio < 0) /* NAN and +inf are errors a reference can show */
		return ab_fail_text(why, len, "%s is %g, not an error's size", o->max_abs_err < 0 ? "max_abs_err" : "max_err_ratio",
				    o->max_abs_err < 0 ? o->max_abs_err : o->max_err_ratio);
	return true;
}

static const struct text_field div_texts[] = {
	TEXT(struct results_divergence, tensor), TEXT(struct results_divergence, role),
	TEXT(struct results_divergence, dtype),  TEXT(struct results_divergence, axes),
	TEXT(struct results_divergence, dims),
};
static const struct int_field div_ints[] = {
	INT(struct results_divergence, stage, 0, RESULTS_MAX_DIV - 1),
	NONNEG(struct results_divergence, elems),
	INT(struct results_divergence, n_diff, 1, INT64_MAX),
	NONNEG(struct results_divergence, n_class),
	NONNEG(struct results_divergence, n_nan_bits),
	NONNEG(struct results_divergence, n_sign),
	NONNEG(struct results_divergence, max_ulp),
	NONNEG(struct results_divergence, rows),
	NONNEG(struct results_divergence, rows_touched),
	INT(struct results_divergence, map_rows, 0, RESULTS_DIV_MAP_ROWS),
	INT(struct results_divergence, map_cols, 0, RESULTS_DIV_MAP_COLS),
	INT(struct results_divergence, map_row_bin, 1, INT64_MAX),
	INT(struct results_divergence, map_col_bin, 1, INT64_MAX),
	NONNEG(struct results_divergence, ref_compared),
	NONNEG(struct results_divergence, b_closer),
	NONNEG(struct results_divergence, a_closer),
};

static bool elem_ok(const char *name, const struct results_div_elem *e, int64_t elems, char *why, size_t len)
{
	if (e->index < -1 || e->index >= elems)
		return ab_fail_text(why, len, "%s index %lld is outside the tensor's %lld elements", name,
				    (long long)e->index, (long long)elems);
	return true;
}

bool results_check_divergence(const struct results_divergence *v, char *why, size_t len)
{
	static const char *const roles[] = { "output", "stat", "scratch", NULL };
	static const char *const dtypes[] = { "bf16", "f16", "f32", "i32", "i64", "u8", NULL };
	int64_t sum = v->n_class + v->n_nan_bits;
	if (!FIELDS_OK(v, div_texts, div_ints, why, len) || !one_of("role", v->role, roles, why, len) ||
	    !one_of("dtype", v->dtype, dtypes, why, len))
		return false;
	for (int k = 0; k < RESULTS_ULP_BUCKETS; k++) {
		if (v->ulp_hist[k] < 0)
			return ab_fail_text(why, len, "ulp_hist[%d] is %lld", k, (long long)v->ulp_hist[k]);
		sum += v->ulp_hist[k];
	}
	if (sum != v->n_diff || v->n_diff > v->elems)
		return ab_fail_text(why, len, "n_diff %lld is not the histogram's %lld within %lld elements",
				    (long long)v->n_diff, (long long)sum, (long long)v->elems);
	if (v->n_sign > sum - v->n_class - v->n_nan_bits) /* counted among the histogram's pairs */
		return ab_fail_text(why, len, "n_sign %lld is more than the histogram's %lld pairs", (long long)v->n_sign,
				    (long long)(sum - v->n_class - v->n_nan_bits));
	if (v->rows_touched > v->rows || v->b_closer + v->a_closer > v->ref_compared || v->ref_compared > v->n_diff)
		return ab_fail_text(why, len, "rows_touched, b_closer, a_closer or ref_compared out of range");
	if (isinf(v->max_abs) || v->max_abs < 0)
		return ab_fail_text(why, len, "max_abs is %g, not a difference", v->max_abs);
	return elem_ok("first", &v->first, v->elems, why, len) && elem_ok("max_ulp", &v->at_max_ulp, v->elems, why, len) &&
	       elem_ok("max_abs", &v->at_max_abs, v->elems, why, len);
}

static const struct text_field check_texts[] = {
	TEXT(struct results_slot_check, compared),
	TEXT(struct results_slot_check, differ_tensor),
};
static const struct int_field check_ints[] = {
	NONNEG(struct results_slot_check, calls_checked),
	NONNEG(struct results_slot_check, calls_differ),
	NONNEG(struct results_slot_check, first_differ),
};

bool results_check_slot_check(const struct results_slot_check *k, char *why, size_t len)
{
	if (!FIELDS_OK(k, check_texts, check_ints, why, len))
		return false;
	if (k->calls_differ > k->calls_checked)
		return ab_fail_text(why, len, "calls_differ %d is more than calls_checked %d", k->calls_differ,
				    k->calls_checked);
	if ((k->first_differ > 0) != (k->calls_differ > 0)) /* a sample's id, from 1; 0: none differed */
		return ab_fail_text(why, len, "first_differ %d does not go with calls_differ %d", k->first_differ,
				    k->calls_differ);
	return true;
}

static const struct text_field inv_texts[] = {
	TEXT(struct results_invariance, slot),
	TEXT(struct results_invariance, tensor),
	TEXT(struct results_invariance, note),
};
static const struct int_field inv_ints[] = {
	NONNEG(struct results_invariance, rows_compared),
	INT(struct results_invariance, first_row, -1, INT64_MAX),
	NONNEG(struct results_invariance, other_value),
};

bool results_check_invariance(const struct results_invariance *v, char *why, size_t len)
{
	if (!FIELDS_OK(v, inv_texts, inv_ints, why, len))
		return false;
	if (v->first_row >= v->rows_compared && v->first_row >= 0) /* a row that differs is one compared */
		return ab_fail_text(why, len, "first_row %lld is not among the %lld rows compared", (long long)v->first_row,
				    (long long)v->rows_compared);
	return true;
}

/* ---- across rows ------------------------------------------------------------ */

bool results_check_bracket(const char *bracket, const struct results_case *c, char *why, size_t len)
{
	int n = (int)strlen(bracket);
	if (c->n_slots != n)
		return ab_fail_text(why, len, "%d slots for the %d letters of bracket '%s'", c->n_slots, n, bracket);
	for (int k = 0; k < n; k++)
		if (c->slots[k].arm != tolower((unsigned char)bracket[k]))
			return ab_fail_text(why, len, "slot %d ('%s') is of arm '%c', bracket '%s' has %c there", k,
					    c->slots[k].label, c->slots[k].arm, bracket, bracket[k]);
	return true;
}

/* where + ": " + what, into why (what may already be in why). */
static bool at(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool at(char *why, size_t len, const char *fmt, ...)
{
	char where[160], what[AB_DIAG_MAX];
	va_list ap;
	snprintf(what, sizeof what, "%s", why);
	va_start(ap, fmt);
	vsnprintf(where, sizeof where, fmt, ap);
	va_end(ap);
	snprintf(why, len, "%s: %s", where, what);
	return false;
}

static bool slot_ok(const struct results_case *c, const struct results_slot *s, char *why, size_t len)
{
	if (!results_check_slot_row(s, why, len))
		return at(why, len, "case '%s' slot %d", c->name, s->position);
	if (s->n_samples > 0 && !s->samples_ns)
		return ab_fail_text(why, len, "case '%s' slot '%s': %d samples and no array", c->name, s->label,
				    s->n_samples);
	if (s->n_kernels > 0 && !s->kernels)
		return ab_fail_text(why, len, "case '%s' slot '%s': %d kernels and no array", c->name, s->label,
				    s->n_kernels);
	for (int i = 0; i < s->n_samples; i++)
		if (!results_check_sample(s->samples_ns[i], s->kernel_ns ? s->kernel_ns[i] : NAN,
					  s->host_ns ? s->host_ns[i] : NAN, why, len))
			return at(why, len, "case '%s' slot '%s' sample %d", c->name, s->label, i);
	for (int i = 0; i < s->n_kernels; i++)
		if (!results_check_kernel(&s->kernels[i], why, len))
			return at(why, len, "case '%s' slot '%s' kernel %d", c->name, s->label, i);
	for (int i = 0; i < s->n_outputs; i++)
		if (!results_check_output(&s->outputs[i], why, len))
			return at(why, len, "case '%s' slot '%s' output %d", c->name, s->label, i);
	if (s->n_div < 0 || s->n_div > RESULTS_MAX_DIV || (s->n_div > 0 && !s->div))
		return ab_fail_text(why, len, "case '%s' slot '%s': %d divergences", c->name, s->label, s->n_div);
	for (int i = 0; i < s->n_div; i++)
		if (!results_check_divergence(&s->div[i], why, len))
			return at(why, len, "case '%s' slot '%s' divergence %d", c->name, s->label, i);
	if (!results_check_slot_check(&s->check, why, len))
		return at(why, len, "case '%s' slot '%s' checks", c->name, s->label);
	return true;
}

bool results_check_case(const char *bracket, const struct results_case *c, char *why, size_t len)
{
	if (!results_check_case_row(c, why, len))
		return at(why, len, "case %d", c->ordinal);
	if (c->n_slots > 0 && !c->slots)
		return ab_fail_text(why, len, "case '%s': %d slots and no array", c->name, c->n_slots);
	for (int k = 0; k < c->n_slots; k++)
		if (!slot_ok(c, &c->slots[k], why, len))
			return false;
	if (!results_check_bracket(bracket, c, why, len))
		return at(why, len, "case '%s'", c->name);
	for (int a = 0; a < 2; a++)
		if (c->inv[a].checked && !results_check_invariance(&c->inv[a], why, len))
			return at(why, len, "case '%s' invariance of arm %c", c->name, a ? 'b' : 'a');
	return results_check_case_arms(c, why, len);
}

bool results_check_case_arms(const struct results_case *c, char *why, size_t len)
{
	for (int k = 0; k < c->n_slots; k++) {
		const struct results_slot *s = &c->slots[k];
		const char *arm = s->arm == 'a' ? c->arm_a : c->arm_b;
		if (arm[0] && strcmp(arm, s->variant) != 0)
			return ab_fail_text(why, len, "case '%s' slot '%s' ran '%s', but the case's arm %c is '%s'", c->name,
					    s->label, s->variant, s->arm, arm);
	}
	return true;
}

bool results_check_run(const struct results_run *r, char *why, size_t len)
{
	if (!results_check_run_row(r, why, len))
		return at(why, len, "the run");
	if (!results_check_device(&r->device, why, len))
		return at(why, len, "the device");
	for (int i = 0; i < r->n_arm_sources; i++)
		if (!results_check_arm_source(&r->arm_sources[i], why, len))
			return at(why, len, "the source of arm %d", i);
	if (r->n_cases > 0 && !r->cases)
		return ab_fail_text(why, len, "%d cases and no array", r->n_cases);
	for (int i = 0; i < r->n_cases; i++)
		if (!results_check_case(r->bracket, &r->cases[i], why, len))
			return false;
	return true;
}
