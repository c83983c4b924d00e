/*
 * test_outfile.c - the output-file rules (common/outfile.h): regular files
 * replaced whole and keeping their mode, FIFOs written through and kept,
 * symbolic links followed and kept, directories, sockets and dangling links
 * refused, write errors (EFBIG under RLIMIT_FSIZE) reported with the old
 * file untouched and no temporary file left, temporaries removed on a
 * fatal signal. Everything happens in a
 * mkdtemp directory; no device node is touched.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "fixtures.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	return fx_tmpdir_make(dir, sizeof dir, "outfile");
}

static int teardown(void **state)
{
	(void)state;
	fx_tmpdir_remove(dir);
	return 0;
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void assert_file_text(const char *path, const char *want)
{
	char got[256] = "";
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(got, 1, sizeof got - 1, f);
	got[n] = '\0';
	fclose(f);
	assert_string_equal(got, want);
}

/* Entries of the scratch directory, "." and ".." not counted. */
static int n_entries(void)
{
	int n = 0;
	DIR *dp = opendir(dir);
	struct dirent *e;
	while (dp && (e = readdir(dp)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (dp)
		closedir(dp);
	return n;
}

static enum ab_rc write_all(const char *path, const char *text, struct ab_diag *d)
{
	struct outfile of;
	enum ab_rc rc = outfile_open(&of, path, d);
	if (rc)
		return rc;
	fputs(text, of.f);
	return outfile_commit(&of, d);
}

static void test_new_and_replaced_regular_file(void **state)
{
	(void)state;
	char path[128];
	struct stat st, st2;
	struct ab_diag d;
	path_in(path, sizeof path, "out.txt");
	mode_t mask = umask(022);
	assert_int_equal(write_all(path, "one\n", &d), AB_OK);
	assert_file_text(path, "one\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);

	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(write_all(path, "two\n", &d), AB_OK);
	assert_file_text(path, "two\n");
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st2.st_mode & 07777, 0640);  /* the mode is kept */
	assert_true(S_ISREG(st2.st_mode));
	assert_int_not_equal(st.st_ino, st2.st_ino); /* replaced by a rename */
	assert_int_equal(n_entries(), 1);             /* no temporary left */
	umask(mask);
}

static void test_abort_keeps_the_old_file(void **state)
{
	(void)state;
	char path[128];
	struct outfile of;
	struct ab_diag d;
	path_in(path, sizeof path, "keep.txt");
	write_text(path, "old\n");
	assert_int_equal(outfile_open(&of, path, &d), AB_OK);
	fputs("half", of.f);
	assert_file_text(path, "old\n"); /* nothing shows before the commit */
	outfile_abort(&of);
	assert_null(of.f);
	assert_file_text(path, "old\n");
	assert_int_equal(n_entries(), 1);
	outfile_abort(&of); /* closed: a no-op */
}

static void test_symlink_is_followed_and_kept(void **state)
{
	(void)state;
	char target[128], link[128];
	struct stat st;
	struct ab_diag d;
	path_in(target, sizeof target, "real.txt");
	path_in(link, sizeof link, "link.txt");
	write_text(target, "old\n");
	assert_int_equal(symlink("real.txt", link), 0);
	assert_int_equal(write_all(link, "new\n", &d), AB_OK);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_file_text(target, "new\n");
	assert_int_equal(n_entries(), 2);

	path_in(link, sizeof link, "dangling.txt");
	assert_int_equal(symlink("nowhere.txt", link), 0);
	assert_int_equal(write_all(link, "x\n", &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "symbolic link to a missing file"));
	path_in(target, sizeof target, "nowhere.txt");
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(n_entries(), 3);
}

static void test_directory_and_socket_refused(void **state)
{
	(void)state;
	char path[128];
	struct ab_diag d;
	path_in(path, sizeof path, "adir");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(write_all(path, "x", &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "is a directory"));

	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	path_in(sa.sun_path, sizeof sa.sun_path, "sock");
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(write_all(sa.sun_path, "x", &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "is a socket"));
	close(fd);
	assert_int_equal(n_entries(), 2); /* adir and sock, nothing else */

	path_in(path, sizeof path, "no/such/dir/x.txt");
	assert_int_equal(write_all(path, "x", &d), AB_ERR_IO);
	assert_non_null(strstr(d.msg, "No such file or directory"));
}

/* A child reads the FIFO to its end into a regular file. */
static pid_t start_reader(const char *fifo, const char *into)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[4096];
		ssize_t n;
		int in = open(fifo, O_RDONLY), out = open(into, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0)
			_exit(2);
		while ((n = read(in, buf, sizeof buf)) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(3);
		_exit(n == 0 && close(out) == 0 ? 0 : 4);
	}
	return pid;
}

static void wait_ok(pid_t pid)
{
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_fifo_written_through(void **state)
{
	(void)state;
	char fifo[128], got[128], link[128];
	struct stat st;
	struct ab_diag d;
	path_in(fifo, sizeof fifo, "pipe");
	path_in(got, sizeof got, "got.txt");
	path_in(link, sizeof link, "pipe-link");
	assert_int_equal(mkfifo(fifo, 0600), 0);

	pid_t pid = start_reader(fifo, got);
	assert_int_equal(write_all(fifo, "through\n", &d), AB_OK);
	wait_ok(pid);
	assert_file_text(got, "through\n");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode)); /* still the FIFO */

	assert_int_equal(symlink("pipe", link), 0);
	pid = start_reader(fifo, got);
	assert_int_equal(write_all(link, "via link\n", &d), AB_OK);
	wait_ok(pid);
	assert_file_text(got, "via link\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(n_entries(), 3); /* pipe, got.txt, pipe-link */
}

/* In a child with a 1 KiB file-size limit (SIGXFSZ ignored, so write fails
 * with EFBIG as on a full disk): 8 KiB over an existing file. The child's
 * exit status says what it saw. */
static void test_write_error_keeps_the_old_file(void **state)
{
	(void)state;
	char path[128];
	path_in(path, sizeof path, "big.txt");
	write_text(path, "old\n");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 1024, 1024 };
		struct outfile of;
		struct ab_diag d;
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0 || outfile_open(&of, path, &d) != AB_OK)
			_exit(10);
		for (int i = 0; i < 1024; i++)
			fputs("12345678", of.f);
		enum ab_rc rc = outfile_commit(&of, &d);
		_exit(rc == AB_ERR_IO && strstr(d.msg, "File too large") && strstr(d.msg, "big.txt") ? 0 : 11);
	}
	wait_ok(pid);
	assert_file_text(path, "old\n");
	assert_int_equal(n_entries(), 1);
}

/* A signal at its default action removes the open temporaries, then ends
 * the process as it would have: a child opens two outfiles, writes, and is
 * sent SIGTERM (and one SIGINT); nothing is left, the old file is kept. */
static void test_signal_removes_temporaries(void **state)
{
	(void)state;
	static const int sigs[] = { SIGTERM, SIGINT };
	char path[512], other[512];
	path_in(path, sizeof path, "kept.txt");
	path_in(other, sizeof other, "new.txt");
	write_text(path, "old\n");
	for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
		int status;
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct outfile a, b;
			struct ab_diag d;
			signal(sigs[k], SIG_DFL);
			if (outfile_open(&a, path, &d) != AB_OK || outfile_open(&b, other, &d) != AB_OK)
				_exit(10);
			fputs("half", a.f);
			fflush(a.f);
			raise(sigs[k]);
			_exit(11); /* not reached: the signal ends the process */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sigs[k]);
		assert_file_text(path, "old\n");
		assert_int_equal(n_entries(), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_and_replaced_regular_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_keeps_the_old_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_is_followed_and_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_and_socket_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_written_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_keeps_the_old_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_removes_temporaries, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
