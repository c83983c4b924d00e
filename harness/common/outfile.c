/*
 * outfile.c - output files that never replace a special file and appear
 * whole or not at all (the rules are in outfile.h).
 */
#include "common/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the temporaries a signal removes ----
 *
 * A fixed table, written before a slot is marked used and marked unused
 * before it is cleared, so that the handler (which only reads it and
 * calls unlink, async-signal-safe) never sees half a path. */
static char tracked[OUTFILE_TRACKED][OUTFILE_PATH_MAX + 16];
static volatile sig_atomic_t tracked_used[OUTFILE_TRACKED];
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_FATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))

static void outfile_on_signal(int sig)
{
	int saved = errno;
	for (int i = 0; i < OUTFILE_TRACKED; i++)
		if (tracked_used[i])
			unlink(tracked[i]);
	errno = saved;
	/* SA_RESETHAND made the action the default again: the signal, raised
	 * once this returns, ends the process as it would have */
	raise(sig);
}

/* Our handler for each fatal signal still at its default. */
static void outfile_install_handlers(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = outfile_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < N_FATAL; i++)
		if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(fatal_signals[i], &sa, NULL);
}

/* Marks of->tmp for removal on a signal; -1 when the table is full. */
static int outfile_track(const char *tmp)
{
	outfile_install_handlers();
	for (int i = 0; i < OUTFILE_TRACKED; i++)
		if (!tracked_used[i]) {
			snprintf(tracked[i], sizeof tracked[i], "%s", tmp);
			tracked_used[i] = 1;
			return i;
		}
	return -1;
}

static void outfile_untrack(struct outfile *of)
{
	if (of->slot >= 0)
		tracked_used[of->slot] = 0;
	of->slot = -1;
}

static void outfile_reset(struct outfile *of)
{
	of->f = NULL;
	of->through = false;
	of->is_stdout = false;
	of->path[0] = of->target[0] = of->tmp[0] = '\0';
	of->slot = -1;
}

/* The file a path names: itself, or what a symbolic link points to. *st
 * describes it; *exists is false when there is nothing there yet. */
static enum ab_rc outfile_resolve(struct outfile *of, struct stat *st, bool *exists, struct ab_diag *d)
{
	char real[PATH_MAX];
	*exists = lstat(of->path, st) == 0;
	if (!*exists) {
		if (errno != ENOENT)
			return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(errno));
		snprintf(of->target, sizeof of->target, "%s", of->path);
		return AB_OK;
	}
	if (!S_ISLNK(st->st_mode)) {
		snprintf(of->target, sizeof of->target, "%s", of->path);
		return AB_OK;
	}
	if (stat(of->path, st) != 0 && errno == ENOENT)
		return ab_fail(d, AB_ERR_USAGE, "'%s' is a symbolic link to a missing file: refusing to write through it",
			       of->path);
	if (!realpath(of->path, real))
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(errno));
	snprintf(of->target, sizeof of->target, "%s", real);
	return AB_OK;
}

/* Kinds of file that are never written. */
static const char *outfile_refused_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISBLK(m))
		return "a block device";
	return NULL;
}

static enum ab_rc outfile_fdopen(struct outfile *of, int fd, struct ab_diag *d)
{
	of->f = fdopen(fd, "w");
	if (of->f)
		return AB_OK;
	int err = errno;
	close(fd);
	if (of->tmp[0])
		unlink(of->tmp);
	outfile_untrack(of);
	of->tmp[0] = '\0';
	return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(err));
}

/* A FIFO or character device: opened in place, never created or truncated. */
static enum ab_rc outfile_open_through(struct outfile *of, struct ab_diag *d)
{
	int fd = open(of->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(errno));
	of->through = true;
	return outfile_fdopen(of, fd, d);
}

/* A temporary file beside the target, with the mode the target has (or the
 * one a plain fopen would give a new file). */
static enum ab_rc outfile_open_temp(struct outfile *of, const struct stat *st, bool exists, struct ab_diag *d)
{
	if ((size_t)snprintf(of->tmp, sizeof of->tmp, "%s.tmpXXXXXX", of->target) >= sizeof of->tmp) {
		of->tmp[0] = '\0';
		return ab_fail(d, AB_ERR_USAGE, "cannot write '%.64s...': path too long", of->path);
	}
	/* the fatal signals wait while the file is made and tracked: one that
	 * came between mkstemp and the table would leave the file behind (seen
	 * once in 96 stopped publishes under ASan, before this) */
	sigset_t fatal, old_mask;
	sigemptyset(&fatal);
	for (int i = 0; i < N_FATAL; i++)
		sigaddset(&fatal, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &fatal, &old_mask);
	int fd = mkstemp(of->tmp);
	of->slot = fd >= 0 ? outfile_track(of->tmp) : -1;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (fd < 0) {
		int err = errno;
		outfile_untrack(of);
		of->tmp[0] = '\0';
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(err));
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, exists ? (st->st_mode & 07777) : (0666 & ~mask)) != 0) {
		int err = errno;
		close(fd);
		unlink(of->tmp);
		outfile_untrack(of);
		of->tmp[0] = '\0';
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(err));
	}
	return outfile_fdopen(of, fd, d);
}

enum ab_rc outfile_open(struct outfile *of, const char *path, struct ab_diag *d)
{
	struct stat st;
	bool exists;
	outfile_reset(of);
	if (!path || !*path)
		return ab_fail(d, AB_ERR_USAGE, "empty output file name");
	if ((size_t)snprintf(of->path, sizeof of->path, "%s", path) >= sizeof of->path)
		return ab_fail(d, AB_ERR_USAGE, "cannot write '%.64s...': path too long", path);
	if (!strcmp(path, "-")) {
		of->f = stdout;
		of->through = of->is_stdout = true;
		return AB_OK;
	}
	enum ab_rc rc = outfile_resolve(of, &st, &exists, d);
	if (rc)
		return rc;
	const char *kind = exists ? outfile_refused_kind(st.st_mode) : NULL;
	if (kind)
		return ab_fail(d, AB_ERR_USAGE, "'%s' is %s: refusing to write to it", path, kind);
	if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
		return outfile_open_through(of, d);
	return outfile_open_temp(of, &st, exists, d);
}

/* Flushes (and, for a regular file, syncs) and closes the stream: 0 or the
 * first failure's errno (EIO when a sticky stream error left none). */
static int outfile_close_stream(struct outfile *of)
{
	int err = 0;
	if (fflush(of->f) != 0 || ferror(of->f))
		err = errno ? errno : EIO;
	else if (!of->through && fsync(fileno(of->f)) != 0)
		err = errno;
	if (!of->is_stdout && fclose(of->f) != 0 && !err)
		err = errno ? errno : EIO;
	of->f = NULL;
	return err;
}

enum ab_rc outfile_commit(struct outfile *of, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	if (!of->f)
		return ab_fail(d, AB_ERR_INTERNAL, "commit of '%s', which is not open", of->path);
	int err = outfile_close_stream(of);
	if (err)
		rc = ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(err));
	else if (of->tmp[0] && rename(of->tmp, of->target) != 0)
		rc = ab_fail(d, AB_ERR_IO, "cannot rename '%s' to '%s': %s", of->tmp, of->target, strerror(errno));
	if (rc && of->tmp[0])
		unlink(of->tmp);
	outfile_untrack(of);
	of->tmp[0] = '\0';
	return rc;
}

void outfile_abort(struct outfile *of)
{
	if (!of->f)
		return;
	if (of->is_stdout)
		fflush(of->f);
	else
		fclose(of->f);
	of->f = NULL;
	if (of->tmp[0])
		unlink(of->tmp);
	outfile_untrack(of);
	of->tmp[0] = '\0';
}

/* ---- a folder's lock and its stale temporaries ---- */

enum ab_rc outfile_dir_lock(const char *dir, int *fd, struct ab_diag *d)
{
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return ab_fail(d, AB_ERR_IO, "cannot open '%s': %s", dir, strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return AB_OK;
	if (errno == EWOULDBLOCK) {
		fprintf(stderr, "abbench: waiting for another command writing into '%s'\n", dir);
		if (flock(*fd, LOCK_EX) == 0)
			return AB_OK;
	}
	int err = errno;
	close(*fd);
	*fd = -1;
	return ab_fail(d, AB_ERR_IO, "cannot lock '%s': %s", dir, strerror(err));
}

void outfile_dir_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the descriptor */
}

/* NAME.EXT.tmpXXXXXX, as outfile_open_temp names them, EXT a kind of file
 * abbench writes into a folder of its own. */
static bool stale_name(const char *name)
{
	static const char *const exts[] = { ".png", ".svg", ".html", ".md", ".css", ".dat", ".gp", ".csv", ".json",
					    ".txt", ".npy", NULL };
	size_t n = strlen(name);
	if (n < 11 || strncmp(name + n - 10, ".tmp", 4) != 0)
		return false;
	for (size_t i = n - 6; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return false;
	for (int k = 0; exts[k]; k++) {
		size_t e = strlen(exts[k]);
		if (n - 10 > e && strncmp(name + n - 10 - e, exts[k], e) == 0)
			return true;
	}
	return false;
}

static int remove_stale_in(const char *dir, int depth)
{
	DIR *dp = depth > 4 ? NULL : opendir(dir);
	struct dirent *e;
	int n = 0;
	while (dp && (e = readdir(dp))) {
		char path[OUTFILE_PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.' || snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
		    lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			n += remove_stale_in(path, depth + 1);
		else if (S_ISREG(st.st_mode) && stale_name(e->d_name) && unlink(path) == 0)
			n++;
	}
	if (dp)
		closedir(dp);
	return n;
}

int outfile_remove_stale(const char *dir)
{
	return remove_stale_in(dir, 1);
}
