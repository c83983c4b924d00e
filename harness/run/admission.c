/*
 * admission.c - every case's memory against the machine's (admission.h).
 */
#include "run/admission.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "run/run_case.h"

/* MemAvailable of /proc/meminfo in bytes; false when it cannot be read (the
 * host check is then skipped). */
static bool host_available(uint64_t *bytes)
{
	char line[256];
	unsigned long long kib = 0;
	bool found = false;
	FILE *f = fopen("/proc/meminfo", "r");
	while (f && !found && fgets(line, sizeof line, f))
		found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
	if (f)
		fclose(f);
	*bytes = (uint64_t)kib * 1024;
	return found;
}

/* "12.3 GiB" or "456.7 MiB". */
static const char *size_str(uint64_t bytes, char *buf, size_t len)
{
	double b = (double)bytes;
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.1f GiB", b / (1024.0 * 1024 * 1024));
	else
		snprintf(buf, len, "%.1f MiB", b / (1024.0 * 1024));
	return buf;
}

static enum ab_rc refuse(const struct scenario *s, const struct case_plan *p, const char *what, uint64_t need,
			 uint64_t have, const char *have_what, struct ab_diag *d)
{
	char n[32], h[32];
	return ab_fail(d, AB_ERR_INPUT,
		       "%s:%d: case '%s' (site %s, shape %s) needs %s of %s memory and %s is %s: use a smaller shape "
		       "or a larger machine",
		       s->path, p->c->line, p->c->name, p->site->name, p->shape, size_str(need, n, sizeof n), what,
		       size_str(have, h, sizeof h), have_what);
}

static enum ab_rc check_case(const struct scenario *s, const struct case_plan *p,
			     const struct scenario_sampling *sampling, const struct backend_ops *ops, struct backend *bk,
			     bool have_host, uint64_t host_avail, struct ab_diag *d)
{
	struct bk_memory m;
	enum ab_rc rc = ops->case_memory(bk, p->site, &p->args, &m, d);
	if (rc)
		return ab_wrap(d, rc, "case '%s': cannot learn the free device memory", p->c->name);
	uint64_t host = run_case_host_bytes(p, sampling, (int)strlen(s->bracket)) + m.host_bytes;
	if (have_host && host > host_avail)
		return refuse(s, p, "host", host, host_avail, "available (MemAvailable in /proc/meminfo)", d);
	if (m.has_device && m.device_bytes > m.device_free)
		return refuse(s, p, "device", m.device_bytes, m.device_free, "free on the device", d);
	return AB_OK;
}

enum ab_rc admission_check(const struct scenario *s, const struct case_plan *plans, const struct shard *shard,
			   const struct scenario_sampling *sampling, const struct backend_ops *ops, struct backend *bk,
			   struct ab_diag *d)
{
	uint64_t host_avail = 0;
	bool have_host = host_available(&host_avail);
	for (int i = 0; i < s->n_cases; i++) {
		if (!shard_has(shard, i))
			continue;
		enum ab_rc rc = check_case(s, &plans[i], sampling, ops, bk, have_host, host_avail, d);
		if (rc)
			return rc;
	}
	return AB_OK;
}
