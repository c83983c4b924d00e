/*
 * test_pyrt.c - the Python runtime (harness/arms/pyrt.h) with Debian's
 * /usr/bin/python3 and its python3-numpy, named explicitly (python3 on
 * PATH is a pyenv shim here): libpython loaded once, modules imported from
 * tests/data/python/, fn(t, d) called over this test's own malloc'd
 * buffers (zero copy: the function's writes are seen in C), and every
 * error a user's code can make: a syntax error, a missing import, a
 * missing function, an exception in a call, a tensor replaced, deleted or
 * added, a value returned, an input written, an array reshaped in place
 * or kept beyond the case. Ends by timing the per-call overhead (printed,
 * not asserted: this machine is shared).
 *
 * Expected line numbers are found in the modules by their 'MARK:'
 * comments, so the modules can change without breaking the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "arms/pyrt.h"

#define DEBIAN_PYTHON "/usr/bin/python3"
#define N 12

static struct pyrt *rt;

static void contains(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message: %s\nwanted in it: %s", msg, want);
}

/* The absolute path of tests/data/python/name (one of four buffers). */
static const char *module(const char *name)
{
	static char buf[4][4096];
	static int next;
	char rel[512];
	char *p = buf[next++ % 4];
	snprintf(rel, sizeof rel, "tests/data/python/%s", name);
	assert_non_null(realpath(rel, p));
	return p;
}

/* The line of path whose text holds "MARK: mark". */
static int line_of(const char *path, const char *mark)
{
	char line[1024], want[128];
	int n = 0;
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	snprintf(want, sizeof want, "MARK: %s", mark);
	while (fgets(line, sizeof line, f)) {
		n++;
		if (strstr(line, want)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no '%s' in %s", want, path);
	return 0;
}

static struct pyrt_fn *function(const char *file, const char *name)
{
	struct pyrt_module *m;
	struct pyrt_fn *fn;
	struct ab_diag d = { "" };
	if (pyrt_import(rt, module(file), &m, &d) != AB_OK)
		fail_msg("import %s: %s", file, d.msg);
	if (pyrt_function(m, name, &fn, &d) != AB_OK)
		fail_msg("function %s: %s", name, d.msg);
	return fn;
}

static const struct pyrt_int axes[] = { { "B", 1 }, { "T", 3 }, { "W", 4 } };
static const struct pyrt_int dims[] = { { "rows", 3 }, { "row_len", 4 } };
static const struct pyrt_case case1 = { .name = "c1", .site = "toy", .n_axes = 3, .axes = axes, .n_dims = 2,
					.dims = dims, .eps = 1e-6, .affine = false };
static const struct pyrt_target cpu = { .device = PYRT_CPU };

/* A binding of arms.py's name over x (input) and out (output), of dtype
 * dt and n elements each (3 x n/3), and w (absent). */
static struct pyrt_bound *bind(const char *name, enum pyrt_dtype dt, void *x, void *out, int n)
{
	struct pyrt_tensor t[3] = {
		{ .name = "x", .dtype = dt, .rank = 2, .shape = { 3, n / 3 }, .data = x, .read_only = true },
		{ .name = "out", .dtype = dt, .rank = 2, .shape = { 3, n / 3 }, .data = out },
		{ .name = "w", .dtype = PYRT_BF16, .rank = 1, .shape = { 4 }, .data = NULL },
	};
	struct pyrt_bound *b;
	struct ab_diag d = { "" };
	if (pyrt_bind(function("arms.py", name), &case1, t, 3, &cpu, &b, &d) != AB_OK)
		fail_msg("bind %s: %s", name, d.msg);
	return b;
}

/* Calls arms.py's name once over f32 buffers; its message in d. */
static enum ab_rc call_once(const char *name, struct ab_diag *d)
{
	float x[N], out[N];
	for (int i = 0; i < N; i++)
		x[i] = (float)i;
	struct pyrt_bound *b = bind(name, PYRT_F32, x, out, N);
	enum ab_rc rc = pyrt_call(b, d);
	struct ab_diag u = { "" };
	assert_int_equal(pyrt_unbind(b, &u), AB_OK);
	return rc;
}

/* ---- the runtime ---------------------------------------------------------------- */

static void test_open(void **state)
{
	(void)state;
	char text[1024];
	const struct pyrt_interp *ip = pyrt_interp(rt);
	assert_string_equal(ip->program, DEBIAN_PYTHON);
	pyrt_describe(rt, text, sizeof text);
	contains(text, "python 3.");
	contains(text, ip->libpython);
	contains(text, ", numpy ");
	printf("# %s\n", text);
	/* A second open of the same interpreter shares the first. */
	struct pyrt *again;
	struct ab_diag d = { "" };
	struct pyrt_options o = { .python = DEBIAN_PYTHON };
	assert_int_equal(pyrt_open(&o, &again, &d), AB_OK);
	assert_ptr_equal(again, rt);
	pyrt_close(again);
	assert_int_equal(pyrt_need(rt, PYRT_CPU, &d), AB_OK);
}

/* Another libpython than the one loaded: refused before it is opened. */
static void test_one_interpreter(void **state)
{
	(void)state;
	char dir[] = "/tmp/abbench-pyrt-XXXXXX", path[256], cmd[600];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/libpython3.11.so.1.0", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof path, "%s/python3", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat <<EOF\n{\"abbench_probe\": 1, \"implementation\": \"cpython\", \"version\": [%d, %d, 0], "
		   "\"executable\": \"$0\", \"prefix\": \"%s\", \"base_prefix\": \"%s\", \"shared\": 1, \"libdir\": \"%s\", "
		   "\"ldlibrary\": \"x\", \"instsoname\": \"libpython3.11.so.1.0\", \"multiarch\": null, \"libpl\": null, "
		   "\"loaded\": [], \"path\": []}\nEOF\n",
		pyrt_interp(rt)->major, pyrt_interp(rt)->minor, dir, dir, dir);
	fclose(f);
	chmod(path, 0755);
	struct pyrt *other;
	struct ab_diag d = { "" };
	struct pyrt_options o = { .python = path };
	assert_int_equal(pyrt_open(&o, &other, &d), AB_ERR_INPUT);
	contains(d.msg, "this process already runs");
	contains(d.msg, "one interpreter per process");
	assert_null(other);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A cuda binding needs torch with a device: neither is here. */
static void test_need_cuda(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	if (access("/dev/nvidiactl", F_OK) == 0)
		skip();
	assert_int_equal(pyrt_need(rt, PYRT_CUDA, &d), AB_ERR_BACKEND);
	contains(d.msg, "torch");
	contains(d.msg, DEBIAN_PYTHON);
	struct pyrt_tensor t = { .name = "x", .dtype = PYRT_F32, .rank = 1, .shape = { 1 }, .data = &d };
	struct pyrt_target gpu = { .device = PYRT_CUDA };
	struct pyrt_bound *b;
	assert_int_equal(pyrt_bind(function("arms.py", "noop"), &case1, &t, 1, &gpu, &b, &d), AB_ERR_INTERNAL);
	contains(d.msg, "pyrt_bind before pyrt_need(cuda)");
}

/* ---- modules and functions -------------------------------------------------------- */

static void import_fails(const char *file, const char *want)
{
	struct pyrt_module *m;
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_import(rt, module(file), &m, &d), AB_ERR_INPUT);
	assert_null(m);
	contains(d.msg, want);
}

static void test_import_errors(void **state)
{
	(void)state;
	char want[8192];
	const char *p = module("syntax_error.py");
	snprintf(want, sizeof want, "%s:%d: SyntaxError: ", p, line_of(p, "syntax"));
	import_fails("syntax_error.py", want);
	p = module("import_missing.py");
	snprintf(want, sizeof want, "%s:%d: ModuleNotFoundError: No module named 'abbench_no_such_module'", p,
		 line_of(p, "import-missing"));
	import_fails("import_missing.py", want);
	/* A neighbour raising: this file's line, then where it was raised. */
	const char *n = module("pyrt_neighbour.py");
	p = module("import_raises.py");
	snprintf(want, sizeof want, "%s:%d: ValueError: the neighbour refuses (raised at %s:%d in <module>)", p,
		 line_of(p, "import-neighbour"), n, line_of(n, "neighbour-raise"));
	import_fails("import_raises.py", want);

	struct pyrt_module *m;
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_import(rt, "/nonexistent-abbench/arm.py", &m, &d), AB_ERR_INPUT);
	contains(d.msg, "cannot read python module '/nonexistent-abbench/arm.py': No such file or directory");
	assert_int_equal(pyrt_import(rt, "tests/data/python/arms.py", &m, &d), AB_ERR_INTERNAL);
	contains(d.msg, "not an absolute path");
}

static void test_import_once(void **state)
{
	(void)state;
	struct pyrt_module *a, *b;
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_import(rt, module("arms.py"), &a, &d), AB_OK);
	char twisted[4096];
	snprintf(twisted, sizeof twisted, "%s/../python/arms.py", module("."));
	assert_int_equal(pyrt_import(rt, twisted, &b, &d), AB_OK);
	assert_ptr_equal(a, b);
	struct pyrt_fn *f1, *f2;
	assert_int_equal(pyrt_function(a, "add_one", &f1, &d), AB_OK);
	assert_int_equal(pyrt_function(b, "add_one", &f2, &d), AB_OK);
	assert_ptr_equal(f1, f2);
}

static void test_function_errors(void **state)
{
	(void)state;
	struct pyrt_module *m;
	struct pyrt_fn *fn;
	struct ab_diag d = { "" };
	char want[4200];
	const char *p = module("arms.py");
	assert_int_equal(pyrt_import(rt, p, &m, &d), AB_OK);
	assert_int_equal(pyrt_function(m, "nope", &fn, &d), AB_ERR_INPUT);
	snprintf(want, sizeof want, "'%s' has no function 'nope' (its functions: add_one, adds, bad_reshape", p);
	contains(d.msg, want);
	assert_int_equal(pyrt_function(m, "NOT_A_FUNCTION", &fn, &d), AB_ERR_INPUT);
	contains(d.msg, "'NOT_A_FUNCTION' is a int, not a function");
	assert_int_equal(pyrt_function(m, "one_arg", &fn, &d), AB_ERR_INPUT);
	contains(d.msg, "function 'one_arg'(t) cannot be called as one_arg(t, d)");
	assert_null(fn);
}

/* ---- calls ------------------------------------------------------------------------- */

/* The function's writes land in the C buffer: no copy either way. */
static void test_zero_copy(void **state)
{
	(void)state;
	float x[N], out[N];
	for (int i = 0; i < N; i++) {
		x[i] = (float)i * 0.5f;
		out[i] = -1.0f;
	}
	struct pyrt_bound *b = bind("add_one", PYRT_F32, x, out, N);
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_call(b, &d), AB_OK);
	for (int i = 0; i < N; i++) {
		assert_true(out[i] == x[i] + 1.0f);
		assert_true(x[i] == (float)i * 0.5f);
	}
	/* The same arrays on the next call: the buffer changed in between. */
	x[3] = 100.0f;
	assert_int_equal(pyrt_call(b, &d), AB_OK);
	assert_true(out[3] == 101.0f);
	assert_int_equal(pyrt_verify(b, &d), AB_OK);
	assert_int_equal(pyrt_activate(b, &d), AB_OK);
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

/* bf16 comes as uint16 arrays of the raw bits. */
static void test_bf16_bits(void **state)
{
	(void)state;
	uint16_t x[N], out[N];
	for (int i = 0; i < N; i++) {
		x[i] = (uint16_t)(0x3f80 + i); /* 1.0, 1.0078125, ... */
		out[i] = 0xffff;
	}
	struct pyrt_bound *b = bind("bf16_bits", PYRT_BF16, x, out, N);
	struct ab_diag d = { "" };
	if (pyrt_call(b, &d) != AB_OK)
		fail_msg("%s", d.msg);
	for (int i = 0; i < N; i++)
		assert_int_equal(out[i], 0x3f81 + i);
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

/* d: case, site, axes, dims, eps, affine, backend, dtypes; read-only;
 * an absent tensor is None; an input is a read-only array. */
static void test_d(void **state)
{
	(void)state;
	float x[6] = { 0 };
	int64_t out[6] = { 0 };
	struct pyrt_tensor t[3] = {
		{ .name = "x", .dtype = PYRT_F32, .rank = 1, .shape = { 6 }, .data = x, .read_only = true },
		{ .name = "out", .dtype = PYRT_I64, .rank = 1, .shape = { 6 }, .data = out },
		{ .name = "w", .dtype = PYRT_BF16, .rank = 1, .shape = { 4 }, .data = NULL },
	};
	struct pyrt_bound *b;
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_bind(function("arms.py", "show_d"), &case1, t, 3, &cpu, &b, &d), AB_OK);
	if (pyrt_call(b, &d) != AB_OK)
		fail_msg("%s", d.msg);
	assert_int_equal(out[0], 3);    /* d['axes']['T'] */
	assert_int_equal(out[1], 3);    /* d['dims']['rows'] */
	assert_int_equal(out[2], 0);    /* d['affine'] */
	assert_int_equal(out[3], 1000); /* d['eps'] * 1e9 */
	assert_int_equal(out[4], 1);    /* d is read-only */
	assert_int_equal(out[5], 0);    /* t['x'] is not writeable */
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

static void call_fails(const char *name, const char *want)
{
	struct ab_diag d = { "" };
	assert_int_equal(call_once(name, &d), AB_ERR_INPUT);
	contains(d.msg, want);
	assert_null(strchr(d.msg, '\n'));
}

/* An exception: the frame in the user's file, then the last frame. */
static void test_exceptions(void **state)
{
	(void)state;
	char want[8192];
	const char *p = module("arms.py");
	snprintf(want, sizeof want, "%s:%d: in bad_reshape: ValueError: cannot reshape array of size 12 into shape (3,3) "
		 "(raised at /", p, line_of(p, "bad-reshape"));
	call_fails("bad_reshape", want);
	call_fails("bad_reshape", "numpy"); /* the last frame is numpy's */
	snprintf(want, sizeof want, "%s:%d: in helper: ZeroDivisionError: division by zero", p, line_of(p, "helper-raise"));
	call_fails("nested", want);
	snprintf(want, sizeof want, "%s:%d: in write_input: ValueError: assignment destination is read-only", p,
		 line_of(p, "write-input"));
	call_fails("write_input", want);
	call_fails("exits", "in exits: SystemExit: 3"); /* sys.exit ends the call, not abbench */
	/* A message whose first line introduces the rest: its last line too. */
	call_fails("long_message", "RuntimeError: compiling the kernel failed at 3:14: ... NameError: foo");
}

static void test_t_changed(void **state)
{
	(void)state;
	char want[4200];
	snprintf(want, sizeof want, "%s: function 'replaces' replaced t['out'] with another ndarray", module("arms.py"));
	call_fails("replaces", want);
	call_fails("deletes", "function 'deletes' deleted t['out']");
	call_fails("adds", "function 'adds' added t['extra']");
}

/* Returning a value is an error: the outputs go into t. */
static void test_returns(void **state)
{
	(void)state;
	call_fails("returns", "function 'returns' returned a ndarray: write the outputs into t");
}

/* pyrt_verify: an array reshaped in place (identity kept). */
static void test_verify(void **state)
{
	(void)state;
	float x[N], out[N];
	struct pyrt_bound *b = bind("reshape_in_place", PYRT_F32, x, out, N);
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_call(b, &d), AB_OK);
	assert_int_equal(pyrt_verify(b, &d), AB_ERR_INPUT);
	contains(d.msg, "function 'reshape_in_place' changed t['out'] in place: it is now float32 (12,), abbench gave "
			"float32 (3, 4)");
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

/* An array kept beyond the case is found when the binding goes. */
static void test_kept(void **state)
{
	(void)state;
	float x[N], out[N];
	struct pyrt_bound *b = bind("keeps", PYRT_F32, x, out, N);
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_call(b, &d), AB_OK);
	assert_int_equal(pyrt_unbind(b, &d), AB_ERR_INPUT);
	contains(d.msg, "function 'keeps' kept t['out'] after the case");
}

/* print() goes to stderr: abbench's stdout carries results only. */
static void test_print_to_stderr(void **state)
{
	(void)state;
	char out_path[] = "/tmp/abbench-pyrt-out-XXXXXX", err_path[] = "/tmp/abbench-pyrt-err-XXXXXX", buf[256] = "";
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
	assert_true(out_fd >= 0 && err_fd >= 0);
	fflush(stdout);
	int saved_out = dup(1), saved_err = dup(2);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	struct ab_diag d = { "" };
	enum ab_rc rc = call_once("prints", &d);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	assert_int_equal(rc, AB_OK);
	assert_int_equal(lseek(out_fd, 0, SEEK_END), 0);
	assert_true(pread(err_fd, buf, sizeof buf - 1, 0) > 0);
	contains(buf, "hello from a python arm");
	close(out_fd);
	close(err_fd);
	unlink(out_path);
	unlink(err_path);
}

static void *call_elsewhere(void *b)
{
	static struct ab_diag d;
	static enum ab_rc rc[2];
	struct pyrt *other;
	struct pyrt_options o = { .python = DEBIAN_PYTHON };
	rc[0] = pyrt_call(b, &d);
	rc[1] = pyrt_open(&o, &other, &d);
	return rc;
}

/* The GIL belongs to the thread that opened pyrt: others are refused. */
static void test_other_thread(void **state)
{
	(void)state;
	float x[N], out[N];
	struct pyrt_bound *b = bind("noop", PYRT_F32, x, out, N);
	pthread_t th;
	void *res;
	assert_int_equal(pthread_create(&th, NULL, call_elsewhere, b), 0);
	assert_int_equal(pthread_join(th, &res), 0);
	assert_int_equal(((enum ab_rc *)res)[0], AB_ERR_INTERNAL);
	assert_int_equal(((enum ab_rc *)res)[1], AB_ERR_INTERNAL); /* nor may another thread open it */
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What a call costs on this machine (printed; timing is not asserted). */
static void test_overhead(void **state)
{
	(void)state;
	enum { CALLS = 20000 };
	float x[N], out[N];
	struct ab_diag d = { "" };
	const char *names[] = { "noop", "add_one" };
	for (int k = 0; k < 2; k++) {
		double t0 = seconds();
		struct pyrt_bound *b = bind(names[k], PYRT_F32, x, out, N);
		double t1 = seconds();
		for (int i = 0; i < CALLS; i++)
			assert_int_equal(pyrt_call(b, &d), AB_OK);
		double t2 = seconds();
		assert_int_equal(pyrt_verify(b, &d), AB_OK);
		double t3 = seconds();
		assert_int_equal(pyrt_unbind(b, &d), AB_OK);
		double t4 = seconds();
		printf("# pyrt %-8s bind %.1f us, call %.2f us (mean of %d), verify %.1f us, unbind %.1f us\n", names[k],
		       (t1 - t0) * 1e6, (t2 - t1) * 1e6 / CALLS, CALLS, (t3 - t2) * 1e6, (t4 - t3) * 1e6);
	}
}

static int setup(void **state)
{
	(void)state;
	struct ab_diag d = { "" };
	struct pyrt_options o = { .python = DEBIAN_PYTHON };
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1); /* no __pycache__ in tests/data/python */
	if (pyrt_open(&o, &rt, &d) != AB_OK || pyrt_need(rt, PYRT_CPU, &d) != AB_OK) {
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
		cmocka_unit_test(test_open),          cmocka_unit_test(test_one_interpreter),
		cmocka_unit_test(test_need_cuda),
		cmocka_unit_test(test_import_errors), cmocka_unit_test(test_import_once),
		cmocka_unit_test(test_function_errors), cmocka_unit_test(test_zero_copy),
		cmocka_unit_test(test_bf16_bits),     cmocka_unit_test(test_d),
		cmocka_unit_test(test_exceptions),    cmocka_unit_test(test_t_changed),
		cmocka_unit_test(test_returns),       cmocka_unit_test(test_verify),
		cmocka_unit_test(test_kept),          cmocka_unit_test(test_print_to_stderr),
		cmocka_unit_test(test_other_thread),  cmocka_unit_test(test_overhead),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
