/*
 * test_backend.c - the backend table and what goes through it
 * (backend.c): every row named once, its ops (when built in) complete and
 * under the row's name; the lookups by name; the one parser of "auto" and
 * the names; backend_choose (cpu always; cuda refused with the reason when
 * this build or machine has no CUDA device; auto falls back to the CPU
 * and says why; an unknown name); and what each backend runs: every
 * built-in variant of the registry on exactly the backends its code is
 * filed under (and those names are the table's), arms from outside by
 * their functions, arm kinds by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"

static void test_table(void **state)
{
	(void)state;
	int n = 0, fallbacks = 0;
	for (const struct backend_entry *e = backend_table; e->name; e++, n++) {
		for (const struct backend_entry *f = backend_table; f < e; f++)
			assert_string_not_equal(f->name, e->name);
		assert_ptr_equal(backend_entry_find(e->name), e);
		assert_ptr_equal(backend_find(e->name), e->ops);
		fallbacks += e->fallback;
		if (!e->ops) {
			assert_non_null(e->absent);
			continue;
		}
		const struct backend_ops *o = e->ops;
		assert_string_equal(o->name, e->name);
		assert_non_null(o->build);
		/* it calls arms from outside one way: exactly one buffers' capability */
		unsigned buffers = o->caps & (BACKEND_CAP_HOST_BUFFERS | BACKEND_CAP_CUDA_STREAM);
		assert_true(buffers == BACKEND_CAP_HOST_BUFFERS || buffers == BACKEND_CAP_CUDA_STREAM);
		void (*const members[])(void) = {
			(void (*)(void))o->supports,      (void (*)(void))o->available,  (void (*)(void))o->device_count,
			(void (*)(void))o->open,          (void (*)(void))o->close,      (void (*)(void))o->describe,
			(void (*)(void))o->fake_timer,    (void (*)(void))o->measure_copy_gbps,
			(void (*)(void))o->case_begin,    (void (*)(void))o->slot_begin, (void (*)(void))o->sample,
			(void (*)(void))o->slot_end,      (void (*)(void))o->read_tensor, (void (*)(void))o->case_end,
			(void (*)(void))o->case_memory,   (void (*)(void))o->notes,
		};
		for (size_t k = 0; k < sizeof members / sizeof members[0]; k++)
			assert_non_null(members[k]);
	}
	assert_int_equal(n, 2);
	assert_int_equal(fallbacks, 1);
	assert_true(backend_entry_find("cpu")->fallback);
	assert_ptr_equal(backend_find("cpu"), &backend_cpu);
	assert_null(backend_entry_find("tpu"));
	assert_null(backend_find("tpu"));
	assert_null(backend_find(NULL));
	assert_null(backend_find(BACKEND_AUTO)); /* a choice, not a backend */
#if AB_HAVE_CUDA
	assert_ptr_equal(backend_find("cuda"), &backend_cuda);
#else
	assert_null(backend_find("cuda"));
	assert_non_null(backend_entry_find("cuda")); /* known, and says why it is absent */
#endif
}

static void test_names(void **state)
{
	(void)state;
	const char *const *names = backend_choice_names();
	const char *c = NULL;
	assert_string_equal(names[0], "auto");
	assert_string_equal(names[1], "cpu");
	assert_string_equal(names[2], "cuda");
	assert_null(names[3]);
	for (int i = 0; names[i]; i++) {
		assert_true(backend_choice_parse(names[i], &c));
		assert_string_equal(c, names[i]);
	}
	char lower[] = "cuda";
	assert_true(backend_choice_parse(lower, &c));
	assert_ptr_equal(c, backend_entry_find("cuda")->name); /* the table's own string */
	c = "untouched";
	assert_false(backend_choice_parse("CUDA", &c));
	assert_false(backend_choice_parse("", &c));
	assert_false(backend_choice_parse("cpu ", &c));
	assert_false(backend_choice_parse(NULL, &c));
	assert_string_equal(c, "untouched");

	char buf[64];
	backend_names(buf, sizeof buf, ", ");
	assert_string_equal(buf, "cpu, cuda");
	backend_names(buf, sizeof buf, " or ");
	assert_string_equal(buf, "cpu or cuda");
	backend_names(buf, 5, ", ");
	assert_string_equal(buf, "cpu,"); /* cut to fit */
}

static bool cuda_here(char *why, size_t len)
{
	return backend_usable(backend_entry_find("cuda"), why, len);
}

static void test_choose(void **state)
{
	(void)state;
	const struct backend_ops *ops = NULL;
	char why[512], here[256];
	bool fell_back = true;
	struct ab_diag d;
	assert_int_equal(backend_choose("cpu", &ops, &fell_back, why, sizeof why, &d), AB_OK);
	assert_ptr_equal(ops, &backend_cpu);
	assert_false(fell_back);

	bool cuda = cuda_here(here, sizeof here);
	enum ab_rc rc = backend_choose("cuda", &ops, &fell_back, why, sizeof why, &d);
	if (cuda) {
		assert_int_equal(rc, AB_OK);
		assert_ptr_equal(ops, backend_find("cuda"));
	} else {
		assert_int_equal(rc, AB_ERR_USAGE);
		assert_int_equal(strncmp(d.msg, "backend 'cuda' is not available: ", 33), 0);
		assert_string_equal(why, here);
		if (!backend_find("cuda"))
			assert_string_equal(why, "this abbench was built without the CUDA backend (no nvcc at build time)");
	}

	assert_int_equal(backend_choose(BACKEND_AUTO, &ops, &fell_back, why, sizeof why, &d), AB_OK);
	assert_ptr_equal(ops, cuda ? backend_find("cuda") : &backend_cpu);
	assert_int_equal(fell_back, !cuda);
	if (!cuda) {
		char want[600];
		snprintf(want, sizeof want, "cuda is not available (%s)", here);
		assert_string_equal(why, want);
	}

	assert_int_equal(backend_choose("tpu", &ops, &fell_back, why, sizeof why, &d), AB_ERR_USAGE);
	assert_string_equal(d.msg, "unknown backend 'tpu' (backends: cpu, cuda)");
}

/* Every built-in variant runs on exactly the backends its code is filed
 * under, and every such name is a row of the table. */
static void test_supports_variants(void **state)
{
	(void)state;
	int checked = 0;
	for (const struct site_desc *const *s = site_registry; *s; s++)
		for (int i = 0; i < (*s)->n_variants; i++) {
			const struct site_variant *v = &(*s)->variants[i];
			for (int k = 0; k < SITE_MAX_IMPLS; k++)
				if (v->impls[k].backend)
					assert_non_null(backend_entry_find(v->impls[k].backend));
			for (const struct backend_entry *e = backend_table; e->name; e++) {
				if (!e->ops)
					continue;
				assert_int_equal(backend_supports_variant(e->ops, v), site_variant_impl(v, e->name) != NULL);
				checked++;
			}
			bool tuning = !strncmp(v->name, "fused.", 6);
			assert_int_equal(backend_supports_variant(&backend_cpu, v), !tuning); /* tunings are GPU code */
		}
	assert_true(checked > 20);

	char on[64];
	const struct site_variant *tp = site_find_variant(site_find("ln_modulate"), "twopass");
	backend_names_for_variant(tp, on, sizeof on);
	assert_string_equal(on, "cpu");
	const struct site_variant *pf8 = site_find_variant(site_find("ln_modulate"), "fused.pf8");
	backend_names_for_variant(pf8, on, sizeof on);
	assert_string_equal(on, AB_HAVE_CUDA ? "cuda" : "");
	const struct site_variant *eager = site_find_variant(site_find("ln_modulate"), "eager");
	backend_names_for_variant(eager, on, sizeof on);
	assert_string_equal(on, AB_HAVE_CUDA ? "cpu, cuda" : "cpu");
	assert_false(backend_supports_variant(NULL, eager));
}

static int ext_fn(void *ctx, const struct site_args *a, enum site_ext_on on, void *stream, char *err, size_t len)
{
	(void)ctx, (void)a, (void)on, (void)stream, (void)err, (void)len;
	return 0;
}

/* An arm from outside runs where it has a function: its own variant has
 * no impls at all. */
static void test_supports_ext(void **state)
{
	(void)state;
	const struct site_ext_arm cpu_only = { .step = "x", .on = SITE_EXT_ON_BIT(SITE_EXT_HOST), .call = ext_fn };
	const struct site_ext_arm none = { .step = "x", .call = ext_fn };
	const struct site_ext_arm no_call = { .step = "x", .on = SITE_EXT_ON_BIT(SITE_EXT_HOST) };
	const struct site_ext_arm cuda_only = { .step = "x", .on = SITE_EXT_ON_BIT(SITE_EXT_CUDA_STREAM), .call = ext_fn };
	const struct site_variant c = { .name = "r", .summary = "", .byte_equal_expected = true, .ext = &no_call };
	const struct site_variant g = { .name = "s", .summary = "", .byte_equal_expected = true, .ext = &cuda_only };
	assert_false(backend_supports_variant(&backend_cpu, &c)); /* a way with no call */
	assert_false(backend_supports_variant(&backend_cpu, &g));
	const struct site_variant a = { .name = "p", .summary = "", .byte_equal_expected = true, .ext = &cpu_only };
	const struct site_variant b = { .name = "q", .summary = "", .byte_equal_expected = true, .ext = &none };
	assert_true(backend_supports_variant(&backend_cpu, &a));
	assert_false(backend_supports_variant(&backend_cpu, &b));
	const struct backend_ops *cuda = backend_find("cuda");
	if (cuda) {
		assert_false(backend_supports_variant(cuda, &a));
		assert_false(backend_supports_variant(cuda, &b));
		assert_true(backend_supports_variant(cuda, &g));
	}
	char on[64];
	backend_names_for_variant(&a, on, sizeof on);
	assert_string_equal(on, "cpu");
	backend_names_for_variant(&b, on, sizeof on);
	assert_string_equal(on, "");
}

/* What the kinds of arm ask, by the run's backend name: capabilities,
 * never kinds. */
static void test_caps(void **state)
{
	(void)state;
	const unsigned cubin = BACKEND_CAP_CUDA_STREAM | BACKEND_CAP_DRIVER_MODULE;
	assert_int_equal(backend_caps("cpu"), BACKEND_CAP_HOST_BUFFERS);
	assert_true(backend_has_caps("cpu", BACKEND_CAP_HOST_BUFFERS));
	assert_false(backend_has_caps("cpu", cubin));
	assert_false(backend_has_caps("cpu", BACKEND_CAP_HOST_BUFFERS | BACKEND_CAP_DRIVER_MODULE)); /* all of them */
	assert_true(backend_has_caps("cpu", 0));
	assert_false(backend_has_caps("tpu", 0)); /* no such backend */
	assert_false(backend_has_caps(NULL, BACKEND_CAP_HOST_BUFFERS));
	assert_int_equal(backend_caps("tpu"), 0);
	assert_int_equal(backend_has_caps("cuda", cubin), AB_HAVE_CUDA);
	assert_int_equal(backend_has_caps("cuda", BACKEND_CAP_CUDA_STREAM), AB_HAVE_CUDA);
	assert_false(backend_has_caps("cuda", BACKEND_CAP_HOST_BUFFERS));
	char on[64];
	backend_names_with_caps(cubin, false, on, sizeof on);
	assert_string_equal(on, AB_HAVE_CUDA ? "cuda" : "");
	backend_names_with_caps(BACKEND_CAP_HOST_BUFFERS | BACKEND_CAP_CUDA_STREAM, true, on, sizeof on);
	assert_string_equal(on, AB_HAVE_CUDA ? "cpu, cuda" : "cpu");
	backend_names_with_caps(BACKEND_CAP_HOST_BUFFERS | BACKEND_CAP_CUDA_STREAM, false, on, sizeof on);
	assert_string_equal(on, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_supports_variants),
		cmocka_unit_test(test_supports_ext),
		cmocka_unit_test(test_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
