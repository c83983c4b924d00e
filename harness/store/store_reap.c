/*
 * store_reap.c - runs whose process is gone: a 'running' row of this host
 * and pid namespace whose process procid.h calls gone (no such pid, a
 * zombie, another start time, another boot) is set 'interrupted', saying
 * whose process went away. Rows of other hosts, other namespaces, or
 * without an owner (written before schema version 6) are never judged.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <inttypes.h>
#include <stdlib.h>

#include "common/procid.h"
#include "common/utc.h"

struct stale {
	int64_t id, pid;
	char host[128];
};

/* The 'running' runs whose process procid_state calls gone. */
static enum ab_rc find_stale(struct store *st, struct stale **out, int *n, struct ab_diag *d)
{
	sqlite3_stmt *s;
	int cap = 0, src;
	*out = NULL;
	*n = 0;
	enum ab_rc rc = store_prepare(st, "SELECT id, host, pid, process FROM runs WHERE status = 'running'", &s, d);
	while (!rc && (src = sqlite3_step(s)) == SQLITE_ROW) {
		struct col c = { .s = s };
		struct stale e;
		char process[PROCID_MAX];
		e.id = c_i64(&c);
		C_STR(&c, e.host);
		e.pid = c_i64(&c);
		C_STR(&c, process);
		if (procid_state(e.host, e.pid, process) != PROCID_GONE)
			continue;
		struct stale *q = store_grow(*out, *n, &cap, sizeof **out);
		if (!q)
			rc = store_nomem(d, "list the runs left running");
		else
			(*out = q)[(*n)++] = e;
	}
	if (!rc && src != SQLITE_DONE)
		rc = store_db_fail(st, d, "list the runs left running in '%s'", st->path);
	sqlite3_finalize(s);
	return rc;
}

/* In one transaction: each run of the list that is still 'running' becomes
 * 'interrupted', saying whose process went away. */
static enum ab_rc mark_stale(struct store *st, const struct stale *v, int n, struct ab_diag *d)
{
	char why[300], now[32];
	utc_now(now, sizeof now);
	enum ab_rc rc = store_exec(st, "BEGIN IMMEDIATE", "begin marking interrupted runs", d);
	for (int i = 0; !rc && i < n; i++) {
		snprintf(why, sizeof why, "interrupted: process %" PRId64 " on '%.100s' ended without finishing the run "
			 "(found %s)", v[i].pid, v[i].host, now);
		rc = store_end_run(st, v[i].id, "interrupted", why, d);
		if (rc == AB_ERR_DATA) /* it ended meanwhile */
			rc = AB_OK;
	}
	if (!rc)
		rc = store_exec(st, "COMMIT", "commit the interrupted runs", d);
	if (rc)
		store_rollback(st);
	return rc;
}

enum ab_rc store_reap_stale(struct store *st, struct ab_diag *d)
{
	struct stale *v;
	int n;
	enum ab_rc rc = find_stale(st, &v, &n, d);
	if (!rc && n)
		rc = mark_stale(st, v, n, d);
	free(v);
	return rc;
}

/* A reading command does not write through its own connection: the stale
 * runs it finds are marked through a short read-write connection of their
 * own, when the file can be written at all (not on read-only media). It is
 * a courtesy: on any failure the rows stay as they were. */
void store_reap_stale_from_reader(struct store *st)
{
	struct stale *v = NULL;
	int n = 0;
	struct store w = { .read_only = false };
	if (st->immutable || find_stale(st, &v, &n, NULL) || !n) {
		free(v);
		return;
	}
	snprintf(w.path, sizeof w.path, "%s", st->path);
	if (!store_connect(&w, st->path, SQLITE_OPEN_READWRITE, NULL) && !store_exec(&w, "PRAGMA foreign_keys = ON", "", NULL))
		mark_stale(&w, v, n, NULL);
	store_disconnect(&w);
	free(v);
}
