/*
 * store_schema.c - the database's schema: the migrations table (entry i
 * takes PRAGMA user_version i to i + 1), the header checks that refuse
 * what this build cannot read, migrating one transaction at a time, and
 * the switch to WAL mode (docs/SCHEMA.md).
 *
 * A new stored field is one new entry at the end of migrations[] (and
 * its column in store_rows.c's lists): a released entry is never edited.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <inttypes.h>
#include <time.h>

/* Migration i (0-based) takes user_version i to i + 1. Append only: a
 * released migration is never edited, a change is a new entry. */
static const char *const migrations[] = {
	/* 1: the first schema */
	"CREATE TABLE devices ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL, uuid TEXT NOT NULL, backend TEXT NOT NULL,"
	" cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
	" l2_bytes INTEGER NOT NULL, mem_bytes INTEGER NOT NULL,"
	" driver_version TEXT NOT NULL, runtime_version TEXT NOT NULL,"
	" default_sm_mhz INTEGER NOT NULL, copy_gbps REAL NOT NULL DEFAULT 0,"
	" UNIQUE (uuid, name, backend, driver_version, runtime_version));"
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" started_at TEXT NOT NULL, finished_at TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed')),"
	" error TEXT NOT NULL DEFAULT '', label TEXT NOT NULL DEFAULT '',"
	" scenario_name TEXT NOT NULL, scenario_path TEXT NOT NULL, scenario_text TEXT,"
	" scenario_hash TEXT NOT NULL, command_line TEXT, git_commit TEXT NOT NULL,"
	" host TEXT NOT NULL, backend TEXT NOT NULL, version TEXT NOT NULL,"
	" quick INTEGER NOT NULL CHECK (quick IN (0, 1)), bracket TEXT NOT NULL,"
	" arm_a TEXT NOT NULL, arm_b TEXT NOT NULL,"
	" steps INTEGER NOT NULL, forwards_per_step INTEGER NOT NULL,"
	" launch_gaps TEXT NOT NULL, l2_flush INTEGER NOT NULL CHECK (l2_flush IN (0, 1)),"
	" notes TEXT NOT NULL DEFAULT '',"
	" device_id INTEGER NOT NULL REFERENCES devices(id));"
	"CREATE INDEX runs_device ON runs(device_id);"
	"CREATE INDEX runs_label ON runs(label);"
	"CREATE INDEX runs_started ON runs(started_at);"
	"CREATE TABLE cases ("
	" id INTEGER PRIMARY KEY,"
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" ordinal INTEGER NOT NULL,"
	" name TEXT NOT NULL, site TEXT NOT NULL, shape TEXT NOT NULL, dtype TEXT NOT NULL,"
	" eps REAL, affine INTEGER NOT NULL CHECK (affine IN (0, 1)),"
	" count INTEGER NOT NULL, input TEXT NOT NULL,"
	" UNIQUE (run_id, ordinal));"
	"CREATE TABLE slots ("
	" id INTEGER PRIMARY KEY,"
	" case_id INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,"
	" position INTEGER NOT NULL, label TEXT NOT NULL,"
	" arm TEXT NOT NULL CHECK (arm IN ('a', 'b')), variant TEXT NOT NULL,"
	" warmup INTEGER NOT NULL, n_samples INTEGER NOT NULL, n_discarded INTEGER NOT NULL,"
	" stopping_reason TEXT NOT NULL, elapsed_s REAL,"
	" median_ns REAL, p10_ns REAL, p90_ns REAL, min_ns REAL, max_ns REAL, mean_ns REAL,"
	" noise REAL, kernel_median_ns REAL, kernel_records_bad INTEGER NOT NULL,"
	" before_valid INTEGER NOT NULL CHECK (before_valid IN (0, 1)),"
	" before_sm_mhz INTEGER NOT NULL, before_mem_mhz INTEGER NOT NULL,"
	" before_throttle_reasons INTEGER NOT NULL, before_temp_c INTEGER NOT NULL,"
	" after_valid INTEGER NOT NULL CHECK (after_valid IN (0, 1)),"
	" after_sm_mhz INTEGER NOT NULL, after_mem_mhz INTEGER NOT NULL,"
	" after_throttle_reasons INTEGER NOT NULL, after_temp_c INTEGER NOT NULL,"
	" UNIQUE (case_id, position));"
	"CREATE TABLE samples ("
	" slot_id INTEGER NOT NULL REFERENCES slots(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, wall_ns REAL, kernel_ns REAL,"
	" PRIMARY KEY (slot_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE kernel_times ("
	" id INTEGER PRIMARY KEY,"
	" slot_id INTEGER NOT NULL REFERENCES slots(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL, family TEXT NOT NULL, launches INTEGER NOT NULL,"
	" total_ns REAL, min_ns REAL, max_ns REAL);"
	"CREATE INDEX kernel_times_slot ON kernel_times(slot_id);"
	"CREATE TABLE outputs ("
	" id INTEGER PRIMARY KEY,"
	" slot_id INTEGER NOT NULL REFERENCES slots(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, tensor TEXT NOT NULL, md5 TEXT NOT NULL,"
	" bytes INTEGER NOT NULL, bit_exact INTEGER NOT NULL CHECK (bit_exact IN (0, 1)),"
	" mismatches INTEGER NOT NULL, max_abs_err REAL, max_err_ratio REAL,"
	" ref_ok INTEGER NOT NULL CHECK (ref_ok IN (0, 1)), ref_skipped INTEGER NOT NULL,"
	" UNIQUE (slot_id, idx));"
	"CREATE TABLE baselines ("
	" name TEXT PRIMARY KEY,"
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" set_at TEXT NOT NULL);"
	"CREATE INDEX baselines_run ON baselines(run_id);"
	"PRAGMA application_id = 1633837669;", /* STORE_APP_ID */
	/* 2: run UUIDs (existing runs get random ones), shards and run sets;
	 * a baseline may name a run set */
	"ALTER TABLE runs ADD COLUMN uuid TEXT NOT NULL DEFAULT '';"
	"UPDATE runs SET uuid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||"
	" substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (random() & 3), 1) ||"
	" substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)));"
	"CREATE UNIQUE INDEX runs_uuid ON runs(uuid);"
	"ALTER TABLE runs ADD COLUMN run_set TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN shard_index INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN shard_count INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX runs_run_set ON runs(run_set);"
	"ALTER TABLE baselines ADD COLUMN run_set TEXT NOT NULL DEFAULT '';",
	/* 3: where user arms came from (plugin libraries, compiled binaries) */
	"CREATE TABLE run_arms ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" arm TEXT NOT NULL CHECK (arm IN ('a', 'b')), name TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind IN ('plugin', 'cubin')),"
	" path TEXT NOT NULL, sha256 TEXT NOT NULL, detail TEXT NOT NULL,"
	" PRIMARY KEY (run_id, arm)) WITHOUT ROWID;",
	/* 4: the cases a run was restricted to (run --only), '' for all */
	"ALTER TABLE runs ADD COLUMN only_cases TEXT NOT NULL DEFAULT '';",
	/* 5: sweeps and bandwidth on cases; how a run was measured. Runs made
	 * before it used stdev/mean as the stopping rule's noise, and the fake
	 * timer always named its device "CPU fake timer (...)". */
	"ALTER TABLE cases ADD COLUMN sweep TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE cases ADD COLUMN axis TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE cases ADD COLUMN axis_value INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE cases ADD COLUMN bytes_min INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE cases ADD COLUMN bytes_a INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE cases ADD COLUMN bytes_b INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN fake_timer INTEGER NOT NULL DEFAULT 0 CHECK (fake_timer IN (0, 1));"
	"ALTER TABLE runs ADD COLUMN device_index INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN noise_measure TEXT NOT NULL DEFAULT 'mean';"
	"UPDATE runs SET fake_timer = 1 WHERE device_id IN"
	" (SELECT id FROM devices WHERE backend = 'cpu' AND name LIKE 'CPU fake timer%');",
	/* 6: who owns a run, so that the runs of processes that died can be
	 * told from live ones (common/procid.h): its pid and process identity
	 * (the host is already there); and status 'interrupted' for those and
	 * for runs stopped by a signal. SQLite cannot alter a CHECK constraint:
	 * its text is widened in sqlite_master under writable_schema, the
	 * procedure SQLite's ALTER TABLE page gives for loosening constraints
	 * (nothing stored changes form; apply_migration then bumps
	 * schema_version so that every connection reloads the schema). */
	"ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN process TEXT NOT NULL DEFAULT '';"
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_master SET sql = replace(sql,"
	" 'CHECK (status IN (''running'', ''ok'', ''failed''))',"
	" 'CHECK (status IN (''running'', ''ok'', ''failed'', ''interrupted''))')"
	" WHERE type = 'table' AND name = 'runs';"
	"PRAGMA writable_schema = OFF;"
	"CREATE INDEX runs_status ON runs(status);",
	/* 7: arms of Python callables (harness/arms/python_arm.c) among the
	 * user arms: run_arms.kind's CHECK widened as migration 6 does. */
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_master SET sql = replace(sql,"
	" 'CHECK (kind IN (''plugin'', ''cubin''))',"
	" 'CHECK (kind IN (''plugin'', ''cubin'', ''python''))')"
	" WHERE type = 'table' AND name = 'run_arms';"
	"PRAGMA writable_schema = OFF;",
	/* 8: cases committed one by one (issue 23.6): how many a run sets out
	 * to measure, so that 'ok' can require them all and a run that did not
	 * finish says how far it got; and how often `run --resume` took it up.
	 * The copy floor measured per case (issue 24.1). Runs stored before it
	 * read 0 (not recorded) and NULL floors (not measured). */
	"ALTER TABLE runs ADD COLUMN cases_planned INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN resumed INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE cases ADD COLUMN copy_floor_ns REAL;"
	"ALTER TABLE cases ADD COLUMN copy_floor_kernel_ns REAL;"
	"ALTER TABLE cases ADD COLUMN copy_floor_method TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE cases ADD COLUMN copy_floor_samples INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE cases ADD COLUMN copy_floor_detail TEXT NOT NULL DEFAULT '';"
	/* and how samples were timed (issue 24.3): 'events', or 'graph' */
	"ALTER TABLE runs ADD COLUMN timing TEXT NOT NULL DEFAULT 'events';",
	/* 9: declared sites and arms per case (docs/SITES.md): each case's
	 * arms ('' in runs before it, which read as the run's); whether an
	 * output had a float64 reference (every output before it had); and
	 * several user arms a side, so run_arms is keyed by (run, side, name)
	 * (rebuilt: SQLite cannot alter a primary key), keeping migration 7's
	 * python among its kinds. */
	"ALTER TABLE cases ADD COLUMN arm_a TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE cases ADD COLUMN arm_b TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE outputs ADD COLUMN has_ref INTEGER NOT NULL DEFAULT 1 CHECK (has_ref IN (0, 1));"
	"CREATE TABLE run_arms_rebuilt ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" arm TEXT NOT NULL CHECK (arm IN ('a', 'b')), name TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind IN ('plugin', 'cubin', 'python')),"
	" path TEXT NOT NULL, sha256 TEXT NOT NULL, detail TEXT NOT NULL,"
	" PRIMARY KEY (run_id, arm, name)) WITHOUT ROWID;"
	"INSERT INTO run_arms_rebuilt SELECT run_id, arm, name, kind, path, sha256, detail FROM run_arms;"
	"DROP TABLE run_arms;"
	"ALTER TABLE run_arms_rebuilt RENAME TO run_arms;",
	/* 10: one vocabulary per axis (issue 32.2): run_arms.kind is any kind's
	 * name, checked as text (results_check_kind_name) instead of a list
	 * of kinds here, so that a new kind of arm needs no migration (the
	 * table rebuilt as 9 does: SQLite cannot drop a CHECK; its rows kept,
	 * nothing refers to it). And run --recheck recorded: a run that
	 * measures again cases another run found slower, which list and
	 * history leave out; the runs scripts/nightly.sh made so before it,
	 * which they told by the label's end (NAME-recheck), are marked once
	 * here. */
	"CREATE TABLE run_arms_rebuilt ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" arm TEXT NOT NULL CHECK (arm IN ('a', 'b')), name TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind <> ''),"
	" path TEXT NOT NULL, sha256 TEXT NOT NULL, detail TEXT NOT NULL,"
	" PRIMARY KEY (run_id, arm, name)) WITHOUT ROWID;"
	"INSERT INTO run_arms_rebuilt SELECT run_id, arm, name, kind, path, sha256, detail FROM run_arms;"
	"DROP TABLE run_arms;"
	"ALTER TABLE run_arms_rebuilt RENAME TO run_arms;"
	"ALTER TABLE runs ADD COLUMN recheck INTEGER NOT NULL DEFAULT 0 CHECK (recheck IN (0, 1));"
	"UPDATE runs SET recheck = 1 WHERE label GLOB '*-recheck';",
};

#define N_MIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))

int store_schema_version(void)
{
	return N_MIGRATIONS;
}

static enum ab_rc version_too_new(struct store *st, int64_t v, struct ab_diag *d)
{
	return ab_fail(d, AB_ERR_DATA, "database '%s' has schema version %" PRId64 ", this abbench knows up to %d",
		       st->path, v, N_MIGRATIONS);
}

enum ab_rc store_empty_database(struct store *st, struct ab_diag *d)
{
	return ab_fail(d, AB_ERR_DATA, "database '%s' is empty (run 'abbench run' first or pass --db)", st->path);
}

/* Refuses files that are not SQLite, SQLite files of other programs, and
 * schema versions this build cannot know (newer, or negative: never
 * written by abbench). *version is the file's user_version. Runs inside
 * the caller's transaction, so that the header is read from one snapshot. */
static enum ab_rc check_header(struct store *st, int64_t *version, struct ab_diag *d)
{
	int64_t app = 0, tables = 0;
	*version = 0;
	enum ab_rc rc = store_query_int(st, "PRAGMA user_version", version, d);
	if (!rc)
		rc = store_query_int(st, "PRAGMA application_id", &app, d);
	if (!rc && *version == 0)
		rc = store_query_int(st, "SELECT count(*) FROM sqlite_master", &tables, d);
	if (rc)
		return rc;
	if ((*version != 0 && app != STORE_APP_ID) || tables > 0)
		return ab_fail(d, AB_ERR_DATA, "'%s' is an SQLite database but not an abbench one", st->path);
	if (*version < 0)
		return ab_fail(d, AB_ERR_DATA, "database '%s' has schema version %" PRId64 ", which no abbench writes",
			       st->path, *version);
	if (*version > N_MIGRATIONS)
		return version_too_new(st, *version, d);
	return AB_OK;
}

/* check_header in a read transaction of its own; *src (when not NULL)
 * gets SQLite's code of a failure, which the rollback would reset. */
enum ab_rc store_check_header_now(struct store *st, int64_t *version, int *src, struct ab_diag *d)
{
	enum ab_rc rc = store_exec(st, "BEGIN", "begin reading the database header", d);
	if (!rc)
		rc = check_header(st, version, d);
	if (src)
		*src = rc ? sqlite3_extended_errcode(st->db) : SQLITE_OK;
	store_rollback(st); /* read only: nothing to commit */
	return rc;
}

/* Applies migration v (user_version v -> v + 1) inside the open
 * transaction, and bumps schema_version so that every connection, this one
 * included, reloads the schema (a migration may edit sqlite_master's text,
 * which SQLite does not notice by itself). */
static enum ab_rc apply_migration(struct store *st, int v, struct ab_diag *d)
{
	char sql[64];
	int64_t schema = 0;
	if (sqlite3_exec(st->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK)
		return store_db_fail(st, d, "migrate '%s' to schema version %d", st->path, v + 1);
	enum ab_rc rc = store_query_int(st, "PRAGMA schema_version", &schema, d);
	snprintf(sql, sizeof sql, "PRAGMA schema_version = %" PRId64, schema + 1);
	if (!rc)
		rc = store_exec(st, sql, "bump the schema version", d);
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
	return rc ? rc : store_exec(st, sql, "set the schema version", d);
}

/* Forward migrations up to version target, one transaction each, the
 * header read again under the write lock each time: of several processes
 * opening a new file at once, one migrates it and the others find it done. */
enum ab_rc store_migrate(struct store *st, bool create, int target, struct ab_diag *d)
{
	for (;;) {
		int64_t v = 0;
		enum ab_rc rc = store_exec(st, "BEGIN IMMEDIATE", "lock the database to migrate it", d);
		if (!rc)
			rc = check_header(st, &v, d);
		if (!rc && v == 0 && !create)
			rc = store_empty_database(st, d);
		if (!rc && v < target)
			rc = apply_migration(st, (int)v, d);
		if (!rc)
			rc = store_exec(st, "COMMIT", "commit the migration", d);
		if (rc) {
			store_rollback(st);
			return rc;
		}
		if (v >= target)
			return AB_OK;
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The journal mode, switched to WAL unless it is already. Switching needs
 * the file to itself and SQLite answers SQLITE_BUSY at once, without its
 * busy handler, while another connection reads it (several first runs on a
 * new file): retried here for up to STORE_BUSY_MS. */
enum ab_rc store_ensure_wal(struct store *st, struct ab_diag *d)
{
	int waited = 0;
	for (int pause = 1;; pause = pause < 32 ? 2 * pause : 50) {
		sqlite3_stmt *s = NULL;
		int src = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
		if (src == SQLITE_OK)
			src = sqlite3_step(s);
		bool wal = src == SQLITE_ROW && !sqlite3_stricmp((const char *)sqlite3_column_text(s, 0), "wal");
		sqlite3_finalize(s);
		if (wal)
			return AB_OK;
		if (src == SQLITE_ROW)
			return ab_fail(d, AB_ERR_DB, "cannot switch '%s' to WAL mode", st->path);
		if ((src & 0xff) != SQLITE_BUSY && (src & 0xff) != SQLITE_LOCKED)
			return store_db_fail(st, d, "switch '%s' to WAL mode", st->path);
		if (waited >= STORE_BUSY_MS)
			return store_db_fail(st, d, "switch '%s' to WAL mode (waited %d ms)", st->path, waited);
		sleep_ms(pause);
		waited += pause;
	}
}

enum ab_rc store_leave_wal(struct store *st, struct ab_diag *d)
{
	sqlite3_stmt *s = NULL;
	int src = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = DELETE", -1, &s, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_step(s);
	bool done = src == SQLITE_ROW && !sqlite3_stricmp((const char *)sqlite3_column_text(s, 0), "delete");
	enum ab_rc rc = done ? AB_OK : store_db_fail(st, d, "fold the WAL of '%s' into it", st->path);
	sqlite3_finalize(s);
	return rc;
}
