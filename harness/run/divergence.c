/*
 * divergence.c - the divergence walk (divergence.h): the map's geometry,
 * one part's rows element by element, the parts combined in order.
 */
#include "run/divergence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "common/ulp.h"

_Static_assert(RESULTS_ULP_BUCKETS == ULP_BUCKETS, "one histogram");

/* The tensor as rows, and the map's grid over them. */
struct div_geom {
	int64_t rows, row_len, heads; /* heads > 0: the map is per head (rank >= 4) */
	size_t esize;
	bool by_head;
	int map_rows, map_cols;
	int64_t row_bin, col_bin;
};

/* bins of n items, at most cap of them: the bin's width and their count. */
static void bin(int64_t n, int cap, int64_t *width, int *count)
{
	*width = n <= cap ? 1 : (n + cap - 1) / cap;
	*count = n <= 0 ? 0 : (int)((n + *width - 1) / *width);
}

static void geom_of(const struct divergence_input *in, struct div_geom *g)
{
	memset(g, 0, sizeof *g);
	g->esize = site_dtype_size(in->dtype);
	g->row_len = in->rank ? in->shape[in->rank - 1] : 1;
	g->rows = g->row_len ? in->elems / g->row_len : 0;
	g->by_head = in->rank >= 4;
	g->heads = g->by_head ? in->shape[in->rank - 2] : 0;
	if (g->by_head && g->heads > 0) {
		bin(g->rows / g->heads, RESULTS_DIV_MAP_ROWS, &g->row_bin, &g->map_rows);
		bin(g->heads, RESULTS_DIV_MAP_COLS, &g->col_bin, &g->map_cols);
	} else {
		g->by_head = false;
		bin(g->rows, RESULTS_DIV_MAP_ROWS, &g->row_bin, &g->map_rows);
		bin(g->row_len, RESULTS_DIV_MAP_COLS, &g->col_bin, &g->map_cols);
	}
}

/* One part's figures. */
struct div_part {
	int64_t n_diff, hist[ULP_BUCKETS], n_class, n_nan_bits, n_sign;
	uint64_t max_ulp;
	int64_t max_ulp_idx, max_abs_idx, first_idx;
	double max_abs;
	int64_t rows_touched, ref_compared, b_closer, a_closer;
	uint32_t *map;
};

struct div_ctx {
	const struct divergence_input *in;
	const struct div_geom *g;
	struct div_part part[PAR_THREADS_MAX];
};

static void part_init(struct div_part *p)
{
	uint32_t *map = p->map;
	memset(p, 0, sizeof *p);
	p->map = map;
	p->max_ulp_idx = p->max_abs_idx = p->first_idx = -1;
	p->max_abs = NAN;
}

/* Which side the reference is nearer, for a pair of finite values. */
static void ref_side(struct div_part *p, double ref, double va, double vb)
{
	if (!isfinite(ref))
		return;
	double da = fabs(va - ref), db = fabs(vb - ref);
	p->ref_compared++;
	p->b_closer += db < da;
	p->a_closer += da < db;
}

/* Element i, known to differ in its bytes. */
static void part_elem(const struct div_ctx *c, struct div_part *p, int64_t i)
{
	enum site_dtype dt = c->in->dtype;
	int64_t a = ulp_bits_at(dt, c->in->a, i), b = ulp_bits_at(dt, c->in->b, i);
	enum ulp_class ca = ulp_class_of(dt, a), cb = ulp_class_of(dt, b);
	p->n_diff++;
	if (p->first_idx < 0)
		p->first_idx = i;
	if (ca != cb) {
		p->n_class++;
		return;
	}
	if (ca == ULP_NAN) {
		p->n_nan_bits++;
		return;
	}
	uint64_t u = ulp_distance(dt, a, b);
	p->hist[ulp_bucket(u)]++;
	p->n_sign += ulp_negative(dt, a) != ulp_negative(dt, b);
	if (p->max_ulp_idx < 0 || u > p->max_ulp) {
		p->max_ulp = u;
		p->max_ulp_idx = i;
	}
	if (ca != ULP_FINITE)
		return;
	double va = ulp_value(dt, a), vb = ulp_value(dt, b), diff = fabs(vb - va);
	if (p->max_abs_idx < 0 || diff > p->max_abs) {
		p->max_abs = diff;
		p->max_abs_idx = i;
	}
	if (c->in->ref)
		ref_side(p, c->in->ref[i], va, vb);
}

/* The map's cell of element j of row r. */
static size_t cell_of(const struct div_geom *g, int64_t r, int64_t j)
{
	int64_t mr, mc;
	if (g->by_head) {
		mr = r / g->heads / g->row_bin;
		mc = r % g->heads / g->col_bin;
	} else {
		mr = r / g->row_bin;
		mc = j / g->col_bin;
	}
	return (size_t)mr * (size_t)g->map_cols + (size_t)mc;
}

/* Rows [lo, hi) of the tensor: a row whose bytes are equal is skipped
 * whole. */
static void div_range(void *ctx, int64_t lo, int64_t hi, int part)
{
	struct div_ctx *c = ctx;
	const struct div_geom *g = c->g;
	struct div_part *p = &c->part[part];
	size_t row_bytes = (size_t)g->row_len * g->esize;
	const unsigned char *a = c->in->a, *b = c->in->b;
	part_init(p);
	for (int64_t r = lo; r < hi; r++) {
		size_t off = (size_t)r * row_bytes;
		if (!memcmp(a + off, b + off, row_bytes))
			continue;
		p->rows_touched++;
		for (int64_t j = 0; j < g->row_len; j++) {
			size_t e = off + (size_t)j * g->esize;
			if (!memcmp(a + e, b + e, g->esize))
				continue;
			part_elem(c, p, r * g->row_len + j);
			if (p->map)
				p->map[cell_of(g, r, j)]++;
		}
	}
}

static struct results_div_elem elem_at(const struct divergence_input *in, int64_t i)
{
	struct results_div_elem e = { -1, 0, 0, NAN };
	if (i < 0)
		return e;
	e.index = i;
	e.a_bits = ulp_bits_at(in->dtype, in->a, i);
	e.b_bits = ulp_bits_at(in->dtype, in->b, i);
	e.ref = in->ref ? in->ref[i] : NAN;
	return e;
}

/* Part q folded into the total t (parts in order). */
static void fold(struct div_part *t, const struct div_part *q, size_t cells)
{
	t->n_diff += q->n_diff;
	for (int k = 0; k < ULP_BUCKETS; k++)
		t->hist[k] += q->hist[k];
	t->n_class += q->n_class;
	t->n_nan_bits += q->n_nan_bits;
	t->n_sign += q->n_sign;
	if (q->max_ulp_idx >= 0 && (t->max_ulp_idx < 0 || q->max_ulp > t->max_ulp)) {
		t->max_ulp = q->max_ulp;
		t->max_ulp_idx = q->max_ulp_idx;
	}
	if (q->max_abs_idx >= 0 && (t->max_abs_idx < 0 || q->max_abs > t->max_abs)) {
		t->max_abs = q->max_abs;
		t->max_abs_idx = q->max_abs_idx;
	}
	if (t->first_idx < 0)
		t->first_idx = q->first_idx;
	t->rows_touched += q->rows_touched;
	t->ref_compared += q->ref_compared;
	t->b_closer += q->b_closer;
	t->a_closer += q->a_closer;
	for (size_t i = 0; t->map && i < cells; i++)
		t->map[i] += q->map[i];
}

static void fill_out(const struct divergence_input *in, const struct div_geom *g, const struct div_part *t,
		     struct results_divergence *out)
{
	out->elems = in->elems;
	out->n_diff = t->n_diff;
	memcpy(out->ulp_hist, t->hist, sizeof out->ulp_hist);
	out->n_class = t->n_class;
	out->n_nan_bits = t->n_nan_bits;
	out->n_sign = t->n_sign;
	out->max_ulp = t->max_ulp_idx < 0 ? 0 : t->max_ulp > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t->max_ulp;
	out->at_max_ulp = elem_at(in, t->max_ulp_idx);
	out->max_abs = t->max_abs_idx < 0 ? NAN : t->max_abs;
	out->at_max_abs = elem_at(in, t->max_abs_idx);
	out->first = elem_at(in, t->first_idx);
	out->rows = g->rows;
	out->rows_touched = t->rows_touched;
	out->map_by_head = g->by_head;
	out->map_rows = g->map_rows;
	out->map_cols = g->map_cols;
	out->map_row_bin = g->row_bin;
	out->map_col_bin = g->col_bin;
	out->map = t->map;
	out->has_ref = in->ref != NULL;
	out->ref_compared = t->ref_compared;
	out->b_closer = t->b_closer;
	out->a_closer = t->a_closer;
}

enum ab_rc divergence_compare(const struct divergence_input *in, int k, bool *differs, struct results_divergence *out,
			      struct ab_diag *d)
{
	struct div_geom g;
	geom_of(in, &g);
	*differs = in->elems > 0 && memcmp(in->a, in->b, (size_t)in->elems * g.esize) != 0;
	if (!*differs)
		return AB_OK;
	if (k <= 0)
		k = par_threads(g.rows, in->elems, DIVERGENCE_MIN_ELEMS);
	if (k > PAR_THREADS_MAX)
		k = PAR_THREADS_MAX;
	struct div_ctx *c = calloc(1, sizeof *c);
	struct div_part total;
	size_t cells = (size_t)g.map_rows * (size_t)g.map_cols;
	bool ok = c != NULL;
	for (int p = 0; ok && p < k; p++)
		ok = (c->part[p].map = calloc(cells ? cells : 1, sizeof(uint32_t))) != NULL;
	total.map = ok ? calloc(cells ? cells : 1, sizeof(uint32_t)) : NULL;
	if (ok && total.map) {
		c->in = in;
		c->g = &g;
		par_for(g.rows, k, div_range, c);
		part_init(&total);
		for (int p = 0; p < k; p++)
			fold(&total, &c->part[p], cells);
		fill_out(in, &g, &total, out);
	}
	for (int p = 0; c && p < k; p++)
		free(c->part[p].map);
	free(c);
	if (!ok || !total.map) {
		free(total.map);
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate the divergence map (%zu cells)", cells);
	}
	return AB_OK;
}
