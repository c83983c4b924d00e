/*
 * test_refcompute.c - refcompute_run: the reference's rows on k threads
 * give the serial reference's bytes.
 *
 * For every built-in site, with and without affine, on normal data and on
 * rows carrying NaN, +-Inf, the largest finite bf16 and subnormals (the
 * rows whose ref and tol take the special paths), and at row counts that k
 * does not divide (k = 1, 2, 3, 5, 16, and the automatic choice): ref and
 * tol are memcmp-equal to one call of site_desc.reference over all rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/refcompute.h"
#include "kernels/common/bf16.h"
#include "kernels/common/site.h"

struct tcase {
	const struct site_desc *s;
	struct site_args a;
	double *ref[SITE_MAX_TENSORS], *tol[SITE_MAX_TENSORS];
	size_t ref_bytes[SITE_MAX_TENSORS];
	int n_out;
};

static uint64_t rng;

static double uniform01(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) * 0x1p-53;
}

/* Inputs: uniform(-3, 3) bf16, and with special one of NaN, +Inf, -Inf,
 * +max, a subnormal at one position of every third row. */
static void tc_init(struct tcase *c, const char *site, const char *shape, bool affine, bool special)
{
	static const bf16_t pat[5] = { 0x7FFF, 0x7F80, 0xFF80, 0x7F7F, 0x0001 };
	struct site_shape sh;
	char err[256];
	memset(c, 0, sizeof *c);
	rng = 0x9E3779B97F4A7C15ull;
	c->s = site_find(site);
	assert_non_null(c->s);
	assert_true(site_parse_shape(shape, &sh));
	if (!c->s->geometry(&sh, &c->a.dims, err, sizeof err))
		fail_msg("%s %s: %s", site, shape, err);
	c->a.eps = 1e-5f;
	c->a.affine = affine;
	for (int i = 0; i < c->s->n_tensors; i++) {
		const struct site_tensor *t = &c->s->tensors[i];
		if (!site_tensor_present(t, affine))
			continue;
		int64_t n = site_tensor_elems(t, &c->a.dims);
		bf16_t *p = malloc((size_t)site_tensor_bytes(t, &c->a.dims));
		assert_non_null(p);
		c->a.t[i] = p;
		for (int64_t e = 0; e < n; e++)
			p[e] = bf16_from_float((float)(6.0 * uniform01() - 3.0));
		if (special && t->role == SITE_IN_ACT)
			for (int64_t e = 0; e < n; e += 3 * c->a.dims.row_len + 1)
				p[e] = pat[(e / c->a.dims.row_len) % 5];
		if (t->role == SITE_OUT) {
			c->ref_bytes[c->n_out] = (size_t)n * sizeof(double);
			c->ref[c->n_out] = malloc(c->ref_bytes[c->n_out]);
			c->tol[c->n_out] = malloc(c->ref_bytes[c->n_out]);
			assert_non_null(c->ref[c->n_out]);
			assert_non_null(c->tol[c->n_out]);
			c->n_out++;
		}
	}
}

static void tc_free(struct tcase *c)
{
	for (int i = 0; i < SITE_MAX_TENSORS; i++) {
		free(c->a.t[i]);
		free(c->ref[i]);
		free(c->tol[i]);
	}
}

/* The serial reference, kept; then refcompute_run on k threads over
 * poisoned arrays must give the same bytes. */
static void check_site(const char *site, const char *shape, bool affine, bool special)
{
	static const int ks[] = { 1, 2, 3, 5, 16, 0 };
	struct tcase c;
	double *want_ref[SITE_MAX_TENSORS], *want_tol[SITE_MAX_TENSORS];
	tc_init(&c, site, shape, affine, special);
	c.s->reference(&c.a, 0, c.a.dims.rows, c.ref, c.tol);
	for (int o = 0; o < c.n_out; o++) {
		want_ref[o] = malloc(c.ref_bytes[o]);
		want_tol[o] = malloc(c.ref_bytes[o]);
		assert_non_null(want_ref[o]);
		assert_non_null(want_tol[o]);
		memcpy(want_ref[o], c.ref[o], c.ref_bytes[o]);
		memcpy(want_tol[o], c.tol[o], c.ref_bytes[o]);
	}
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		for (int o = 0; o < c.n_out; o++) {
			memset(c.ref[o], 0xA5, c.ref_bytes[o]);
			memset(c.tol[o], 0x5A, c.ref_bytes[o]);
		}
		refcompute_run(c.s, &c.a, c.ref, c.tol, ks[i]);
		for (int o = 0; o < c.n_out; o++) {
			if (memcmp(want_ref[o], c.ref[o], c.ref_bytes[o]) || memcmp(want_tol[o], c.tol[o], c.ref_bytes[o]))
				fail_msg("%s %s affine %d special %d k %d: output %d differs from the serial reference", site,
					 shape, affine, special, ks[i], o);
		}
	}
	for (int o = 0; o < c.n_out; o++) {
		free(want_ref[o]);
		free(want_tol[o]);
	}
	tc_free(&c);
}

static void check_all(const char *site, const char *const *shapes, int n)
{
	for (int i = 0; i < n; i++)
		for (int f = 0; f < 4; f++)
			check_site(site, shapes[i], f & 1, f & 2);
}

static void test_ln_modulate(void **state)
{
	(void)state;
	/* rows 1, 7, 2 x 13 = 26, and 1031 (prime) */
	static const char *const shapes[] = { "1x1x64", "1x7x64", "2x13x128", "1x1031x64" };
	check_all("ln_modulate", shapes, 4);
}

static void test_qk_layernorm(void **state)
{
	(void)state;
	/* rows T x H: 3, 5 x 3 = 15, 2 x 17 x 2 = 68 */
	static const char *const shapes[] = { "1x3x1x64", "1x5x3x64", "2x17x2x128" };
	check_all("qk_layernorm", shapes, 3);
}

static void test_residual_gate_add(void **state)
{
	(void)state;
	static const char *const shapes[] = { "1x1x64", "1x11x64", "3x37x256" };
	check_all("residual_gate_add", shapes, 3);
}

/* Above REFCOMPUTE_MIN_ELEMS the automatic choice may thread: the bytes
 * stay the serial ones (4099 rows of 256: 1,049,344 elements). */
static void test_large_auto(void **state)
{
	(void)state;
	check_site("ln_modulate", "1x4099x256", false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ln_modulate),
		cmocka_unit_test(test_qk_layernorm),
		cmocka_unit_test(test_residual_gate_add),
		cmocka_unit_test(test_large_auto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
