/*
 * test_backend.c - the backends' names and the choice of a run's backend
 * (backend.c): the one parser of "auto|cpu|cuda", its names in enum
 * order, and backend_choose (cpu always; cuda refused with the reason
 * when this build or machine has no CUDA device; auto falls back to the
 * CPU and says why).
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

static void test_names(void **state)
{
	(void)state;
	static const enum backend_choice all[] = { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA };
	enum backend_choice c;
	int n = 0;
	for (; backend_choice_names[n]; n++) {
		assert_true(backend_choice_parse(backend_choice_names[n], &c));
		assert_int_equal(c, all[n]);
		assert_string_equal(backend_choice_name(c), backend_choice_names[n]);
	}
	assert_int_equal(n, 3);
	assert_string_equal(backend_choice_name(BACKEND_AUTO), "auto");
	assert_string_equal(backend_choice_name(BACKEND_CPU), "cpu");
	assert_string_equal(backend_choice_name(BACKEND_CUDA), "cuda");
	c = BACKEND_CPU;
	assert_false(backend_choice_parse("CUDA", &c));
	assert_false(backend_choice_parse("", &c));
	assert_false(backend_choice_parse("cpu ", &c));
	assert_int_equal(c, BACKEND_CPU); /* untouched on failure */
}

static bool cuda_here(char *why, size_t len)
{
	return backend_cuda_ops && backend_cuda_ops->available(why, len);
}

static void test_choose(void **state)
{
	(void)state;
	const struct backend_ops *ops = NULL;
	char why[256], here[256];
	bool fell_back = true;
	struct ab_diag d;
	assert_int_equal(backend_choose(BACKEND_CPU, &ops, &fell_back, why, sizeof why, &d), AB_OK);
	assert_ptr_equal(ops, &backend_cpu);
	assert_false(fell_back);

	bool cuda = cuda_here(here, sizeof here);
	enum ab_rc rc = backend_choose(BACKEND_CUDA, &ops, &fell_back, why, sizeof why, &d);
	if (cuda) {
		assert_int_equal(rc, AB_OK);
		assert_ptr_equal(ops, backend_cuda_ops);
	} else {
		assert_int_equal(rc, AB_ERR_USAGE);
		assert_int_equal(strncmp(d.msg, "backend 'cuda' is not available: ", 33), 0);
		if (!backend_cuda_ops)
			assert_string_equal(why, "this abbench was built without the CUDA backend (no nvcc at build time)");
	}

	assert_int_equal(backend_choose(BACKEND_AUTO, &ops, &fell_back, why, sizeof why, &d), AB_OK);
	assert_ptr_equal(ops, cuda ? backend_cuda_ops : &backend_cpu);
	assert_int_equal(fell_back, !cuda);
	if (!cuda)
		assert_true(why[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_choose),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
