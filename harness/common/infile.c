/*
 * infile.c - opening a file to read without blocking on it (infile.h).
 */
#include "common/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *infile_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "not a regular file";
}

FILE *infile_open(const char *path, struct stat *st, char *why, size_t len)
{
	struct stat own;
	if (!st)
		st = &own;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	int err = 0;
	if (fstat(fd, st) != 0)
		err = errno;
	else if (!S_ISREG(st->st_mode))
		err = EINVAL;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
		err = errno;
	FILE *f = err ? NULL : fdopen(fd, "rb");
	if (!f) {
		err = err ? err : errno;
		if (err == EINVAL)
			snprintf(why, len, "it is %s, not a regular file", infile_kind(st->st_mode));
		else
			snprintf(why, len, "%s", strerror(err));
		close(fd);
		errno = err;
	}
	return f;
}
