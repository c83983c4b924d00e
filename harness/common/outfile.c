/*
 * outfile.c - output files that never replace a special file and appear
 * whole or not at all (the rules are in outfile.h).
 */
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void outfile_reset(struct outfile *of)
{
	of->f = NULL;
	of->through = false;
	of->is_stdout = false;
	of->path[0] = of->target[0] = of->tmp[0] = '\0';
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
	int fd = mkstemp(of->tmp);
	if (fd < 0) {
		of->tmp[0] = '\0';
		return ab_fail(d, AB_ERR_IO, "cannot write '%s': %s", of->path, strerror(errno));
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, exists ? (st->st_mode & 07777) : (0666 & ~mask)) != 0) {
		int err = errno;
		close(fd);
		unlink(of->tmp);
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
	of->tmp[0] = '\0';
}

/* Copies the open stream src into of->f; 0 or a read error's errno. */
static int outfile_copy(FILE *src, struct outfile *of)
{
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, src)) > 0)
		if (fwrite(buf, 1, n, of->f) != n)
			return 0; /* the stream's error is reported by the commit */
	return ferror(src) ? (errno ? errno : EIO) : 0;
}

enum ab_rc outfile_install(const char *src_path, const char *dst_path, struct ab_diag *d)
{
	struct outfile of;
	FILE *src = fopen(src_path, "rb");
	if (!src) {
		int err = errno;
		unlink(src_path);
		return ab_fail(d, AB_ERR_IO, "cannot read '%s': %s", src_path, strerror(err));
	}
	enum ab_rc rc = outfile_open(&of, dst_path, d);
	int err = rc ? 0 : outfile_copy(src, &of);
	fclose(src);
	if (!rc && err) {
		outfile_abort(&of);
		rc = ab_fail(d, AB_ERR_IO, "cannot read '%s': %s", src_path, strerror(err));
	} else if (!rc) {
		rc = outfile_commit(&of, d);
	}
	unlink(src_path);
	return rc;
}
