/*
 * test_pyrt_fake_torch.c - pyrt's CUDA path (harness/arms/pyrt.h) as far
 * as a machine without a GPU can check it: Debian's /usr/bin/python3 with
 * PYTHONPATH at tests/data/python/fake_torch, a stand-in torch that
 * answers what pyrt asks (as_tensor over __cuda_array_interface__, views
 * as bfloat16, an external stream made current) and records it. The
 * pointers are never dereferenced. What it shows: pyrt_need(PYRT_CUDA)
 * imports torch; bind makes one tensor per buffer, on the device asked,
 * bf16 as torch.bfloat16; activate makes abbench's stream torch's current
 * one (and unbind puts the default back); verify sees a stream changed by
 * the function; unbind sees a tensor kept. The real torch and Triton are
 * checked on the GPU machine (scripts/gpu/pyrt_check.sh).
 *
 * Its own process: PYTHONPATH must be set before the interpreter starts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "arms/pyrt.h"

#define DEBIAN_PYTHON "/usr/bin/python3"

static struct pyrt *rt;
static struct pyrt_module *mod;

static void contains(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message: %s\nwanted in it: %s", msg, want);
}

static const struct pyrt_case kase = { .name = "fake", .site = "toy" };
static const struct pyrt_target gpu1 = { .device = PYRT_CUDA, .cuda_device = 1, .stream = (void *)0xabc0 };

static struct pyrt_bound *bind(const char *name)
{
	struct pyrt_tensor t[3] = {
		{ .name = "x", .dtype = PYRT_F32, .rank = 1, .shape = { 6 }, .data = (void *)0x70000000, .read_only = true },
		{ .name = "xb", .dtype = PYRT_BF16, .rank = 1, .shape = { 6 }, .data = (void *)0x70001000, .read_only = true },
		{ .name = "out", .dtype = PYRT_F32, .rank = 2, .shape = { 2, 3 }, .data = (void *)0x70002000 },
	};
	struct pyrt_fn *fn;
	struct pyrt_bound *b;
	struct ab_diag d = { "" };
	if (pyrt_function(mod, name, &fn, &d) != AB_OK || pyrt_bind(fn, &kase, t, 3, &gpu1, &b, &d) != AB_OK)
		fail_msg("%s: %s", name, d.msg);
	return b;
}

static void test_stream_current(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	char text[1024];
	pyrt_describe(rt, text, sizeof text);
	contains(text, ", torch 0.0+abbench-stand-in");
	struct pyrt_bound *b = bind("check");
	assert_int_equal(pyrt_activate(b, &d), AB_OK);
	if (pyrt_call(b, &d) != AB_OK)
		fail_msg("%s", d.msg);
	assert_int_equal(pyrt_verify(b, &d), AB_OK);
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
	/* Unbound, the default stream is current again: without activate the
	 * function sees torch's stream, not abbench's. */
	b = bind("check");
	assert_int_equal(pyrt_call(b, &d), AB_ERR_INPUT);
	contains(d.msg, "cuda_arms.py:");
	contains(d.msg, "in check: ValueError: current stream 0x0, abbench stream 0xabc0");
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

static void test_stream_changed(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct pyrt_bound *b = bind("other_stream");
	assert_int_equal(pyrt_activate(b, &d), AB_OK);
	assert_int_equal(pyrt_call(b, &d), AB_OK);
	assert_int_equal(pyrt_verify(b, &d), AB_ERR_INPUT);
	contains(d.msg, "function 'other_stream' left another current stream");
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

static void test_kept(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct pyrt_bound *b = bind("keeps");
	assert_int_equal(pyrt_activate(b, &d), AB_OK);
	assert_int_equal(pyrt_call(b, &d), AB_OK);
	assert_int_equal(pyrt_unbind(b, &d), AB_ERR_INPUT);
	contains(d.msg, "function 'keeps' kept t['xb'] after the case");
}

static int setup(void **state)
{
	(void)state;
	char fake[4096], arms[4096];
	struct ab_diag d = { "" };
	struct pyrt_options o = { .python = DEBIAN_PYTHON };
	if (!realpath("tests/data/python/fake_torch", fake) || !realpath("tests/data/python/cuda_arms.py", arms))
		return -1;
	setenv("PYTHONPATH", fake, 1);
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
	if (pyrt_open(&o, &rt, &d) != AB_OK || pyrt_need(rt, PYRT_CUDA, &d) != AB_OK ||
	    pyrt_import(rt, arms, &mod, &d) != AB_OK) {
		fprintf(stderr, "pyrt: %s\n", d.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pyrt_close(rt);
	return 0;
}

int main(void)
{
	if (access(DEBIAN_PYTHON, X_OK) != 0) {
		printf("SKIP: no %s (make deps installs it)\n", DEBIAN_PYTHON);
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_current),
		cmocka_unit_test(test_stream_changed),
		cmocka_unit_test(test_kept),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
