/*
 * test_pyrt_find.c - which Python pyrt finds and what it asks it
 * (harness/arms/pyrt_find.c), without loading any libpython: Debian's
 * /usr/bin/python3 named by the caller, by ABBENCH_PYTHON and found on
 * PATH; and every refusal, with stand-in interpreters written into a
 * scratch folder (a shell script printing a chosen probe answer: an old
 * version, no shared library, another implementation; /bin/true; one that
 * fails, one that hangs); and the other interpreter an error names when
 * this one lacks numpy or torch.
 *
 * The interpreter is named explicitly: python3 on PATH is a pyenv shim on
 * this project's machines, not the /usr/bin/python3 of `make deps`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "arms/pyrt.h"

#define DEBIAN_PYTHON "/usr/bin/python3"

static char dir[] = "/tmp/abbench-pyrt-find-XXXXXX";

static void contains(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message: %s\nwanted in it: %s", msg, want);
}

/* A stand-in interpreter: dir/name, a script with body. */
static const char *script(const char *name, const char *body)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* One that answers the probe with this JSON. */
static const char *answers(const char *name, const char *json)
{
	char body[4096];
	snprintf(body, sizeof body, "cat <<'EOF'\n%s\nEOF", json);
	return script(name, body);
}

static void refused(const char *python, int timeout_ms, const char *want)
{
	struct pyrt_interp ip;
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_find(python, timeout_ms, &ip, &d), AB_ERR_INPUT);
	contains(d.msg, want);
	assert_null(ip.path);
}

static void test_debian_python(void **state)
{
	(void)state;
	struct pyrt_interp ip;
	struct ab_diag d = { "" };
	assert_int_equal(pyrt_find(DEBIAN_PYTHON, 0, &ip, &d), AB_OK);
	assert_string_equal(ip.program, DEBIAN_PYTHON);
	assert_string_equal(ip.chosen_by, "the caller");
	assert_int_equal(ip.major, 3);
	assert_true(ip.minor >= PYRT_MIN_MINOR);
	assert_true(strstr(ip.libpython, "libpython3.") != NULL);
	assert_int_equal(access(ip.libpython, R_OK), 0);
	assert_int_equal(ip.libpython[0], '/');
	bool dist = false, cwd = false;
	char here[4096];
	assert_non_null(getcwd(here, sizeof here));
	for (int i = 0; i < ip.n_path; i++) {
		dist |= strstr(ip.path[i], "dist-packages") != NULL;
		cwd |= ip.path[i][0] == '\0' || strcmp(ip.path[i], here) == 0;
	}
	assert_true(dist);  /* Debian's site packages (python3-numpy is there) */
	assert_false(cwd);  /* the probe's own first entry is left out */
	pyrt_interp_free(&ip);
}

static void test_abbench_python(void **state)
{
	(void)state;
	struct pyrt_interp ip;
	struct ab_diag d = { "" };
	setenv("ABBENCH_PYTHON", DEBIAN_PYTHON, 1);
	assert_int_equal(pyrt_find(NULL, 0, &ip, &d), AB_OK);
	unsetenv("ABBENCH_PYTHON");
	assert_string_equal(ip.chosen_by, "ABBENCH_PYTHON");
	assert_string_equal(ip.program, DEBIAN_PYTHON);
	pyrt_interp_free(&ip);
}

/* Without ABBENCH_PYTHON: python3 on PATH (here a link in dir). */
static void test_path(void **state)
{
	(void)state;
	char link[512], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	struct pyrt_interp ip;
	struct ab_diag d = { "" };
	snprintf(link, sizeof link, "%s/python3", dir);
	unlink(link);
	assert_int_equal(symlink(DEBIAN_PYTHON, link), 0);
	setenv("PATH", dir, 1);
	enum ab_rc rc = pyrt_find(NULL, 0, &ip, &d);
	unlink(link);
	setenv("PATH", "/nonexistent-abbench", 1);
	refused(NULL, 0, "'python3' is not on PATH");
	refused(NULL, 0, "ABBENCH_PYTHON");
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	free(old);
	assert_int_equal(rc, AB_OK);
	assert_string_equal(ip.chosen_by, "PATH");
	assert_string_equal(ip.program, link);
	pyrt_interp_free(&ip);
}

static void test_not_there(void **state)
{
	(void)state;
	char path[512];
	setenv("ABBENCH_PYTHON", "/nonexistent-abbench/python3", 1);
	refused(NULL, 0, "python '/nonexistent-abbench/python3' (from ABBENCH_PYTHON): No such file or directory");
	unsetenv("ABBENCH_PYTHON");
	snprintf(path, sizeof path, "%s/plain", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	refused(path, 0, "is not an executable file");
	refused(dir, 0, "is not an executable file");
}

static void test_not_python(void **state)
{
	(void)state;
	refused("/bin/true", 0, "'/bin/true' (from the caller) is not a python interpreter: asked with -c, it printed nothing");
	refused(script("echoes", "echo 'hello there'"), 0, "it printed 'hello there'");
	refused(answers("other_json", "{\"version\": [3, 11, 0]}"), 0, "is not a python interpreter");
	refused(script("fails", "echo 'first' >&2; echo 'boom: cannot start' >&2; exit 3"), 0,
		"failed (exit status 3): boom: cannot start");
}

/* A hung interpreter is killed at the deadline, not waited for. */
static void test_timeout(void **state)
{
	(void)state;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	refused(script("hangs", "exec sleep 20"), 300, "did not answer within 0.3 s");
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 15); /* not the 20 s of its sleep, on a loaded machine too */
}

#define ANSWER_AS(impl, fields)                                                                               \
	"{\"abbench_probe\": 1, \"implementation\": \"" impl "\", \"executable\": \"/x/bin/python3\", "         \
	"\"prefix\": \"/x\", \"base_prefix\": \"/nonexistent-abbench\", \"multiarch\": \"x86_64-linux-gnu\", " \
	"\"libpl\": null, \"loaded\": [], \"path\": [\"/x/lib\"], " fields "}"
#define ANSWER(fields) ANSWER_AS("cpython", fields)

static void test_too_old(void **state)
{
	(void)state;
	refused(answers("old", ANSWER("\"version\": [3, 6, 15], \"shared\": 1, \"libdir\": \"/x/lib\", "
				      "\"ldlibrary\": \"libpython3.6m.so\", \"instsoname\": \"libpython3.6m.so.1.0\"")),
		0, "is 3.6.15, too old: abbench needs 3.9 or newer");
	refused(answers("py2", ANSWER("\"version\": [2, 7, 18], \"shared\": 1, \"libdir\": \"/x/lib\", "
				      "\"ldlibrary\": \"libpython2.7.so\", \"instsoname\": \"libpython2.7.so.1.0\"")),
		0, "too old");
}

static void test_not_cpython(void **state)
{
	(void)state;
	refused(answers("pypy", ANSWER_AS("pypy", "\"version\": [3, 10, 13], \"shared\": 1, \"libdir\": \"/x/lib\", "
						 "\"ldlibrary\": \"libpypy3.10-c.so\", \"instsoname\": null")),
		0, "is pypy 3.10: abbench embeds CPython only");
}

/* Built without --enable-shared (a pyenv or a source build's default). */
static void test_no_shared_library(void **state)
{
	(void)state;
	const char *p = answers("static", ANSWER("\"version\": [3, 11, 7], \"shared\": 0, \"libdir\": "
						 "\"/nonexistent-abbench/lib\", \"ldlibrary\": \"libpython3.11.a\", "
						 "\"instsoname\": \"libpython3.11.a\""));
	refused(p, 0, "has no shared libpython: it was built without --enable-shared (LDLIBRARY 'libpython3.11.a'");
	if (access(DEBIAN_PYTHON, X_OK) == 0)
		refused(p, 0, "ABBENCH_PYTHON=/usr/bin/python3");
	refused(answers("lost", ANSWER("\"version\": [3, 11, 7], \"shared\": 1, \"libdir\": \"/nonexistent-abbench/lib\", "
				       "\"ldlibrary\": \"libpython3.11.so\", \"instsoname\": \"libpython3.11.so.1.0\"")),
		0, "its libpython (libpython3.11.so.1.0) is in none of its folders (/nonexistent-abbench/lib ...)");
}

/* The library is found in a folder sysconfig names, by INSTSONAME. */
static void test_found_in_libdir(void **state)
{
	(void)state;
	char json[2048], lib[512];
	snprintf(lib, sizeof lib, "%s/lib/libpython3.11.so.1.0", dir);
	snprintf(json, sizeof json, "%s/lib", dir);
	mkdir(json, 0755);
	FILE *f = fopen(lib, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(json, sizeof json,
		 ANSWER("\"version\": [3, 11, 7], \"shared\": 1, \"libdir\": \"%s/lib\", \"ldlibrary\": "
			"\"libpython3.11.so\", \"instsoname\": \"libpython3.11.so.1.0\""),
		 dir);
	struct pyrt_interp ip;
	struct ab_diag d = { "" };
	/* What a sitecustomize prints before the answer does not matter. */
	char chatty[2100];
	snprintf(chatty, sizeof chatty, "hello from sitecustomize\n%s", json);
	assert_int_equal(pyrt_find(answers("found", chatty), 0, &ip, &d), AB_OK);
	char real[4096];
	assert_non_null(realpath(lib, real));
	assert_string_equal(ip.libpython, real);
	assert_string_equal(ip.executable, "/x/bin/python3");
	assert_int_equal(ip.n_path, 1);
	assert_string_equal(ip.path[0], "/x/lib");
	pyrt_interp_free(&ip);
}

/* Another interpreter that has what a run needs (pyrt_find_other): the
 * first python3 along PATH whose check exits 0, one skipped when asked,
 * folders named twice asked once; then Debian's, which runs the check
 * itself (a check that exits 7 there finds none). */
static void test_other_interpreter(void **state)
{
	(void)state;
	char a[100], b[100], path[400], found[512] = "";
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	script("a/python3", "exit 1"); /* lacks it */
	script("b/python3", "exit 0"); /* has it, whatever the check */
	snprintf(path, sizeof path, "%s::%s:%s", a, a, b);
	setenv("PATH", path, 1);
	const char *skip_none[] = { NULL };
	assert_true(pyrt_find_other("raise SystemExit(7)", skip_none, found, sizeof found));
	snprintf(path, sizeof path, "%s/python3", b);
	assert_string_equal(found, path);
	const char *skip_b[] = { "/nowhere/python3", path, NULL };
	found[0] = '\0';
	assert_false(pyrt_find_other("raise SystemExit(7)", skip_b, found, sizeof found));
	assert_string_equal(found, "");
	assert_true(pyrt_find_other("import sys", skip_b, found, sizeof found)); /* Debian's runs it */
	assert_string_equal(found, DEBIAN_PYTHON);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
}

static int setup(void **state)
{
	(void)state;
	unsetenv("ABBENCH_PYTHON");
	return mkdtemp(dir) ? 0 : -1;
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
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_python),   cmocka_unit_test(test_abbench_python),
		cmocka_unit_test(test_path),            cmocka_unit_test(test_not_there),
		cmocka_unit_test(test_not_python),      cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_too_old),         cmocka_unit_test(test_not_cpython),
		cmocka_unit_test(test_no_shared_library), cmocka_unit_test(test_found_in_libdir),
		cmocka_unit_test(test_other_interpreter),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
