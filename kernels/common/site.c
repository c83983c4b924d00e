/*
 * site.c - lookups in the site registry and the shape text format.
 *
 * The list itself lives in kernels/registry.c; this file only searches it
 * and converts shapes between "1x4096x4096" and struct site_shape.
 */
#include "kernels/common/site.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Largest accepted dimension: keeps every product of SITE_MAX_RANK dims
 * far from int64 overflow before the geometry checks run. */
#define SITE_DIM_MAX ((int64_t)1 << 31)

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

int64_t site_tensor_elems(const struct site_tensor *t, const struct site_dims *d)
{
	switch (t->extent) {
	case SITE_EXT_FULL:
		return d->batch * d->tokens * d->width;
	case SITE_EXT_BATCH_VEC:
		return d->batch * d->width;
	case SITE_EXT_ROW_VEC:
		return d->row_len;
	case SITE_EXT_ROWS:
		return d->rows;
	}
	assert(!"unknown tensor extent");
	return 0;
}

static size_t dtype_size(enum site_dtype dt)
{
	switch (dt) {
	case SITE_BF16:
		return 2;
	case SITE_F32:
		return 4;
	}
	assert(!"unknown dtype");
	return 0;
}

int64_t site_tensor_bytes(const struct site_tensor *t, const struct site_dims *d)
{
	return site_tensor_elems(t, d) * (int64_t)dtype_size(t->dtype);
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
		if (r == SITE_IN_ACT || r == SITE_IN_PARAM || r == SITE_OUT)
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

void site_axis_name(const struct site_desc *s, int dim, char *buf, size_t len)
{
	const char *p = s ? s->shape_help : NULL;
	int k = 0;
	/* "BxTxW, ...": single upper-case letters joined by 'x'. */
	while (p && *p >= 'A' && *p <= 'Z') {
		if (k == dim) {
			snprintf(buf, len, "%c", *p);
			return;
		}
		k++;
		p++;
		if (*p != 'x')
			break;
		p++;
	}
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
