/*
 * devices.c - one worker process per device, then a merge (devices.h).
 */
#include "run/devices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/numparse.h"
#include "common/utc.h"
#include "store/merge.h"

struct worker {
	int device;
	pid_t pid;
	int status;           /* exit status; 128 + signal when killed */
	int signal;           /* the signal that killed it, 0 when it exited */
	char db[4300], log[4300];
	char shard[32];
	char msg[400];        /* a failed worker's message (worker_message) */
};

static bool listed(const int *dev, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (dev[i] == v)
			return true;
	return false;
}

enum ab_rc devices_parse(const char *text, int count_all, int *dev, int *n, struct ab_diag *d)
{
	char buf[512], *save = NULL;
	*n = 0;
	if (!strcmp(text, "all")) {
		if (count_all < 1)
			return ab_fail(d, AB_ERR_USAGE, "--devices all: no device answers");
		for (*n = 0; *n < count_all && *n < DEVICES_MAX; (*n)++)
			dev[*n] = *n;
		return AB_OK;
	}
	snprintf(buf, sizeof buf, "%s", text);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int v;
		if (!numparse_int(t, &v) || v < 0 || *n == DEVICES_MAX || listed(dev, *n, v))
			return ab_fail(d, AB_ERR_USAGE,
				       "--devices must be 'all' or distinct device indexes like 0,1,3 (at most %d), not '%s'",
				       DEVICES_MAX, text);
		dev[(*n)++] = v;
	}
	if (*n == 0 || strlen(text) >= sizeof buf)
		return ab_fail(d, AB_ERR_USAGE, "--devices must be 'all' or device indexes like 0,1,3, not '%s'", text);
	return AB_OK;
}

void devices_default_set_id(char *buf, size_t len)
{
	char when[32];
	utc_now_basic(when, sizeof when);
	snprintf(buf, len, "devices-%s-%ld", when, (long)getpid());
}

/* In the child: output to the log, then abbench itself. Never returns. */
static void exec_worker(const struct worker *w, char **av)
{
	FILE *log = fopen(w->log, "w");
	if (!log || dup2(fileno(log), STDOUT_FILENO) < 0 || dup2(fileno(log), STDERR_FILENO) < 0)
		_exit(AB_EXIT_FAILURE);
	execv("/proc/self/exe", av);
	fprintf(stderr, "abbench: error: cannot start a worker: %s\n", strerror(errno));
	_exit(AB_EXIT_FAILURE);
}

static enum ab_rc start_worker(const struct devices_job *j, int i, struct worker *w, const char *dir,
			       struct ab_diag *d)
{
	w->device = j->device[i];
	snprintf(w->shard, sizeof w->shard, "%d/%d", i + 1, j->n);
	snprintf(w->db, sizeof w->db, "%.4200s/worker-%d.db", dir, w->device);
	snprintf(w->log, sizeof w->log, "%.4200s/worker-%d.log", dir, w->device);
	const struct devices_worker settings = {
		.device = w->device, .shard = { .index = i + 1, .count = j->n }, .run_set = j->run_set, .db = w->db,
	};
	char **av = j->argv(&settings, j->ctx);
	if (!av)
		return ab_fail(d, AB_ERR_NOMEM, "cannot write the command line of the worker for device %d", w->device);
	fflush(NULL);
	w->pid = fork();
	if (w->pid == 0)
		exec_worker(w, av);
	int err = errno;
	free(av);
	if (w->pid < 0)
		return ab_fail(d, AB_ERR_IO, "cannot start the worker for device %d: %s", w->device, strerror(err));
	fprintf(stderr, "device %d: shard %s of run set '%s' started (pid %ld)\n", w->device, w->shard, j->run_set,
		(long)w->pid);
	return AB_OK;
}

/* A failed worker's message: the last "abbench: error: " line of its log
 * (the worker's own error, also when later lines follow it), or, when it
 * wrote none (killed, crashed), how it ended. Never another line of the
 * log: a note or a progress line is not why it failed. */
static void worker_message(struct worker *w)
{
	static const char prefix[] = "abbench: error: ";
	char line[1024];
	bool have_error = false;
	FILE *f = fopen(w->log, "r");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, prefix, sizeof prefix - 1))
			continue;
		snprintf(w->msg, sizeof w->msg, "%.*s", (int)sizeof w->msg - 1, line + sizeof prefix - 1);
		have_error = true;
	}
	if (f)
		fclose(f);
	if (have_error)
		return;
	if (w->signal)
		snprintf(w->msg, sizeof w->msg, "killed by signal %d (%s) before it reported an error", w->signal,
			 strsignal(w->signal));
	else
		snprintf(w->msg, sizeof w->msg, "exited with status %d without an error message", w->status);
}

static void wait_workers(struct worker *w, int n, const struct timespec *t0)
{
	for (int left = n; left > 0;) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (int i = 0; i < n; i++) {
			if (w[i].pid != pid)
				continue;
			struct timespec t1;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			w[i].signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
			w[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + w[i].signal;
			double s = (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
			if (w[i].status) {
				worker_message(&w[i]);
				fprintf(stderr, "device %d: shard %s FAILED after %.1f s: %s (its output: '%s')\n", w[i].device,
					w[i].shard, s, w[i].msg, w[i].log);
			} else {
				fprintf(stderr, "device %d: shard %s done after %.1f s\n", w[i].device, w[i].shard, s);
			}
			left--;
		}
	}
}

/* The worker files that exist, merged into the database. */
static enum ab_rc merge_workers(const struct devices_job *j, struct worker *w, int n, struct ab_diag *d)
{
	const char *in[DEVICES_MAX];
	int k = 0;
	struct merge_stats ms;
	for (int i = 0; i < n; i++)
		if (access(w[i].db, F_OK) == 0)
			in[k++] = w[i].db;
	return k ? merge_files(j->db_path, in, k, &ms, d) : AB_OK;
}

static enum ab_rc first_failure(const struct worker *w, int n, struct ab_diag *d)
{
	for (int i = 0; i < n; i++)
		if (w[i].status)
			return ab_fail(d, w[i].status == AB_EXIT_USAGE ? AB_ERR_DATA : AB_ERR_BACKEND,
				       "device %d (shard %s): %s (run set incomplete); its output stays in '%s'", w[i].device,
				       w[i].shard, w[i].msg, w[i].log);
	return AB_OK;
}

/* Removes the worker directory: every worker's database and side files,
 * the logs of the workers that succeeded; the directory itself when no
 * failed worker's log is left in it. */
static void remove_dir(const char *dir, const struct worker *w, int n)
{
	static const char *const side[] = { "", "-wal", "-shm" };
	char p[4400];
	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof side / sizeof side[0]; k++) {
			snprintf(p, sizeof p, "%s%s", w[i].db, side[k]);
			unlink(p);
		}
		if (!w[i].status)
			unlink(w[i].log);
	}
	rmdir(dir); /* fails, as it should, while a failed worker's log is in it */
}

enum ab_rc devices_run(const struct devices_job *j, struct ab_diag *d)
{
	char dir[4200];
	struct timespec t0;
	if (strlen(j->db_path) > 4000)
		return ab_fail(d, AB_ERR_USAGE, "database path too long for --devices");
	struct worker *w = calloc((size_t)j->n, sizeof *w);
	if (!w)
		return ab_fail(d, AB_ERR_NOMEM, "out of memory starting %d workers", j->n);
	snprintf(dir, sizeof dir, "%s.workers.XXXXXX", j->db_path);
	if (!mkdtemp(dir)) {
		free(w);
		return ab_fail(d, AB_ERR_IO, "cannot create a worker directory beside '%s': %s", j->db_path,
			       strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum ab_rc rc = AB_OK;
	int started = 0;
	for (; !rc && started < j->n; started++)
		if ((rc = start_worker(j, started, &w[started], dir, d)))
			break;
	wait_workers(w, started, &t0);
	enum ab_rc mrc = merge_workers(j, w, started, d);
	if (!rc)
		rc = first_failure(w, started, d);
	if (!rc)
		rc = mrc;
	if (mrc)
		fprintf(stderr, "abbench: the worker files stay in '%s'\n", dir);
	else
		remove_dir(dir, w, started);
	free(w);
	return rc;
}
