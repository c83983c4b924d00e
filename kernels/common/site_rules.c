/*
 * site_rules.c - shape rules and checks shared by the site folders
 * (site_rules.h).
 */
#include "kernels/common/site_rules.h"

#include <stdarg.h>
#include <stdio.h>

bool site_rules_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* Dims are at most 2^31 (site_parse_shape), so each step's product cannot
 * overflow before the check. */
int64_t site_rules_elems(const struct site_shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++) {
		n *= s->dim[i];
		if (n > SITE_MAX_ELEMS)
			return -1;
	}
	return n;
}

bool site_rules_btw(const struct site_shape *s, struct site_dims *d, int64_t max_w, char *err, size_t len)
{
	if (s->rank != 3)
		return site_rules_fail(err, len, "shape must be BxTxW (3 dims), not %d dims", s->rank);
	int64_t w = s->dim[2];
	if (w % 4 != 0)
		return site_rules_fail(err, len,
				       "W=%lld is not a multiple of 4 (the vectorized LayerNorm path needs it)",
				       (long long)w);
	if (max_w > 0 && w > max_w)
		return site_rules_fail(err, len, "W=%lld exceeds %lld (the largest LayerNorm row supported)",
				       (long long)w, (long long)max_w);
	if (site_rules_elems(s) < 0)
		return site_rules_fail(err, len, "shape has more than %lld elements", (long long)SITE_MAX_ELEMS);
	*d = (struct site_dims){ .batch = s->dim[0], .tokens = s->dim[1], .width = w, .row_len = w,
				 .rows = s->dim[0] * s->dim[1], .heads = 1, .n_axes = 3,
				 .axis = { s->dim[0], s->dim[1], w } };
	return true;
}

bool site_rules_tensors_present(const struct site_desc *s, const struct site_args *a)
{
	for (int i = 0; i < s->n_tensors; i++)
		if (a->t[i] == NULL && site_tensor_present(&s->tensors[i], a->affine))
			return false;
	return true;
}
