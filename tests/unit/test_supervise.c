/*
 * test_supervise.c - where a Python call stopped at its limit was, read
 * from the message each backend gives (run/supervise.h): the CPU
 * backend's "arm 'f': PLACE: _abbench_pyrt.Stopped" and the CUDA
 * backend's "case 'c', arm 'f', sample 1: PLACE: ...".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "run/supervise.h"

static void place_of(const char *msg, const char *want)
{
	char where[256];
	supervise_stopped_place(msg, where, sizeof where);
	assert_string_equal(where, want);
}

static void test_cpu_backend_message(void **state)
{
	(void)state;
	place_of("arm 'spins': /t/stops.py:44: in spins: _abbench_pyrt.Stopped: stopped by abbench",
		 "; stopped at /t/stops.py:44: in spins");
}

static void test_cuda_backend_message(void **state)
{
	(void)state;
	place_of("case 'gate', arm 'spins', sample 1: /t/stops.py:44: in spins: _abbench_pyrt.Stopped: stopped by abbench",
		 "; stopped at /t/stops.py:44: in spins");
}

static void test_message_without_a_place(void **state)
{
	(void)state;
	place_of("arm 'spins': CUDA error: an illegal memory access", "");
	place_of("arm 'spins': _abbench_pyrt.Stopped: stopped by abbench", "");
	place_of("sample 1: in spins: _abbench_pyrt.Stopped", "");
	place_of("", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_backend_message),
		cmocka_unit_test(test_cuda_backend_message),
		cmocka_unit_test(test_message_without_a_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
