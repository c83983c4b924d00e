/*
 * test_pyrt_venv.c - a venv's interpreter, as the GPU machine has one
 * (/opt/torch/.venv/bin/python3 over a system libpython3.12): pyrt must see
 * what the venv adds to sys.path. A venv of Debian's /usr/bin/python3
 * (--without-pip, --system-site-packages for python3-numpy) gets a module
 * of its own in its site-packages; pyrt_find names the venv's prefix and
 * the system's libpython, and a user's module loaded through pyrt imports
 * the venv's module and sees the venv's sys.prefix and sys.executable.
 *
 * Its own process: one interpreter per process, and this one must be the
 * venv's from the start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "arms/pyrt.h"

#define DEBIAN_PYTHON "/usr/bin/python3"

static char dir[] = "/tmp/abbench-pyrt-venv-XXXXXX";
static char venv_python[512];
static char site[512];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_find_venv(void **state)
{
	(void)state;
	struct pyrt_interp ip, sys_ip;
	struct ab_diag d = { "" };
	char prefix[600];
	assert_int_equal(pyrt_find(venv_python, 0, &ip, &d), AB_OK);
	assert_int_equal(pyrt_find(DEBIAN_PYTHON, 0, &sys_ip, &d), AB_OK);
	snprintf(prefix, sizeof prefix, "%s/venv", dir);
	assert_string_equal(ip.prefix, prefix);
	assert_string_equal(ip.libpython, sys_ip.libpython); /* the system's library */
	bool seen = false;
	for (int i = 0; i < ip.n_path; i++)
		seen |= strcmp(ip.path[i], site) == 0;
	assert_true(seen);
	pyrt_interp_free(&ip);
	pyrt_interp_free(&sys_ip);
}

static void test_load_venv(void **state)
{
	(void)state;
	struct pyrt *rt;
	struct pyrt_module *m;
	struct pyrt_fn *fn;
	struct pyrt_bound *b;
	struct ab_diag d = { "" };
	char arm[600];
	int64_t out[3] = { 0 };
	struct pyrt_options o = { .python = venv_python };
	if (pyrt_open(&o, &rt, &d) != AB_OK || pyrt_need(rt, PYRT_CPU, &d) != AB_OK)
		fail_msg("%s", d.msg);
	snprintf(arm, sizeof arm, "%s/arm.py", dir);
	if (pyrt_import(rt, arm, &m, &d) != AB_OK || pyrt_function(m, "where", &fn, &d) != AB_OK)
		fail_msg("%s", d.msg);
	struct pyrt_tensor t = { .name = "out", .dtype = PYRT_I64, .rank = 1, .shape = { 3 }, .data = out };
	struct pyrt_case c = { .name = "venv", .site = "toy" };
	struct pyrt_target cpu = { .device = PYRT_CPU };
	assert_int_equal(pyrt_bind(fn, &c, &t, 1, &cpu, &b, &d), AB_OK);
	if (pyrt_call(b, &d) != AB_OK)
		fail_msg("%s", d.msg);
	assert_int_equal(out[0], 42); /* the venv's own module imported */
	assert_int_equal(out[1], 1);  /* sys.prefix is the venv */
	assert_int_equal(out[2], 1);  /* sys.executable is the venv's python */
	assert_int_equal(pyrt_unbind(b, &d), AB_OK);
	pyrt_close(rt);
}

static int setup(void **state)
{
	(void)state;
	char cmd[1200], path[700], text[1200];
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof cmd, "%s -m venv --without-pip --system-site-packages '%s/venv'", DEBIAN_PYTHON, dir);
	if (system(cmd) != 0)
		return -1;
	snprintf(venv_python, sizeof venv_python, "%s/venv/bin/python3", dir);
	snprintf(cmd, sizeof cmd, "%s -c \"import sysconfig; print(sysconfig.get_path('purelib'))\"", venv_python);
	FILE *p = popen(cmd, "r");
	if (!p || !fgets(site, sizeof site, p) || pclose(p) != 0)
		return -1;
	site[strcspn(site, "\n")] = '\0';
	snprintf(path, sizeof path, "%s/abbench_venv_marker.py", site);
	write_file(path, "VALUE = 42\n");
	snprintf(path, sizeof path, "%s/arm.py", dir);
	snprintf(text, sizeof text,
		 "import sys\nimport abbench_venv_marker\n\n\ndef where(t, d):\n"
		 "    o = t['out']\n    o[0] = abbench_venv_marker.VALUE\n"
		 "    o[1] = int(sys.prefix == '%s/venv')\n    o[2] = int(sys.executable == '%s')\n",
		 dir, venv_python);
	write_file(path, text);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	if (access(DEBIAN_PYTHON, X_OK) != 0) {
		printf("SKIP: no %s (make deps installs it)\n", DEBIAN_PYTHON);
		return 0;
	}
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_venv),
		cmocka_unit_test(test_load_venv),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
