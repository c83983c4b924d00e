/*
 * procid.c - process identities from /proc (see procid.h).
 */
#include "common/procid.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void procid_host(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

/* The first line of a small file, without its newline; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(buf, (int)len, f);
	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* State letter and start time of /proc/PID/stat: the fields after the
 * command name, which is in parentheses and may hold anything. */
static bool proc_stat(int64_t pid, char *state, unsigned long long *ticks)
{
	char path[64], line[1024];
	snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
	if (!read_line(path, line, sizeof line))
		return false;
	const char *p = strrchr(line, ')');
	if (!p)
		return false;
	/* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	 * utime stime cutime cstime priority nice threads itrealvalue starttime" */
	return sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
		      state, ticks) == 2;
}

/* "BOOT_ID/PIDNS/" of this process, the prefix every identity starts with. */
static bool self_prefix(char *buf, size_t len)
{
	char boot[64], ns[64];
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	if (n <= 0 || !read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot))
		return false;
	ns[n] = '\0';
	return (size_t)snprintf(buf, len, "%s/%s/", boot, ns) < len;
}

void procid_of(int64_t pid, char *buf, size_t len)
{
	char prefix[PROCID_MAX], state;
	unsigned long long ticks;
	buf[0] = '\0';
	if (pid > 0 && self_prefix(prefix, sizeof prefix) && proc_stat(pid, &state, &ticks))
		snprintf(buf, len, "%s%llu", prefix, ticks);
}

enum procid_state procid_state(const char *host, int64_t pid, const char *identity)
{
	char me[256], prefix[PROCID_MAX], now[PROCID_MAX + 24], state;
	unsigned long long ticks;
	procid_host(me, sizeof me);
	if (pid <= 0 || !identity[0] || strcmp(host, me) != 0 || !self_prefix(prefix, sizeof prefix))
		return PROCID_UNKNOWN;
	size_t boot_len = strcspn(prefix, "/");
	if (strncmp(identity, prefix, boot_len + 1) != 0)
		return PROCID_GONE; /* recorded before this machine's last boot */
	if (strncmp(identity, prefix, strlen(prefix)) != 0)
		return PROCID_UNKNOWN; /* another pid namespace: its pids are not ours to see */
	if (!proc_stat(pid, &state, &ticks) || state == 'Z' || state == 'X')
		return PROCID_GONE;
	snprintf(now, sizeof now, "%s%llu", prefix, ticks);
	return strcmp(now, identity) == 0 ? PROCID_ALIVE : PROCID_GONE;
}

static int64_t owner;

void procid_set_owner(int64_t pid)
{
	owner = pid;
}

int64_t procid_owner(void)
{
	return owner > 0 ? owner : (int64_t)getpid();
}
