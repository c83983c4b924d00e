/*
 * parallel.c - par_for: k parts of [0, n) on k threads (parallel.h).
 *
 * One pthread per part but the last, which the caller runs itself; no
 * pool, since the callers (a case's reference, a slot's check) hand out a
 * few large jobs per case and a thread's start costs microseconds against
 * their milliseconds.
 */
#include "common/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

struct par_job {
	par_fn fn;
	void *ctx;
	int64_t lo, hi;
	int part;
};

static void *par_run(void *arg)
{
	const struct par_job *j = arg;
	j->fn(j->ctx, j->lo, j->hi, j->part);
	return NULL;
}

/* The CPUs to use: the online ones, at most PAR_THREADS_MAX. */
static int par_cpus(void)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	return c < 1 ? 1 : c > PAR_THREADS_MAX ? PAR_THREADS_MAX : (int)c;
}

int par_threads(int64_t n, int64_t work, int64_t min_work)
{
	if (n <= 1 || work < min_work)
		return 1;
	int k = par_cpus();
	return n < k ? (int)n : k;
}

int64_t par_part_lo(int64_t n, int k, int p)
{
	/* n * p may not fit for huge n: split the product */
	return (n / k) * p + (n % k) * p / k;
}

void par_for(int64_t n, int k, par_fn fn, void *ctx)
{
	struct par_job job[PAR_THREADS_MAX];
	pthread_t th[PAR_THREADS_MAX];
	bool started[PAR_THREADS_MAX];
	if (k < 1)
		k = 1;
	if (k > PAR_THREADS_MAX)
		k = PAR_THREADS_MAX;
	for (int p = 0; p < k; p++) {
		job[p] = (struct par_job){ fn, ctx, par_part_lo(n, k, p), par_part_lo(n, k, p + 1), p };
		started[p] = p < k - 1 && !pthread_create(&th[p], NULL, par_run, &job[p]);
		if (!started[p] && p < k - 1)
			par_run(&job[p]);
	}
	par_run(&job[k - 1]);
	for (int p = 0; p < k - 1; p++)
		if (started[p])
			pthread_join(th[p], NULL);
}
