/*
 * devlock.c - per-device run locks with flock(2) (see devlock.h).
 */
#include "run/devlock.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/procid.h"
#include "common/utc.h"
#include "run/interrupt.h"

#define DEVLOCK_DEFAULT_DIR "/tmp/abbench-locks"

struct devlock {
	int fd;
	bool held;
	char path[4096];
};

const char *devlock_dir(void)
{
	const char *env = getenv("ABBENCH_LOCK_DIR");
	return env && *env ? env : DEVLOCK_DEFAULT_DIR;
}

/* DIR, made world-writable and sticky when we create it (as /tmp is). */
static enum ab_rc make_dir(const char *dir, struct ab_diag *d)
{
	struct stat st;
	if (mkdir(dir, 0777) == 0)
		chmod(dir, 01777);
	else if (errno != EEXIST)
		return ab_fail(d, AB_ERR_IO, "cannot create the lock directory '%s': %s (set ABBENCH_LOCK_DIR)", dir,
			       strerror(errno));
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return ab_fail(d, AB_ERR_IO, "lock directory '%s' is not a directory (set ABBENCH_LOCK_DIR)", dir);
	return AB_OK;
}

/* DIR/KEY.lock with every character of key outside [A-Za-z0-9._-] as '_'. */
static enum ab_rc lock_path(const char *key, char *buf, size_t len, struct ab_diag *d)
{
	const char *dir = devlock_dir();
	enum ab_rc rc = make_dir(dir, d);
	if (rc)
		return rc;
	int n = snprintf(buf, len, "%s/", dir);
	for (const char *k = key; *k && n > 0 && (size_t)n + 6 < len; k++)
		buf[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *k) ? *k : '_';
	if (n <= 0 || (size_t)n + 6 >= len)
		return ab_fail(d, AB_ERR_USAGE, "lock path too long in '%.64s...'", dir);
	snprintf(buf + n, len - (size_t)n, ".lock");
	return AB_OK;
}

/* Opened read-write when allowed (to write who holds it), else read-only:
 * flock needs no write access. A new file is made 0666 whatever the umask. */
static int open_lock(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) == 0 && st.st_uid == geteuid())
			fchmod(fd, 0666);
		return fd;
	}
	return errno == EACCES ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
}

/* "pid P on host H, scenario 'S' (label 'L'), since T": who holds it now. */
static void write_owner(int fd, const struct devlock_owner *who)
{
	char host[256], now[32], line[600];
	procid_host(host, sizeof host);
	utc_now(now, sizeof now);
	int n = snprintf(line, sizeof line, "pid %ld on host %s, scenario '%.64s'%s%.64s%s, since %s\n", (long)procid_owner(),
			 host, who->scenario, who->label && *who->label ? " (label '" : "",
			 who->label ? who->label : "", who->label && *who->label ? "')" : "", now);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	if (ftruncate(fd, 0) != 0 || pwrite(fd, line, len, 0) != (ssize_t)len) {
		/* a read-only lock file: waiters then say they do not know who */
	}
}

/* What the holder wrote, without its newline, or a placeholder. */
static void read_owner(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "another process (it has not said who yet)");
}

/* Blocks in flock until the lock is ours or a signal asks to stop. */
static enum ab_rc wait_lock(int fd, const char *key, const char *path, struct ab_diag *d)
{
	char owner[600];
	read_owner(fd, owner, sizeof owner);
	fprintf(stderr, "abbench: waiting for device '%s', in use by %s (lock '%s'; 'run --no-wait' fails instead)\n",
		key, owner, path);
	while (flock(fd, LOCK_EX) != 0) {
		enum ab_rc rc = interrupt_check(d);
		if (rc)
			return rc;
		if (errno != EINTR)
			return ab_fail(d, AB_ERR_IO, "cannot lock '%s': %s", path, strerror(errno));
	}
	fprintf(stderr, "abbench: device '%s' is free now\n", key);
	return AB_OK;
}

static enum ab_rc take(int fd, const char *key, const char *path, bool wait, struct ab_diag *d)
{
	char owner[600];
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return AB_OK;
	if (errno != EWOULDBLOCK && errno != EINTR)
		return ab_fail(d, AB_ERR_IO, "cannot lock '%s': %s", path, strerror(errno));
	if (wait)
		return wait_lock(fd, key, path, d);
	read_owner(fd, owner, sizeof owner);
	return ab_fail(d, AB_ERR_BACKEND, "device '%s' is in use by %s (lock '%s'): not waiting (--no-wait)", key, owner,
		       path);
}

enum ab_rc devlock_acquire(const char *key, const struct devlock_owner *who, bool wait, struct devlock **out,
			   struct ab_diag *d)
{
	*out = NULL;
	struct devlock *l = calloc(1, sizeof *l);
	if (!l)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a device lock");
	l->fd = -1;
	enum ab_rc rc = lock_path(key, l->path, sizeof l->path, d);
	if (!rc && (l->fd = open_lock(l->path)) < 0)
		rc = ab_fail(d, AB_ERR_IO, "cannot open the lock '%s': %s (set ABBENCH_LOCK_DIR)", l->path,
			     strerror(errno));
	if (!rc)
		rc = take(l->fd, key, l->path, wait, d);
	if (rc) {
		devlock_release(l);
		return rc;
	}
	l->held = true;
	write_owner(l->fd, who);
	*out = l;
	return AB_OK;
}

void devlock_release(struct devlock *l)
{
	if (!l)
		return;
	if (l->held && ftruncate(l->fd, 0) != 0) {
		/* a read-only lock file: the next holder writes over it anyway */
	}
	if (l->fd >= 0)
		close(l->fd); /* drops the flock */
	free(l);
}
