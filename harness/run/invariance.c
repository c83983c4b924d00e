/*
 * invariance.c - the rows a run's invariance sweeps have produced so far,
 * and each case's outputs held to them (invariance.h).
 */
#include "run/invariance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows [previous row_hi, row_hi) were first produced by the case whose
 * sweep value is value. */
struct inv_segment {
	int64_t row_hi, value;
};

/* One output of one arm: the rows seen so far, each row_bytes long (or,
 * without the swept axis, the first case's whole tensor as one row). */
struct inv_output {
	unsigned char *rows;
	int64_t n_rows;
	size_t row_bytes;
	int n_seg;
	struct inv_segment *seg;
};

struct inv_sweep {
	char name[SCENARIO_NAME_MAX];
	struct inv_output out[2][RESULTS_MAX_OUTPUTS];
};

struct invariance {
	int n;
	struct inv_sweep *sweeps;
};

struct invariance *invariance_new(void)
{
	return calloc(1, sizeof(struct invariance));
}

void invariance_free(struct invariance *v)
{
	for (int i = 0; v && i < v->n; i++)
		for (int a = 0; a < 2; a++)
			for (int o = 0; o < RESULTS_MAX_OUTPUTS; o++) {
				free(v->sweeps[i].out[a][o].rows);
				free(v->sweeps[i].out[a][o].seg);
			}
	if (v)
		free(v->sweeps);
	free(v);
}

static struct inv_sweep *sweep_of(struct invariance *v, const char *name)
{
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->sweeps[i].name, name))
			return &v->sweeps[i];
	struct inv_sweep *q = realloc(v->sweeps, (size_t)(v->n + 1) * sizeof *q);
	if (!q)
		return NULL;
	v->sweeps = q;
	memset(&q[v->n], 0, sizeof q[v->n]);
	snprintf(q[v->n].name, sizeof q[v->n].name, "%s", name);
	return &q[v->n++];
}

/* How output pt lays out as rows: the rows along the swept axis dim and
 * each row's bytes, or one row of the whole tensor without that axis;
 * false when an axis of extent above 1 comes before the swept one. */
static bool rows_of(const struct case_plan_tensor *pt, int dim, int64_t *rows, size_t *row_bytes)
{
	int64_t bytes = (int64_t)pt->bytes, outer = 1;
	for (int k = 0; k < pt->t->shape.rank; k++) {
		if (pt->t->shape.axis[k] != dim) {
			outer *= pt->shape[k];
			continue;
		}
		if (outer != 1)
			return false;
		*rows = pt->shape[k];
		*row_bytes = *rows ? (size_t)(bytes / *rows) : 0;
		return true;
	}
	*rows = 1;
	*row_bytes = (size_t)bytes;
	return true;
}

static int64_t origin_of(const struct inv_output *st, int64_t r)
{
	for (int i = 0; i < st->n_seg; i++)
		if (r < st->seg[i].row_hi)
			return st->seg[i].value;
	return 0;
}

/* Rows [st->n_rows, rows) of buf kept, produced by the case of value. */
static enum ab_rc keep_rows(struct inv_output *st, const unsigned char *buf, int64_t rows, size_t row_bytes,
			    int64_t value, struct ab_diag *d)
{
	if (rows <= st->n_rows)
		return AB_OK;
	unsigned char *p = realloc(st->rows, (size_t)rows * row_bytes + 1);
	struct inv_segment *s = realloc(st->seg, (size_t)(st->n_seg + 1) * sizeof *s);
	if (p)
		st->rows = p;
	if (s)
		st->seg = s;
	if (!p || !s)
		return ab_fail(d, AB_ERR_NOMEM, "cannot keep %lld rows for the batch-invariance check", (long long)rows);
	memcpy(st->rows + (size_t)st->n_rows * row_bytes, buf + (size_t)st->n_rows * row_bytes,
	       (size_t)(rows - st->n_rows) * row_bytes);
	st->seg[st->n_seg++] = (struct inv_segment){ rows, value };
	st->n_rows = rows;
	st->row_bytes = row_bytes;
	return AB_OK;
}

/* The first of the common rows where buf differs from what st holds; -1. */
static int64_t first_diff_row(const struct inv_output *st, const unsigned char *buf, int64_t common)
{
	size_t rb = st->row_bytes;
	if (!memcmp(st->rows, buf, (size_t)common * rb))
		return -1;
	for (int64_t r = 0; r < common; r++)
		if (memcmp(st->rows + (size_t)r * rb, buf + (size_t)r * rb, rb))
			return r;
	return -1;
}

static void note(struct results_invariance *res, const char *fmt, const char *tensor)
{
	if (!res->note[0])
		snprintf(res->note, sizeof res->note, fmt, tensor);
}

/* Output o of the case against the sweep's rows of it. */
static enum ab_rc take_output(struct inv_output *st, const struct case_plan *p, int ti, const unsigned char *buf,
			      struct results_invariance *res, struct ab_diag *d)
{
	const struct site_tensor *t = p->tensor[ti].t;
	int64_t rows;
	size_t row_bytes;
	if (!rows_of(&p->tensor[ti], p->swept_dim, &rows, &row_bytes)) {
		note(res, "'%s' is not compared: an axis of extent above 1 comes before the swept one", t->name);
		return AB_OK;
	}
	if (st->rows && row_bytes != st->row_bytes) {
		note(res, "'%s' is not compared: its rows change size along the sweep", t->name);
		return AB_OK;
	}
	if (st->rows) {
		int64_t common = rows < st->n_rows ? rows : st->n_rows, r = first_diff_row(st, buf, common);
		if (common > res->rows_compared)
			res->rows_compared = common;
		if (r >= 0 && res->first_row < 0) {
			res->first_row = r;
			res->other_value = origin_of(st, r);
			snprintf(res->tensor, sizeof res->tensor, "%s", t->name);
		}
	}
	return keep_rows(st, buf, rows, row_bytes, p->c->axis_value, d);
}

enum ab_rc invariance_take(struct invariance *v, const struct case_plan *p, int arm, const char *slot,
			   void *const *out, struct results_invariance *res, struct ab_diag *d)
{
	const struct scenario_case *c = p->c;
	if (c->invariance != SCENARIO_INVARIANCE_ROWS || !c->sweep[0] || arm < 0 || arm > 1)
		return AB_OK;
	struct inv_sweep *sw = sweep_of(v, c->sweep);
	if (!sw)
		return ab_fail(d, AB_ERR_NOMEM, "cannot keep the rows of sweep '%s'", c->sweep);
	memset(res, 0, sizeof *res);
	res->checked = true;
	res->first_row = -1;
	snprintf(res->slot, sizeof res->slot, "%s", slot);
	if (p->swept_dim < 0) {
		snprintf(res->note, sizeof res->note, "the swept axis '%s' is none of the site's", c->axis);
		return AB_OK;
	}
	enum ab_rc rc = AB_OK;
	for (int o = 0; !rc && o < p->n_out && o < RESULTS_MAX_OUTPUTS; o++)
		rc = take_output(&sw->out[arm][o], p, p->out_index[o], out[o], res, d);
	return rc;
}
