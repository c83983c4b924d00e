/*
 * site.c - what every site shares, built-in or declared: lookups in the
 * registry, the dtype and role tables, tensor shapes from axis lists, the
 * geometry every caller goes through, the bytes a tensor table declares,
 * the shape symbols of expressions, and the shape text format.
 *
 * The list itself lives in kernels/registry.c; declared sites belong to
 * their scenario (config/), which finds them before the registry's.
 */
#include "kernels/common/site.h"
#include "kernels/common/site_rules.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Largest accepted dimension: keeps every product of SITE_MAX_RANK dims
 * far from int64 overflow before the geometry checks run. */
#define SITE_DIM_MAX ((int64_t)1 << 31)

/* Appends sep (unless buf is empty) and item to buf of len bytes, as far
 * as it fits; *used follows its length. */
static void append(char *buf, size_t len, size_t *used, const char *sep, const char *item)
{
	if (*used >= len)
		return;
	int n = snprintf(buf + *used, len - *used, "%s%s", *used ? sep : "", item);
	if (n > 0)
		*used += (size_t)n;
}

const struct site_desc *site_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct site_desc *const *s = site_registry; *s; s++)
		if (strcmp((*s)->name, name) == 0)
			return *s;
	return NULL;
}

const struct site_variant *site_find_variant(const struct site_desc *s, const char *variant)
{
	if (!s || !variant)
		return NULL;
	for (int i = 0; i < s->n_variants; i++)
		if (strcmp(s->variants[i].name, variant) == 0)
			return &s->variants[i];
	return NULL;
}

const void *site_variant_impl(const struct site_variant *v, const char *backend)
{
	if (!v || !backend)
		return NULL;
	for (int i = 0; i < SITE_MAX_IMPLS; i++)
		if (v->impls[i].backend && strcmp(v->impls[i].backend, backend) == 0)
			return v->impls[i].impl;
	return NULL;
}

int site_tensor_index(const struct site_desc *s, const char *tensor)
{
	if (!s || !tensor)
		return -1;
	for (int i = 0; i < s->n_tensors; i++)
		if (strcmp(s->tensors[i].name, tensor) == 0)
			return i;
	return -1;
}

/* ---- dtypes and roles -------------------------------------------------- */

static const struct {
	const char *name;
	size_t size;
	bool integer;
} dtypes[SITE_N_DTYPES] = {
	[SITE_BF16] = { "bf16", 2, false }, [SITE_F32] = { "f32", 4, false }, [SITE_F16] = { "f16", 2, false },
	[SITE_I32] = { "i32", 4, true },    [SITE_I64] = { "i64", 8, true },  [SITE_U8] = { "u8", 1, true },
};

size_t site_dtype_size(enum site_dtype dt)
{
	return (unsigned)dt < SITE_N_DTYPES ? dtypes[dt].size : 0;
}

const char *site_dtype_name(enum site_dtype dt)
{
	return (unsigned)dt < SITE_N_DTYPES ? dtypes[dt].name : "?";
}

bool site_dtype_is_int(enum site_dtype dt)
{
	return (unsigned)dt < SITE_N_DTYPES && dtypes[dt].integer;
}

bool site_dtype_find(const char *name, enum site_dtype *out)
{
	for (int i = 0; name && i < SITE_N_DTYPES; i++)
		if (strcmp(dtypes[i].name, name) == 0) {
			*out = (enum site_dtype)i;
			return true;
		}
	return false;
}

const char *site_dtype_list(void)
{
	return "bf16, f16, f32, i32, i64, u8";
}

/* The words of declared sites; the first row of a word is what it reads
 * as (input: an activation, drawn from the case's distribution). */
static const struct {
	const char *name;
	enum site_role role;
} roles[] = {
	{ "input", SITE_IN_ACT }, { "input", SITE_IN_PARAM }, { "output", SITE_OUT },
	{ "stat", SITE_AUX },     { "scratch", SITE_SCRATCH },
};

const char *site_role_name(enum site_role r)
{
	for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
		if (roles[i].role == r)
			return roles[i].name;
	return "?";
}

bool site_role_find(const char *name, enum site_role *out)
{
	for (size_t i = 0; name && i < sizeof roles / sizeof roles[0]; i++)
		if (strcmp(roles[i].name, name) == 0) {
			*out = roles[i].role;
			return true;
		}
	return false;
}

const char *site_role_list(void)
{
	return "input, output, stat, scratch";
}

/* ---- tensor shapes ---------------------------------------------------------- */

int64_t site_tensor_elems(const struct site_tensor *t, const struct site_dims *d)
{
	int64_t n = 1;
	for (int k = 0; k < t->shape.rank; k++) {
		assert(t->shape.axis[k] < d->n_axes);
		n *= d->axis[t->shape.axis[k]];
	}
	return n;
}

int site_tensor_shape(const struct site_tensor *t, const struct site_dims *d, int64_t *shape)
{
	for (int k = 0; k < t->shape.rank; k++)
		shape[k] = t->shape.axis[k] < d->n_axes ? d->axis[t->shape.axis[k]] : 0;
	return t->shape.rank;
}

void site_tensor_axes(const struct site_desc *s, const struct site_tensor *t, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int k = 0; k < t->shape.rank; k++)
		append(buf, len, &used, ",", t->shape.axis[k] < s->n_axes ? s->axes[t->shape.axis[k]] : "?");
}

void site_format_axes(const struct site_desc *s, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < s->n_axes; i++)
		append(buf, len, &used, "x", s->axes[i]);
}

/* Every tensor's element count within SITE_MAX_ELEMS (dims are at most
 * SITE_DIM_MAX, so no partial product wraps before it is checked); *largest
 * the index of the tensor with the most, -1 for a site without tensors. */
static bool tensors_fit(const struct site_desc *s, const struct site_dims *d, int *largest, char *err, size_t len)
{
	int64_t most = -1;
	*largest = -1;
	for (int i = 0; i < s->n_tensors; i++) {
		int64_t n = 1;
		for (int k = 0; k < s->tensors[i].shape.rank; k++)
			if ((n *= d->axis[s->tensors[i].shape.axis[k]]) > SITE_MAX_ELEMS)
				return site_rules_fail(err, len, "tensor '%s' has more than %lld elements", s->tensors[i].name,
						 (long long)SITE_MAX_ELEMS);
		if (n > most)
			most = n, *largest = i;
	}
	return true;
}

bool site_geometry(const struct site_desc *s, const struct site_shape *shape, struct site_dims *d, char *err,
		   size_t len)
{
	int largest;
	if (s->geometry)
		return s->geometry(shape, d, err, len);
	if (shape->rank != s->n_axes) {
		char axes[SITE_MAX_RANK * SITE_AXIS_NAME_MAX + 8];
		site_format_axes(s, axes, sizeof axes);
		return site_rules_fail(err, len, "shape must be %s (%d dims), not %d dims", axes, s->n_axes, shape->rank);
	}
	*d = (struct site_dims){ .n_axes = s->n_axes };
	memcpy(d->axis, shape->dim, (size_t)shape->rank * sizeof d->axis[0]);
	if (!tensors_fit(s, d, &largest, err, len))
		return false;
	d->row_len = d->rows = 1;
	if (largest >= 0 && s->tensors[largest].shape.rank) {
		const struct site_tshape *ts = &s->tensors[largest].shape;
		d->row_len = d->axis[ts->axis[ts->rank - 1]];
		d->rows = site_tensor_elems(&s->tensors[largest], d) / d->row_len;
	}
	return !s->rule || s->rule(s->rule_ctx, s, d, err, len);
}

/* ---- bytes ------------------------------------------------------------------ */

int64_t site_tensor_bytes(const struct site_tensor *t, const struct site_dims *d)
{
	return site_tensor_elems(t, d) * (int64_t)site_dtype_size(t->dtype);
}

/* Bytes of the present tensors whose bit is set in mask. */
static int64_t mask_bytes(const struct site_desc *s, uint32_t mask, const struct site_dims *d, bool affine)
{
	int64_t sum = 0;
	for (int i = 0; i < s->n_tensors; i++)
		if ((mask & SITE_IO(i)) && site_tensor_present(&s->tensors[i], affine))
			sum += site_tensor_bytes(&s->tensors[i], d);
	return sum;
}

int64_t site_min_bytes(const struct site_desc *s, const struct site_dims *d, bool affine)
{
	uint32_t mask = 0;
	for (int i = 0; i < s->n_tensors; i++) {
		enum site_role r = s->tensors[i].role;
		if (site_role_is_input(r) || r == SITE_OUT)
			mask |= SITE_IO(i);
	}
	return mask_bytes(s, mask, d, affine);
}

int64_t site_eager_bytes(const struct site_desc *s, const struct site_dims *d, bool affine)
{
	int64_t sum = 0;
	for (int l = 0; l < s->n_eager_launches; l++)
		sum += mask_bytes(s, s->eager_io[l].reads, d, affine) + mask_bytes(s, s->eager_io[l].writes, d, affine);
	return sum;
}

int64_t site_variant_bytes(const struct site_desc *s, const char *variant, const struct site_dims *d, bool affine)
{
	if (variant && strcmp(variant, "eager") == 0 && s->n_eager_launches > 0)
		return site_eager_bytes(s, d, affine);
	return site_min_bytes(s, d, affine);
}

uint32_t site_variant_writes(const struct site_desc *s, const char *variant)
{
	uint32_t mask = 0;
	for (int i = 0; i < s->n_tensors; i++)
		if (s->tensors[i].role == SITE_OUT)
			mask |= SITE_IO(i);
	if (variant && strcmp(variant, "eager") == 0)
		for (int l = 0; l < s->n_eager_launches; l++)
			mask |= s->eager_io[l].writes;
	const struct site_variant *v = variant ? site_find_variant(s, variant) : NULL;
	if (v && !v->ext && v->writes_aux) /* it computes the statistics (twopass too) */
		for (int i = 0; i < s->n_tensors; i++)
			if (s->tensors[i].role == SITE_AUX)
				mask |= SITE_IO(i);
	return mask;
}

/* ---- shape symbols -------------------------------------------------------- */

/* The geometry names of the built-in sites, and where their values are. */
static const struct {
	const char *name;
	size_t off;
} legacy_syms[] = {
	{ "B", offsetof(struct site_dims, batch) }, { "T", offsetof(struct site_dims, tokens) },
	{ "W", offsetof(struct site_dims, width) }, { "N", offsetof(struct site_dims, row_len) },
	{ "M", offsetof(struct site_dims, rows) },  { "H", offsetof(struct site_dims, heads) },
};
#define N_LEGACY ((int)(sizeof legacy_syms / sizeof legacy_syms[0]))

static int axis_index(const struct site_desc *s, const char *name)
{
	for (int i = 0; i < s->n_axes; i++)
		if (strcmp(s->axes[i], name) == 0)
			return i;
	return -1;
}

/* The k-th legacy name a built-in site adds to its axes (those its axes
 * lack), as an index in legacy_syms; -1 past the last (and always for a
 * declared site). */
static int legacy_added(const struct site_desc *s, int k)
{
	for (int j = 0; !s->declared_at && j < N_LEGACY; j++)
		if (axis_index(s, legacy_syms[j].name) < 0 && k-- == 0)
			return j;
	return -1;
}

int site_symbol_count(const struct site_desc *s)
{
	int n = s->n_axes;
	while (legacy_added(s, n - s->n_axes) >= 0)
		n++;
	return n;
}

const char *site_symbol_name(const struct site_desc *s, int i)
{
	if (i < s->n_axes)
		return s->axes[i];
	int j = legacy_added(s, i - s->n_axes);
	return j >= 0 ? legacy_syms[j].name : NULL;
}

int site_symbol_find(const struct site_desc *s, const char *name)
{
	int n = site_symbol_count(s);
	for (int i = 0; i < n; i++)
		if (strcmp(site_symbol_name(s, i), name) == 0)
			return i;
	return -1;
}

int64_t site_symbol_value(const struct site_desc *s, int i, const struct site_dims *d)
{
	if (i < s->n_axes)
		return i < d->n_axes ? d->axis[i] : 0;
	int j = legacy_added(s, i - s->n_axes);
	int64_t v = 0;
	if (j >= 0)
		memcpy(&v, (const char *)d + legacy_syms[j].off, sizeof v);
	return v;
}

void site_symbol_list(const struct site_desc *s, char *buf, size_t len)
{
	size_t used = 0;
	int n = site_symbol_count(s);
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++)
		append(buf, len, &used, ", ", site_symbol_name(s, i));
}

/* ---- the shape text format ---------------------------------------------------- */

void site_axis_name(const struct site_desc *s, int dim, char *buf, size_t len)
{
	if (s && dim >= 0 && dim < s->n_axes)
		snprintf(buf, len, "%s", s->axes[dim]);
	else
		snprintf(buf, len, "d%d", dim);
}

/* Parses one positive decimal dimension at *p, advancing *p past it. */
static bool parse_dim(const char **p, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > SITE_DIM_MAX)
			return false;
	}
	if (v == 0)
		return false;
	*out = v;
	*p = s;
	return true;
}

bool site_parse_shape(const char *text, struct site_shape *out)
{
	struct site_shape sh = { 0 };
	const char *p = text;
	if (!p)
		return false;
	for (;;) {
		if (sh.rank == SITE_MAX_RANK || !parse_dim(&p, &sh.dim[sh.rank]))
			return false;
		sh.rank++;
		if (*p == '\0')
			break;
		if (*p++ != 'x')
			return false;
	}
	*out = sh;
	return true;
}

void site_format_shape(const struct site_shape *s, char *buf, size_t len)
{
	size_t used = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < s->rank && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%lld", i ? "x" : "", (long long)s->dim[i]);
		if (n < 0)
			return;
		used += (size_t)n;
	}
}
