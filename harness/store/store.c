/*
 * store.c - the SQLite store of runs: schema and migrations, one run written
 * in one transaction, read back whole into a results_run.
 *
 * Every value goes through sqlite3_bind_*; the only SQL text assembled at
 * run time is "PRAGMA user_version = N" with N taken from the migration
 * table (PRAGMA values cannot be bound). Doubles that are NAN are stored as
 * NULL and NULL reads back as NAN. Text columns are NOT NULL and hold ''
 * for "none", except runs.finished_at (NULL while running) and the two
 * malloc'd strings scenario_text and command_line (NULL <-> NULL).
 * docs/SCHEMA.md describes the tables.
 */
#include "store/store.h"
#include "store/runset.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/procid.h"
#include "common/utc.h"

#define STORE_BUSY_MS 5000
/* PRAGMA application_id of abbench databases: "abbe" in ASCII. */
#define STORE_APP_ID 0x61626265

struct store {
	sqlite3 *db;
	bool read_only; /* store_open_readonly: nothing is ever written through db */
	bool immutable; /* opened as an immutable file (read-only media) */
	char path[4096];
};

/* ---- schema ---------------------------------------------------------- */

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
};

#define N_MIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))

/* Column lists shared by the INSERT and the SELECT of a table, so that the
 * bind_* and read_* functions below follow one order. */
#define DEVICE_COLS                                                                              \
	"name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes, driver_version, " \
	"runtime_version, default_sm_mhz, copy_gbps"
#define RUN_COLS                                                                                 \
	"started_at, finished_at, status, error, label, scenario_name, scenario_path, "            \
	"scenario_text, scenario_hash, command_line, git_commit, host, backend, version, quick, "  \
	"bracket, arm_a, arm_b, steps, forwards_per_step, launch_gaps, l2_flush, notes, uuid, run_set, " \
	"shard_index, shard_count, device_id, only_cases, fake_timer, device_index, noise_measure"
#define CASE_COLS                                                                                \
	"name, site, shape, dtype, eps, affine, count, input, sweep, axis, axis_value, bytes_min, "  \
	"bytes_a, bytes_b"
#define SLOT_COLS                                                                                \
	"position, label, arm, variant, warmup, n_samples, n_discarded, stopping_reason, elapsed_s, "  \
	"median_ns, p10_ns, p90_ns, min_ns, max_ns, mean_ns, noise, kernel_median_ns, "            \
	"kernel_records_bad, before_valid, before_sm_mhz, before_mem_mhz, "                        \
	"before_throttle_reasons, before_temp_c, after_valid, after_sm_mhz, after_mem_mhz, "       \
	"after_throttle_reasons, after_temp_c"
#define KERNEL_COLS "name, family, launches, total_ns, min_ns, max_ns"
#define OUTPUT_COLS                                                                              \
	"tensor, md5, bytes, bit_exact, mismatches, max_abs_err, max_err_ratio, ref_ok, "          \
	"ref_skipped"

int store_schema_version(void)
{
	return N_MIGRATIONS;
}

/* ---- errors and small helpers ---------------------------------------- */

static enum ab_rc db_vfail(struct store *st, struct ab_diag *d, const char *fmt, va_list ap)
{
	char what[256];
	vsnprintf(what, sizeof what, fmt, ap);
	return ab_fail(d, AB_ERR_DB, "cannot %s: %s", what, sqlite3_errmsg(st->db));
}

/* AB_ERR_DB "cannot WHAT: sqlite message". Call before anything else
 * touches the connection (a ROLLBACK would replace the message). */
static enum ab_rc db_fail(struct store *st, struct ab_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum ab_rc db_fail(struct store *st, struct ab_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	enum ab_rc rc = db_vfail(st, d, fmt, ap);
	va_end(ap);
	return rc;
}

static enum ab_rc nomem(struct ab_diag *d, const char *what)
{
	return ab_fail(d, AB_ERR_NOMEM, "cannot %s: out of memory", what);
}

/* Static SQL only (transactions, pragmas, the migrations). */
static enum ab_rc exec(struct store *st, const char *sql, const char *what, struct ab_diag *d)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(st, d, "%s", what);
	return AB_OK;
}

static void rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static enum ab_rc prepare(struct store *st, const char *sql, sqlite3_stmt **s, struct ab_diag *d)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return db_fail(st, d, "prepare '%.60s'", sql);
	}
	return AB_OK;
}

/* Grows a malloc'd array so that element n fits; NULL when out of memory
 * (the old block stays valid). */
static void *grow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	int nc = *cap ? *cap * 2 : 8;
	void *q = realloc(p, (size_t)nc * size);
	if (q)
		*cap = nc;
	return q;
}

/* ---- binding parameters in order ------------------------------------- */

struct bind {
	sqlite3_stmt *s;
	int i;     /* parameters bound so far */
	int rc;    /* first sqlite error */
	bool once; /* from prepare_bind: run_bound finalizes s instead of resetting it */
};

static struct bind bind_start(sqlite3_stmt *s)
{
	return (struct bind){ .s = s, .i = 0, .rc = SQLITE_OK, .once = false };
}

static void b_null(struct bind *b)
{
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_null(b->s, i);
}

/* NULL pointer -> NULL. The text must outlive the statement's step. */
static void b_text(struct bind *b, const char *v)
{
	if (!v) {
		b_null(b);
		return;
	}
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_text(b->s, i, v, -1, SQLITE_STATIC);
}

/* A fixed char array, bounded by its size even if not terminated. */
static void b_str(struct bind *b, const char *v, size_t cap)
{
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_text(b->s, i, v, (int)strnlen(v, cap), SQLITE_STATIC);
}
#define B_STR(b, arr) b_str((b), (arr), sizeof(arr))

/* One character as a one-letter text, copied by SQLite. */
static void b_char(struct bind *b, char ch)
{
	char v[2] = { ch, '\0' };
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_text(b->s, i, v, ch ? 1 : 0, SQLITE_TRANSIENT);
}

static void b_i64(struct bind *b, int64_t v)
{
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_int64(b->s, i, v);
}

/* NAN -> NULL. */
static void b_real(struct bind *b, double v)
{
	if (isnan(v)) {
		b_null(b);
		return;
	}
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_double(b->s, i, v);
}

/* Prepares sql and starts binding its parameters: the first step of a
 * statement used once (finished by run_bound or sqlite3_finalize(b->s)). */
static enum ab_rc prepare_bind(struct store *st, const char *sql, struct bind *b, struct ab_diag *d)
{
	sqlite3_stmt *s;
	enum ab_rc rc = prepare(st, sql, &s, d);
	*b = bind_start(s);
	b->once = true;
	return rc;
}

/* The first step after binding: SQLITE_ROW, SQLITE_DONE or an error code
 * (a failed bind's included). */
static int step_bound(const struct bind *b)
{
	return b->rc == SQLITE_OK ? sqlite3_step(b->s) : b->rc;
}

/* Steps a statement that returns no row, then resets it for the next use
 * (or finalizes it, when it came from prepare_bind). fmt names what was
 * being done, for the message. */
static enum ab_rc run_bound(struct store *st, struct bind *b, struct ab_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static enum ab_rc run_bound(struct store *st, struct bind *b, struct ab_diag *d, const char *fmt, ...)
{
	enum ab_rc rc = AB_OK;
	if (b->i != sqlite3_bind_parameter_count(b->s)) {
		rc = ab_fail(d, AB_ERR_INTERNAL, "bound %d of %d parameters of '%.60s'", b->i,
			     sqlite3_bind_parameter_count(b->s), sqlite3_sql(b->s));
	} else if (step_bound(b) != SQLITE_DONE) {
		va_list ap;
		va_start(ap, fmt);
		rc = db_vfail(st, d, fmt, ap);
		va_end(ap);
	}
	if (b->once) {
		sqlite3_finalize(b->s);
		return rc;
	}
	sqlite3_reset(b->s);
	sqlite3_clear_bindings(b->s);
	return rc;
}

/* Statements prepared together and finalized together (NULL entries of a
 * failed prepare_all are harmless to finalize_all). */
static enum ab_rc prepare_all(struct store *st, const char *const *sql, sqlite3_stmt **s, int n, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < n; i++)
		rc = prepare(st, sql[i], &s[i], d);
	return rc;
}

static void finalize_all(sqlite3_stmt **s, int n)
{
	for (int i = 0; i < n; i++)
		sqlite3_finalize(s[i]);
}

/* ---- reading columns in order ---------------------------------------- */

struct col {
	sqlite3_stmt *s;
	int i;
};

static void c_str(struct col *c, char *dst, size_t cap)
{
	const unsigned char *t = sqlite3_column_text(c->s, c->i++);
	snprintf(dst, cap, "%s", t ? (const char *)t : "");
}
#define C_STR(c, arr) c_str((c), (arr), sizeof(arr))

/* NULL stays NULL; *ok turns false when out of memory. */
static char *c_dup(struct col *c, bool *ok)
{
	const unsigned char *t = sqlite3_column_text(c->s, c->i++);
	if (!t)
		return NULL;
	char *p = strdup((const char *)t);
	if (!p)
		*ok = false;
	return p;
}

static int64_t c_i64(struct col *c)
{
	return sqlite3_column_int64(c->s, c->i++);
}

static int c_int(struct col *c)
{
	return sqlite3_column_int(c->s, c->i++);
}

static bool c_bool(struct col *c)
{
	return sqlite3_column_int(c->s, c->i++) != 0;
}

/* NULL -> NAN. */
static double c_real(struct col *c)
{
	int i = c->i++;
	return sqlite3_column_type(c->s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(c->s, i);
}

/* ---- opening, checking and migrating --------------------------------- */

const char *store_default_path(const char *cli_value)
{
	if (cli_value)
		return cli_value;
	const char *env = getenv("ABBENCH_DB");
	return env && *env ? env : "abbench.db";
}

/* The first read of a file tells whether it is SQLite at all. */
static enum ab_rc read_error(struct store *st, int src, const char *what, struct ab_diag *d)
{
	if ((src & 0xff) == SQLITE_NOTADB)
		return ab_fail(d, AB_ERR_DATA, "'%s' is not an abbench database (%s)", st->path,
			       sqlite3_errmsg(st->db));
	return db_fail(st, d, "read %s of '%s'", what, st->path);
}

/* One integer from a statement without parameters (PRAGMA, count). */
static enum ab_rc query_int(struct store *st, const char *sql, int64_t *v, struct ab_diag *d)
{
	sqlite3_stmt *s = NULL;
	int src = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (src == SQLITE_OK) {
		src = sqlite3_step(s);
		if (src == SQLITE_ROW) {
			*v = sqlite3_column_int64(s, 0);
			src = SQLITE_OK;
		}
	}
	enum ab_rc rc = src == SQLITE_OK ? AB_OK : read_error(st, src, sql, d);
	sqlite3_finalize(s);
	return rc;
}

static enum ab_rc version_too_new(struct store *st, int64_t v, struct ab_diag *d)
{
	return ab_fail(d, AB_ERR_DATA, "database '%s' has schema version %" PRId64 ", this abbench knows up to %d",
		       st->path, v, N_MIGRATIONS);
}

static enum ab_rc empty_database(struct store *st, struct ab_diag *d)
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
	enum ab_rc rc = query_int(st, "PRAGMA user_version", version, d);
	if (!rc)
		rc = query_int(st, "PRAGMA application_id", &app, d);
	if (!rc && *version == 0)
		rc = query_int(st, "SELECT count(*) FROM sqlite_master", &tables, d);
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
static enum ab_rc check_header_now(struct store *st, int64_t *version, int *src, struct ab_diag *d)
{
	enum ab_rc rc = exec(st, "BEGIN", "begin reading the database header", d);
	if (!rc)
		rc = check_header(st, version, d);
	if (src)
		*src = rc ? sqlite3_extended_errcode(st->db) : SQLITE_OK;
	rollback(st); /* read only: nothing to commit */
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
		return db_fail(st, d, "migrate '%s' to schema version %d", st->path, v + 1);
	enum ab_rc rc = query_int(st, "PRAGMA schema_version", &schema, d);
	snprintf(sql, sizeof sql, "PRAGMA schema_version = %" PRId64, schema + 1);
	if (!rc)
		rc = exec(st, sql, "bump the schema version", d);
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
	return rc ? rc : exec(st, sql, "set the schema version", d);
}

/* Forward migrations up to version target, one transaction each, the
 * header read again under the write lock each time: of several processes
 * opening a new file at once, one migrates it and the others find it done. */
static enum ab_rc migrate(struct store *st, bool create, int target, struct ab_diag *d)
{
	for (;;) {
		int64_t v = 0;
		enum ab_rc rc = exec(st, "BEGIN IMMEDIATE", "lock the database to migrate it", d);
		if (!rc)
			rc = check_header(st, &v, d);
		if (!rc && v == 0 && !create)
			rc = empty_database(st, d);
		if (!rc && v < target)
			rc = apply_migration(st, (int)v, d);
		if (!rc)
			rc = exec(st, "COMMIT", "commit the migration", d);
		if (rc) {
			rollback(st);
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
static enum ab_rc ensure_wal(struct store *st, struct ab_diag *d)
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
			return db_fail(st, d, "switch '%s' to WAL mode", st->path);
		if (waited >= STORE_BUSY_MS)
			return db_fail(st, d, "switch '%s' to WAL mode (waited %d ms)", st->path, waited);
		sleep_ms(pause);
		waited += pause;
	}
}

static enum ab_rc connect(struct store *st, const char *name, int flags, struct ab_diag *d)
{
	if (sqlite3_open_v2(name, &st->db, flags, NULL) != SQLITE_OK)
		return ab_fail(d, AB_ERR_DB, "cannot open database '%s': %s", st->path,
			       st->db ? sqlite3_errmsg(st->db) : "out of memory");
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	return AB_OK;
}

static void disconnect(struct store *st)
{
	sqlite3_close(st->db);
	st->db = NULL;
}

/* A store for path, or the message why not: a missing file is AB_ERR_DATA
 * unless it is to be created. */
static enum ab_rc store_new(const char *path, bool create, struct store **out, struct ab_diag *d)
{
	struct stat sb;
	*out = NULL;
	if (!create && stat(path, &sb) != 0) {
		if (errno == ENOENT)
			return ab_fail(d, AB_ERR_DATA, "no database '%s' (run 'abbench run' first or pass --db)", path);
		return ab_fail(d, AB_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	}
	struct store *st = calloc(1, sizeof *st);
	if (!st)
		return ab_fail(d, AB_ERR_NOMEM, "cannot open the database: out of memory");
	if ((size_t)snprintf(st->path, sizeof st->path, "%s", path) >= sizeof st->path) {
		free(st);
		return ab_fail(d, AB_ERR_USAGE, "database path too long '%.64s...'", path);
	}
	*out = st;
	return AB_OK;
}

static enum ab_rc reap_stale(struct store *st, struct ab_diag *d);
static void reap_stale_from_reader(struct store *st);

/* store_open, migrating up to schema version target only. */
static enum ab_rc open_to(const char *path, bool create, int target, struct store **out, struct ab_diag *d)
{
	struct store *st;
	int64_t version;
	*out = NULL;
	enum ab_rc rc = store_new(path, create, &st, d);
	if (rc)
		return rc;
	rc = connect(st, path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), d);
	if (!rc)
		rc = check_header_now(st, &version, NULL, d);
	if (!rc)
		rc = exec(st, "PRAGMA foreign_keys = ON", "enable foreign keys", d);
	if (!rc)
		rc = ensure_wal(st, d);
	if (!rc)
		rc = migrate(st, create, target, d);
	if (!rc && target == N_MIGRATIONS)
		rc = reap_stale(st, d); /* older schemas have no owner columns */
	if (rc) {
		store_close(st);
		return rc;
	}
	*out = st;
	return AB_OK;
}

/* "file:PATH?immutable=1" with PATH percent-encoded as URIs want. */
static bool immutable_uri(const char *path, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < len; p++) {
		if (isalnum(*p) || strchr("/._-~", *p))
			buf[n++] = (char)*p;
		else
			n += (size_t)snprintf(buf + n, len - n, "%%%02X", *p);
	}
	return n + sizeof "?immutable=1" <= len && snprintf(buf + n, len - n, "?immutable=1") > 0;
}

/* A WAL database that nobody has open and that sits where we cannot create
 * its -shm file (read-only media, a directory we may not write) cannot be
 * opened read-only in the ordinary way: SQLite then needs to be told that
 * the file is immutable. Nothing can be writing it, since a writer needs
 * that same -shm file. */
static bool needs_immutable(int src)
{
	return (src & 0xff) == SQLITE_CANTOPEN || (src & 0xff) == SQLITE_READONLY;
}

static enum ab_rc reconnect_immutable(struct store *st, struct ab_diag *d)
{
	char uri[3 * sizeof st->path + 32];
	if (!immutable_uri(st->path, uri, sizeof uri))
		return ab_fail(d, AB_ERR_USAGE, "database path too long '%.64s...'", st->path);
	disconnect(st);
	st->immutable = true;
	return connect(st, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, d);
}

static enum ab_rc check_readable(struct store *st, struct ab_diag *d)
{
	int64_t version = 0;
	int src;
	enum ab_rc rc = check_header_now(st, &version, &src, d);
	if (rc && !st->immutable && needs_immutable(src)) {
		rc = reconnect_immutable(st, d);
		if (!rc)
			rc = check_header_now(st, &version, NULL, d);
	}
	if (!rc && version == 0)
		rc = empty_database(st, d);
	if (!rc && version < N_MIGRATIONS)
		rc = ab_fail(d, AB_ERR_DATA,
			     "database '%s' has schema version %" PRId64 " and needs migrating to version %d, which a "
			     "reading command does not do: 'abbench run' or 'abbench baseline set' with this abbench "
			     "migrates it",
			     st->path, version, N_MIGRATIONS);
	return rc;
}

/* store_open_readonly, with (reap) or without the marking of stale runs. */
static enum ab_rc open_readonly(const char *path, bool reap, struct store **out, struct ab_diag *d)
{
	struct store *st;
	*out = NULL;
	enum ab_rc rc = store_new(path, false, &st, d);
	if (rc)
		return rc;
	st->read_only = true;
	rc = connect(st, path, SQLITE_OPEN_READONLY, d);
	if (!rc)
		rc = check_readable(st, d);
	if (rc) {
		store_close(st);
		return rc;
	}
	if (reap)
		reap_stale_from_reader(st);
	*out = st;
	return AB_OK;
}

enum ab_rc store_open_readonly(const char *path, struct store **out, struct ab_diag *d)
{
	return open_readonly(path, true, out, d);
}

bool store_is_read_only(const struct store *st)
{
	return st->read_only;
}

enum ab_rc store_open(const char *path, bool create, struct store **out, struct ab_diag *d)
{
	return open_to(path, create, N_MIGRATIONS, out, d);
}

enum ab_rc store_open_version(const char *path, int version, struct store **out, struct ab_diag *d)
{
	*out = NULL;
	if (version < 1 || version > N_MIGRATIONS)
		return ab_fail(d, AB_ERR_USAGE, "no schema version %d (1 to %d)", version, N_MIGRATIONS);
	return open_to(path, true, version, out, d);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st);
}

/* ---- devices and the run row ----------------------------------------- */

static void bind_device(struct bind *b, const struct results_device *dv)
{
	B_STR(b, dv->name);
	B_STR(b, dv->uuid);
	B_STR(b, dv->backend);
	b_i64(b, dv->cc_major);
	b_i64(b, dv->cc_minor);
	b_i64(b, dv->sm_count);
	b_i64(b, dv->l2_bytes);
	b_i64(b, dv->mem_bytes);
	B_STR(b, dv->driver_version);
	B_STR(b, dv->runtime_version);
	b_i64(b, dv->default_sm_mhz);
	b_real(b, isfinite(dv->copy_gbps) && dv->copy_gbps > 0 ? dv->copy_gbps : 0);
}

static void read_device(struct col *c, struct results_device *dv)
{
	C_STR(c, dv->name);
	C_STR(c, dv->uuid);
	C_STR(c, dv->backend);
	dv->cc_major = c_int(c);
	dv->cc_minor = c_int(c);
	dv->sm_count = c_int(c);
	dv->l2_bytes = c_i64(c);
	dv->mem_bytes = c_i64(c);
	C_STR(c, dv->driver_version);
	C_STR(c, dv->runtime_version);
	dv->default_sm_mhz = c_int(c);
	dv->copy_gbps = c_real(c);
}

/* Looks the device up by its identity; *id = 0 when absent. */
static enum ab_rc device_find(struct store *st, const struct results_device *dv, int64_t *id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = prepare_bind(st,
				     "SELECT id FROM devices WHERE uuid = ? AND name = ? AND backend = ?"
				     " AND driver_version = ? AND runtime_version = ?",
				     &b, d);
	if (rc)
		return rc;
	B_STR(&b, dv->uuid);
	B_STR(&b, dv->name);
	B_STR(&b, dv->backend);
	B_STR(&b, dv->driver_version);
	B_STR(&b, dv->runtime_version);
	int src = step_bound(&b);
	*id = src == SQLITE_ROW ? sqlite3_column_int64(b.s, 0) : 0;
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		rc = db_fail(st, d, "look up device '%s'", dv->name);
	sqlite3_finalize(b.s);
	return rc;
}

/* Caches a newly measured copy bandwidth on the device row. */
static enum ab_rc device_set_copy(struct store *st, int64_t id, double gbps, struct ab_diag *d)
{
	struct bind b;
	if (!(isfinite(gbps) && gbps > 0))
		return AB_OK;
	enum ab_rc rc = prepare_bind(st, "UPDATE devices SET copy_gbps = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_real(&b, gbps);
	b_i64(&b, id);
	return run_bound(st, &b, d, "update the copy bandwidth of device %" PRId64, id);
}

/* The existing row for this device (same uuid, name, backend, driver and
 * runtime), else a new one. */
static enum ab_rc device_upsert(struct store *st, const struct results_device *dv, int64_t *id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = device_find(st, dv, id, d);
	if (rc || *id)
		return rc ? rc : device_set_copy(st, *id, dv->copy_gbps, d);
	rc = prepare_bind(st, "INSERT INTO devices (" DEVICE_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", &b, d);
	if (rc)
		return rc;
	bind_device(&b, dv);
	rc = run_bound(st, &b, d, "insert device '%s'", dv->name);
	*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

static void bind_run(struct bind *b, const struct results_run *r, int64_t device_id)
{
	B_STR(b, r->started_at);
	if (r->finished_at[0]) /* a run copied by store_import_run */
		B_STR(b, r->finished_at);
	else
		b_null(b); /* set by store_finish_run / store_fail_run */
	B_STR(b, r->status);
	B_STR(b, r->error);
	B_STR(b, r->label);
	B_STR(b, r->scenario_name);
	B_STR(b, r->scenario_path);
	b_text(b, r->scenario_text);
	B_STR(b, r->scenario_hash);
	b_text(b, r->command_line);
	B_STR(b, r->git_commit);
	B_STR(b, r->host);
	B_STR(b, r->backend);
	B_STR(b, r->version);
	b_i64(b, r->quick);
	B_STR(b, r->bracket);
	B_STR(b, r->arm_a);
	B_STR(b, r->arm_b);
	b_i64(b, r->steps);
	b_i64(b, r->forwards_per_step);
	B_STR(b, r->launch_gaps);
	b_i64(b, r->l2_flush);
	B_STR(b, r->notes);
	B_STR(b, r->uuid);
	B_STR(b, r->run_set);
	b_i64(b, r->shard_index);
	b_i64(b, r->shard_count);
	b_i64(b, device_id);
	B_STR(b, r->only_cases);
	b_i64(b, r->fake_timer);
	b_i64(b, r->device_index);
	B_STR(b, r->noise_measure);
}

/* Returns the device_id column (only_cases follows it). */
static int64_t read_run(struct col *c, struct results_run *r, bool *ok)
{
	C_STR(c, r->started_at);
	C_STR(c, r->finished_at);
	C_STR(c, r->status);
	C_STR(c, r->error);
	C_STR(c, r->label);
	C_STR(c, r->scenario_name);
	C_STR(c, r->scenario_path);
	r->scenario_text = c_dup(c, ok);
	C_STR(c, r->scenario_hash);
	r->command_line = c_dup(c, ok);
	C_STR(c, r->git_commit);
	C_STR(c, r->host);
	C_STR(c, r->backend);
	C_STR(c, r->version);
	r->quick = c_bool(c);
	C_STR(c, r->bracket);
	C_STR(c, r->arm_a);
	C_STR(c, r->arm_b);
	r->steps = c_int(c);
	r->forwards_per_step = c_int(c);
	C_STR(c, r->launch_gaps);
	r->l2_flush = c_bool(c);
	C_STR(c, r->notes);
	C_STR(c, r->uuid);
	C_STR(c, r->run_set);
	r->shard_index = c_int(c);
	r->shard_count = c_int(c);
	int64_t device_id = c_i64(c);
	C_STR(c, r->only_cases);
	r->fake_timer = c_bool(c);
	r->device_index = c_int(c);
	C_STR(c, r->noise_measure);
	return device_id;
}

static enum ab_rc insert_run(struct store *st, const struct results_run *r, int64_t device_id, int64_t *id,
			     struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = prepare_bind(st,
				     "INSERT INTO runs (" RUN_COLS ") VALUES "
				     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
				     &b, d);
	if (rc)
		return rc;
	bind_run(&b, r, device_id);
	rc = run_bound(st, &b, d, "insert run of scenario '%s'", r->scenario_name);
	*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

/* Records this process as the run's owner (procid.h), so that another
 * command can tell when it is gone. */
static enum ab_rc claim_run(struct store *st, int64_t id, struct ab_diag *d)
{
	struct bind b;
	char process[PROCID_MAX];
	int64_t pid = (int64_t)getpid();
	procid_of(pid, process, sizeof process);
	enum ab_rc rc = prepare_bind(st, "UPDATE runs SET pid = ?, process = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, pid);
	b_text(&b, process);
	b_i64(&b, id);
	return run_bound(st, &b, d, "record the owner of run %" PRId64, id);
}

#define ARM_SOURCE_COLS "arm, name, kind, path, sha256, detail"

/* The user arms' provenance, written with the run row. */
static enum ab_rc insert_arm_sources(struct store *st, const struct results_run *r, int64_t id, struct ab_diag *d)
{
	enum ab_rc rc = AB_OK;
	for (int i = 0; !rc && i < r->n_arm_sources; i++) {
		const struct results_arm_source *a = &r->arm_sources[i];
		struct bind b;
		if ((rc = prepare_bind(st, "INSERT INTO run_arms (run_id, " ARM_SOURCE_COLS ") VALUES (?,?,?,?,?,?,?)", &b,
				       d)))
			break;
		b_i64(&b, id);
		b_char(&b, a->arm);
		B_STR(&b, a->name);
		B_STR(&b, a->kind);
		B_STR(&b, a->path);
		B_STR(&b, a->sha256);
		B_STR(&b, a->detail);
		rc = run_bound(st, &b, d, "insert the source of arm %c", a->arm);
	}
	return rc;
}

static enum ab_rc load_arm_sources(struct store *st, int64_t id, struct results_run *r, struct ab_diag *d)
{
	struct bind b;
	int src;
	enum ab_rc rc = prepare_bind(st, "SELECT " ARM_SOURCE_COLS " FROM run_arms WHERE run_id = ? ORDER BY arm", &b, d);
	if (rc)
		return rc;
	b_i64(&b, id);
	r->n_arm_sources = 0;
	while ((src = step_bound(&b)) == SQLITE_ROW && r->n_arm_sources < 2) {
		struct results_arm_source *a = &r->arm_sources[r->n_arm_sources++];
		struct col c = { b.s, 0 };
		const unsigned char *arm = sqlite3_column_text(b.s, c.i++);
		a->arm = arm ? (char)arm[0] : '?';
		C_STR(&c, a->name);
		C_STR(&c, a->kind);
		C_STR(&c, a->path);
		C_STR(&c, a->sha256);
		C_STR(&c, a->detail);
	}
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		rc = db_fail(st, d, "read the arm sources of run %" PRId64, id);
	sqlite3_finalize(b.s);
	return rc;
}

/* A random (version 4) UUID from SQLite's generator, which the OS seeds. */
static void new_uuid(char *buf, size_t len)
{
	unsigned char u[16];
	sqlite3_randomness(sizeof u, u);
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

enum ab_rc store_begin_run(struct store *st, struct results_run *r, struct ab_diag *d)
{
	int64_t device_id = 0, id = 0;
	if (!r->started_at[0])
		utc_now(r->started_at, sizeof r->started_at);
	new_uuid(r->uuid, sizeof r->uuid); /* a new run: a new identity */
	snprintf(r->status, sizeof r->status, "running");
	enum ab_rc rc = exec(st, "BEGIN IMMEDIATE", "begin the run", d);
	if (!rc)
		rc = device_upsert(st, &r->device, &device_id, d);
	if (!rc)
		rc = insert_run(st, r, device_id, &id, d);
	if (!rc)
		rc = insert_arm_sources(st, r, id, d);
	if (!rc)
		rc = claim_run(st, id, d);
	if (!rc)
		rc = exec(st, "COMMIT", "commit the new run", d);
	if (rc) {
		rollback(st);
		return rc;
	}
	r->id = id;
	return AB_OK;
}

/* ---- finishing a run: every result in one transaction ---------------- */

/* The writer's statements, prepared once per run and indexed by W_*. */
enum { W_CASE, W_SLOT, W_SAMPLE, W_KERNEL, W_OUTPUT, W_N };

static const char *const writer_sql[W_N] = {
	[W_CASE] = "INSERT INTO cases (run_id, ordinal, " CASE_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[W_SLOT] = "INSERT INTO slots (case_id, " SLOT_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?"
		   ",?,?,?,?,?,?,?,?,?,?,?)",
	[W_SAMPLE] = "INSERT INTO samples (slot_id, idx, wall_ns, kernel_ns) VALUES (?,?,?,?)",
	[W_KERNEL] = "INSERT INTO kernel_times (slot_id, " KERNEL_COLS ") VALUES (?,?,?,?,?,?,?)",
	[W_OUTPUT] = "INSERT INTO outputs (slot_id, idx, " OUTPUT_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?)",
};

struct writer {
	struct store *st;
	sqlite3_stmt *s[W_N];
};

static void bind_case(struct bind *b, const struct results_case *c)
{
	B_STR(b, c->name);
	B_STR(b, c->site);
	B_STR(b, c->shape);
	B_STR(b, c->dtype);
	b_real(b, c->eps);
	b_i64(b, c->affine);
	b_i64(b, c->count);
	B_STR(b, c->input);
	B_STR(b, c->sweep);
	B_STR(b, c->axis);
	b_i64(b, c->axis_value);
	b_i64(b, c->bytes_min);
	b_i64(b, c->bytes_a);
	b_i64(b, c->bytes_b);
}

static void read_case(struct col *c, struct results_case *k)
{
	k->ordinal = c_int(c);
	C_STR(c, k->name);
	C_STR(c, k->site);
	C_STR(c, k->shape);
	C_STR(c, k->dtype);
	k->eps = c_real(c);
	k->affine = c_bool(c);
	k->count = c_int(c);
	C_STR(c, k->input);
	C_STR(c, k->sweep);
	C_STR(c, k->axis);
	k->axis_value = c_i64(c);
	k->bytes_min = c_i64(c);
	k->bytes_a = c_i64(c);
	k->bytes_b = c_i64(c);
}

static void bind_clocks(struct bind *b, const struct results_clocks *k)
{
	b_i64(b, k->valid);
	b_i64(b, k->sm_mhz);
	b_i64(b, k->mem_mhz);
	b_i64(b, (int64_t)k->throttle_reasons); /* the bit pattern, as SQLite has no unsigned */
	b_i64(b, k->temp_c);
}

static void read_clocks(struct col *c, struct results_clocks *k)
{
	k->valid = c_bool(c);
	k->sm_mhz = c_int(c);
	k->mem_mhz = c_int(c);
	k->throttle_reasons = (uint64_t)c_i64(c);
	k->temp_c = c_int(c);
}

static void bind_slot(struct bind *b, const struct results_slot *s)
{
	b_i64(b, s->position);
	B_STR(b, s->label);
	b_char(b, s->arm);
	B_STR(b, s->variant);
	b_i64(b, s->warmup);
	b_i64(b, s->n_samples);
	b_i64(b, s->n_discarded);
	B_STR(b, s->stopping_reason);
	b_real(b, s->elapsed_s);
	b_real(b, s->median_ns);
	b_real(b, s->p10_ns);
	b_real(b, s->p90_ns);
	b_real(b, s->min_ns);
	b_real(b, s->max_ns);
	b_real(b, s->mean_ns);
	b_real(b, s->noise);
	b_real(b, s->kernel_median_ns);
	b_i64(b, s->kernel_records_bad);
	bind_clocks(b, &s->clocks_before);
	bind_clocks(b, &s->clocks_after);
}

static void read_slot(struct col *c, struct results_slot *s)
{
	char arm[2];
	s->position = c_int(c);
	C_STR(c, s->label);
	C_STR(c, arm);
	s->arm = arm[0];
	C_STR(c, s->variant);
	s->warmup = c_int(c);
	s->n_samples = c_int(c);
	s->n_discarded = c_int(c);
	C_STR(c, s->stopping_reason);
	s->elapsed_s = c_real(c);
	s->median_ns = c_real(c);
	s->p10_ns = c_real(c);
	s->p90_ns = c_real(c);
	s->min_ns = c_real(c);
	s->max_ns = c_real(c);
	s->mean_ns = c_real(c);
	s->noise = c_real(c);
	s->kernel_median_ns = c_real(c);
	s->kernel_records_bad = c_i64(c);
	read_clocks(c, &s->clocks_before);
	read_clocks(c, &s->clocks_after);
}

static void bind_kernel(struct bind *b, const struct results_kernel *k)
{
	B_STR(b, k->name);
	B_STR(b, k->family);
	b_i64(b, k->launches);
	b_real(b, k->total_ns);
	b_real(b, k->min_ns);
	b_real(b, k->max_ns);
}

static void read_kernel(struct col *c, struct results_kernel *k)
{
	C_STR(c, k->name);
	C_STR(c, k->family);
	k->launches = c_i64(c);
	k->total_ns = c_real(c);
	k->min_ns = c_real(c);
	k->max_ns = c_real(c);
}

static void bind_output(struct bind *b, const struct results_output *o)
{
	B_STR(b, o->tensor);
	B_STR(b, o->md5);
	b_i64(b, o->bytes);
	b_i64(b, o->bit_exact);
	b_i64(b, o->mismatches);
	b_real(b, o->max_abs_err);
	b_real(b, o->max_err_ratio);
	b_i64(b, o->ref_ok);
	b_i64(b, o->ref_skipped);
}

static void read_output(struct col *c, struct results_output *o)
{
	C_STR(c, o->tensor);
	C_STR(c, o->md5);
	o->bytes = c_i64(c);
	o->bit_exact = c_bool(c);
	o->mismatches = c_i64(c);
	o->max_abs_err = c_real(c);
	o->max_err_ratio = c_real(c);
	o->ref_ok = c_bool(c);
	o->ref_skipped = c_i64(c);
}

static enum ab_rc write_samples(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				struct ab_diag *d)
{
	if (s->n_samples > 0 && !s->samples_ns)
		return ab_fail(d, AB_ERR_INTERNAL, "slot '%s' of case '%s' has %d samples and no array", s->label,
			       cname, s->n_samples);
	for (int i = 0; i < s->n_samples; i++) {
		struct bind b = bind_start(w->s[W_SAMPLE]);
		b_i64(&b, slot_id);
		b_i64(&b, i);
		b_real(&b, s->samples_ns[i]);
		b_real(&b, s->kernel_ns ? s->kernel_ns[i] : NAN);
		enum ab_rc rc = run_bound(w->st, &b, d, "insert sample %d of slot '%s' of case '%s'", i, s->label,
					  cname);
		if (rc)
			return rc;
	}
	return AB_OK;
}

static enum ab_rc write_kernels(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				struct ab_diag *d)
{
	for (int i = 0; i < s->n_kernels; i++) {
		struct bind b = bind_start(w->s[W_KERNEL]);
		b_i64(&b, slot_id);
		bind_kernel(&b, &s->kernels[i]);
		enum ab_rc rc = run_bound(w->st, &b, d, "insert kernel '%.80s' of slot '%s' of case '%s'",
					  s->kernels[i].name, s->label, cname);
		if (rc)
			return rc;
	}
	return AB_OK;
}

static enum ab_rc write_outputs(struct writer *w, int64_t slot_id, const struct results_slot *s, const char *cname,
				struct ab_diag *d)
{
	if (s->n_outputs < 0 || s->n_outputs > RESULTS_MAX_OUTPUTS)
		return ab_fail(d, AB_ERR_INTERNAL, "slot '%s' of case '%s' has %d outputs", s->label, cname,
			       s->n_outputs);
	for (int i = 0; i < s->n_outputs; i++) {
		struct bind b = bind_start(w->s[W_OUTPUT]);
		b_i64(&b, slot_id);
		b_i64(&b, i);
		bind_output(&b, &s->outputs[i]);
		enum ab_rc rc = run_bound(w->st, &b, d, "insert output '%s' of slot '%s' of case '%s'",
					  s->outputs[i].tensor, s->label, cname);
		if (rc)
			return rc;
	}
	return AB_OK;
}

static enum ab_rc write_slot(struct writer *w, int64_t case_id, const struct results_case *c, const struct results_slot *s,
			     struct ab_diag *d)
{
	struct bind b = bind_start(w->s[W_SLOT]);
	b_i64(&b, case_id);
	bind_slot(&b, s);
	enum ab_rc rc = run_bound(w->st, &b, d, "insert slot '%s' of case '%s'", s->label, c->name);
	int64_t slot_id = sqlite3_last_insert_rowid(w->st->db);
	if (!rc)
		rc = write_samples(w, slot_id, s, c->name, d);
	if (!rc)
		rc = write_kernels(w, slot_id, s, c->name, d);
	if (!rc)
		rc = write_outputs(w, slot_id, s, c->name, d);
	return rc;
}

static enum ab_rc write_case(struct writer *w, int64_t run_id, const struct results_case *c, struct ab_diag *d)
{
	struct bind b = bind_start(w->s[W_CASE]);
	b_i64(&b, run_id);
	b_i64(&b, c->ordinal);
	bind_case(&b, c);
	enum ab_rc rc = run_bound(w->st, &b, d, "insert case '%s'", c->name);
	int64_t case_id = sqlite3_last_insert_rowid(w->st->db);
	for (int i = 0; !rc && i < c->n_slots; i++)
		rc = write_slot(w, case_id, c, &c->slots[i], d);
	return rc;
}

/* The run must exist and still be 'running': results are written once. */
static enum ab_rc check_running(struct store *st, int64_t id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = prepare_bind(st, "SELECT status FROM runs WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, id);
	int src = step_bound(&b);
	if (src == SQLITE_DONE)
		rc = ab_fail(d, AB_ERR_DATA, "no run %" PRId64 " in '%s'", id, st->path);
	else if (src != SQLITE_ROW)
		rc = db_fail(st, d, "read the status of run %" PRId64, id);
	else if (strcmp((const char *)sqlite3_column_text(b.s, 0), "running") != 0)
		rc = ab_fail(d, AB_ERR_DATA, "run %" PRId64 " is already '%s'", id,
			     (const char *)sqlite3_column_text(b.s, 0));
	sqlite3_finalize(b.s);
	return rc;
}

static enum ab_rc mark_ok(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	struct bind b;
	char now[32];
	enum ab_rc rc = prepare_bind(st, "UPDATE runs SET status = 'ok', finished_at = ?, notes = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	utc_now(now, sizeof now);
	if (r->finished_at[0])
		B_STR(&b, r->finished_at);
	else
		b_text(&b, now);
	B_STR(&b, r->notes);
	b_i64(&b, r->id);
	return run_bound(st, &b, d, "mark run %" PRId64 " 'ok'", r->id);
}

/* The copy bandwidth may have been measured after store_begin_run. */
static enum ab_rc update_run_device(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	int64_t device_id = 0;
	enum ab_rc rc = device_find(st, &r->device, &device_id, d);
	if (rc || !device_id)
		return rc;
	return device_set_copy(st, device_id, r->device.copy_gbps, d);
}

/* Every case of r (slots, samples, kernels, outputs) under run run_id. */
static enum ab_rc write_cases(struct store *st, const struct results_run *r, int64_t run_id, struct ab_diag *d)
{
	struct writer w = { .st = st };
	enum ab_rc rc = prepare_all(st, writer_sql, w.s, W_N, d);
	for (int i = 0; !rc && i < r->n_cases; i++)
		rc = write_case(&w, run_id, &r->cases[i], d);
	finalize_all(w.s, W_N);
	return rc;
}

enum ab_rc store_finish_run(struct store *st, const struct results_run *r, struct ab_diag *d)
{
	enum ab_rc rc = exec(st, "BEGIN IMMEDIATE", "begin writing the results", d);
	if (!rc)
		rc = check_running(st, r->id, d);
	if (!rc)
		rc = write_cases(st, r, r->id, d);
	if (!rc)
		rc = mark_ok(st, r, d);
	if (!rc)
		rc = update_run_device(st, r, d);
	if (!rc)
		rc = exec(st, "COMMIT", "commit the results", d);
	if (rc)
		rollback(st);
	return rc;
}

/* Sets a run that is still 'running' to status ('failed', 'interrupted')
 * with its error text and finish time. */
static enum ab_rc mark_ended(struct store *st, int64_t id, const char *status, const char *error, struct ab_diag *d)
{
	struct bind b;
	char now[32];
	enum ab_rc rc = prepare_bind(st, "UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?", &b, d);
	if (rc)
		return rc;
	utc_now(now, sizeof now);
	b_text(&b, status);
	b_text(&b, error ? error : "");
	b_text(&b, now);
	b_i64(&b, id);
	return run_bound(st, &b, d, "mark run %" PRId64 " '%s'", id, status);
}

/* Results of a run that did not finish never stay (the cascade removes
 * slots and below). */
static enum ab_rc drop_cases(struct store *st, int64_t id, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = prepare_bind(st, "DELETE FROM cases WHERE run_id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, id);
	return run_bound(st, &b, d, "delete the results of run %" PRId64, id);
}

/* Inside the caller's transaction: a 'running' run ends with status and
 * error, and keeps no results. */
static enum ab_rc end_run(struct store *st, int64_t run_id, const char *status, const char *error, struct ab_diag *d)
{
	enum ab_rc rc = check_running(st, run_id, d);
	if (!rc)
		rc = drop_cases(st, run_id, d);
	if (!rc)
		rc = mark_ended(st, run_id, status, error, d);
	return rc;
}

static enum ab_rc end_run_now(struct store *st, int64_t run_id, const char *status, const char *error,
			      struct ab_diag *d)
{
	enum ab_rc rc = exec(st, "BEGIN IMMEDIATE", "begin ending the run", d);
	if (!rc)
		rc = end_run(st, run_id, status, error, d);
	if (!rc)
		rc = exec(st, "COMMIT", "commit the end of the run", d);
	if (rc)
		rollback(st);
	return rc;
}

enum ab_rc store_fail_run(struct store *st, int64_t run_id, const char *error, struct ab_diag *d)
{
	return end_run_now(st, run_id, "failed", error, d);
}

enum ab_rc store_interrupt_run(struct store *st, int64_t run_id, const char *why, struct ab_diag *d)
{
	return end_run_now(st, run_id, "interrupted", why, d);
}

/* ---- runs whose process is gone --------------------------------------- */

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
	enum ab_rc rc = prepare(st, "SELECT id, host, pid, process FROM runs WHERE status = 'running'", &s, d);
	while (!rc && (src = sqlite3_step(s)) == SQLITE_ROW) {
		struct col c = { s, 0 };
		struct stale e;
		char process[PROCID_MAX];
		e.id = c_i64(&c);
		C_STR(&c, e.host);
		e.pid = c_i64(&c);
		C_STR(&c, process);
		if (procid_state(e.host, e.pid, process) != PROCID_GONE)
			continue;
		struct stale *q = grow(*out, *n, &cap, sizeof **out);
		if (!q)
			rc = nomem(d, "list the runs left running");
		else
			(*out = q)[(*n)++] = e;
	}
	if (!rc && src != SQLITE_DONE)
		rc = db_fail(st, d, "list the runs left running in '%s'", st->path);
	sqlite3_finalize(s);
	return rc;
}

/* In one transaction: each run of the list that is still 'running' becomes
 * 'interrupted', saying whose process went away. */
static enum ab_rc mark_stale(struct store *st, const struct stale *v, int n, struct ab_diag *d)
{
	char why[300], now[32];
	utc_now(now, sizeof now);
	enum ab_rc rc = exec(st, "BEGIN IMMEDIATE", "begin marking interrupted runs", d);
	for (int i = 0; !rc && i < n; i++) {
		snprintf(why, sizeof why, "interrupted: process %" PRId64 " on '%.100s' ended without finishing the run "
			 "(found %s)", v[i].pid, v[i].host, now);
		rc = end_run(st, v[i].id, "interrupted", why, d);
		if (rc == AB_ERR_DATA) /* it ended meanwhile */
			rc = AB_OK;
	}
	if (!rc)
		rc = exec(st, "COMMIT", "commit the interrupted runs", d);
	if (rc)
		rollback(st);
	return rc;
}

static enum ab_rc reap_stale(struct store *st, struct ab_diag *d)
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
static void reap_stale_from_reader(struct store *st)
{
	struct stale *v = NULL;
	int n = 0;
	struct store w = { .read_only = false };
	if (st->immutable || find_stale(st, &v, &n, NULL) || !n) {
		free(v);
		return;
	}
	snprintf(w.path, sizeof w.path, "%s", st->path);
	if (!connect(&w, st->path, SQLITE_OPEN_READWRITE, NULL) && !exec(&w, "PRAGMA foreign_keys = ON", "", NULL))
		mark_stale(&w, v, n, NULL);
	disconnect(&w);
	free(v);
}

/* ---- listing and resolving runs -------------------------------------- */

/* Every row of sql (no parameters) read by read_row into a malloc'd array
 * of size-byte elements; nothing on failure. what ("list runs") names the
 * work in the messages. */
static enum ab_rc list_rows_of(struct store *st, const char *sql, const char *param, size_t size,
			       void (*read_row)(struct col *, void *), void **out, int *n, const char *what,
			       struct ab_diag *d)
{
	sqlite3_stmt *s;
	void *v = NULL;
	int cap = 0, src;
	*out = NULL;
	*n = 0;
	enum ab_rc rc = prepare(st, sql, &s, d);
	if (rc)
		return rc;
	if (param && sqlite3_bind_text(s, 1, param, -1, SQLITE_STATIC) != SQLITE_OK) {
		rc = db_fail(st, d, "%s of '%s'", what, st->path);
		sqlite3_finalize(s);
		return rc;
	}
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
		void *q = grow(v, *n, &cap, size);
		if (!q) {
			rc = nomem(d, what);
			break;
		}
		v = q;
		struct col c = { s, 0 };
		read_row(&c, (char *)v + (size_t)(*n)++ * size);
	}
	if (!rc && src != SQLITE_DONE)
		rc = db_fail(st, d, "%s of '%s'", what, st->path);
	sqlite3_finalize(s);
	if (rc) {
		free(v);
		*n = 0;
		return rc;
	}
	*out = v;
	return AB_OK;
}

static enum ab_rc list_rows(struct store *st, const char *sql, size_t size, void (*read_row)(struct col *, void *),
			    void **out, int *n, const char *what, struct ab_diag *d)
{
	return list_rows_of(st, sql, NULL, size, read_row, out, n, what, d);
}

static void read_summary(struct col *c, void *p)
{
	struct results_run_summary *m = p;
	m->id = c_i64(c);
	C_STR(c, m->started_at);
	C_STR(c, m->status);
	C_STR(c, m->label);
	C_STR(c, m->scenario_name);
	C_STR(c, m->backend);
	C_STR(c, m->device);
	m->n_cases = c_int(c);
	C_STR(c, m->git_commit);
	m->quick = c_bool(c);
	C_STR(c, m->only_cases);
	m->fake_timer = c_bool(c);
}

enum ab_rc store_list_runs(struct store *st, struct results_run_summary **out, int *n, struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = list_rows(st,
				  "SELECT r.id, r.started_at, r.status, r.label, r.scenario_name, r.backend, dv.name,"
				  " (SELECT count(*) FROM cases c WHERE c.run_id = r.id),"
				  " r.git_commit, r.quick, r.only_cases, r.fake_timer"
				  " FROM runs r JOIN devices dv ON dv.id = r.device_id"
				  " ORDER BY r.started_at DESC, r.id DESC",
				  sizeof **out, read_summary, &v, n, "list runs", d);
	*out = v;
	return rc;
}

/* One id from a query with at most one text or integer parameter. */
static enum ab_rc query_id(struct store *st, const char *sql, const char *text, int64_t num, int64_t *id,
			   bool *found, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = prepare_bind(st, sql, &b, d);
	if (rc)
		return rc;
	if (text)
		b_text(&b, text);
	else if (sqlite3_bind_parameter_count(b.s) > 0)
		b_i64(&b, num);
	int src = step_bound(&b);
	*found = src == SQLITE_ROW;
	if (*found)
		*id = sqlite3_column_int64(b.s, 0);
	else if (src != SQLITE_DONE)
		rc = db_fail(st, d, "look up a run in '%s'", st->path);
	sqlite3_finalize(b.s);
	return rc;
}

/* A run id written in decimal, nothing else around it. */
static bool parse_id(const char *spec, int64_t *id)
{
	char *end;
	if (*spec < '0' || *spec > '9')
		return false;
	errno = 0;
	long long v = strtoll(spec, &end, 10);
	if (errno || *end || v <= 0)
		return false;
	*id = v;
	return true;
}

enum ab_rc store_resolve_run(struct store *st, const char *spec, int64_t *id, struct ab_diag *d)
{
	bool found = false;
	int64_t num = 0;
	enum ab_rc rc;
	if (store_set_spec(spec))
		return ab_fail(d, AB_ERR_USAGE, "'%s' names a run set; this takes one run", spec);
	if (!spec || strcmp(spec, "last") == 0)
		rc = query_id(st,
			      "SELECT id FROM runs WHERE status <> 'running' ORDER BY started_at DESC, id DESC LIMIT 1",
			      NULL, 0, id, &found, d);
	else if (parse_id(spec, &num))
		rc = query_id(st, "SELECT id FROM runs WHERE id = ?", NULL, num, id, &found, d);
	else
		rc = query_id(st,
			      "SELECT id FROM runs WHERE label = ? AND status <> 'running'"
			      " ORDER BY started_at DESC, id DESC LIMIT 1",
			      spec, 0, id, &found, d);
	if (!rc && !found)
		rc = ab_fail(d, AB_ERR_DATA, "no run '%s' in '%s'", spec ? spec : "last", st->path);
	return rc;
}

/* ---- loading a run back ---------------------------------------------- */

/* The loader's child queries, one parameter each (the parent's id), indexed by L_*. */
enum { L_CASES, L_SLOTS, L_SAMPLES, L_KERNELS, L_OUTPUTS, L_N };

static const char *const loader_sql[L_N] = {
	[L_CASES] = "SELECT id, ordinal, " CASE_COLS " FROM cases WHERE run_id = ? ORDER BY ordinal",
	[L_SLOTS] = "SELECT id, " SLOT_COLS " FROM slots WHERE case_id = ? ORDER BY position",
	[L_SAMPLES] = "SELECT idx, wall_ns, kernel_ns FROM samples WHERE slot_id = ? ORDER BY idx",
	[L_KERNELS] = "SELECT " KERNEL_COLS " FROM kernel_times WHERE slot_id = ? ORDER BY total_ns DESC, id",
	[L_OUTPUTS] = "SELECT " OUTPUT_COLS " FROM outputs WHERE slot_id = ? ORDER BY idx",
};

struct loader {
	struct store *st;
	sqlite3_stmt *s[L_N];
};

/* Binds the parent id of a child query (always parameter 1). */
static enum ab_rc bind_parent(struct loader *L, sqlite3_stmt *s, int64_t id, struct ab_diag *d)
{
	sqlite3_reset(s);
	if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK)
		return db_fail(L->st, d, "bind id %" PRId64, id);
	return AB_OK;
}

/* Samples are stored one row per index 0..n_samples-1; anything else
 * means the file was edited or damaged. */
static enum ab_rc load_samples(struct loader *L, int64_t slot_id, struct results_slot *s, const char *cname,
			       struct ab_diag *d)
{
	int n = 0, src = SQLITE_DONE;
	if (s->n_samples <= 0)
		return AB_OK;
	s->samples_ns = malloc((size_t)s->n_samples * sizeof *s->samples_ns);
	s->kernel_ns = malloc((size_t)s->n_samples * sizeof *s->kernel_ns);
	if (!s->samples_ns || !s->kernel_ns)
		return nomem(d, "load samples");
	enum ab_rc rc = bind_parent(L, L->s[L_SAMPLES], slot_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_SAMPLES])) == SQLITE_ROW) {
		struct col c = { L->s[L_SAMPLES], 0 };
		if (c_i64(&c) != n || n >= s->n_samples)
			break;
		s->samples_ns[n] = c_real(&c);
		s->kernel_ns[n++] = c_real(&c);
	}
	if (!rc && src != SQLITE_DONE && src != SQLITE_ROW)
		rc = db_fail(L->st, d, "read samples of slot '%s' of case '%s'", s->label, cname);
	else if (!rc && (src == SQLITE_ROW || n != s->n_samples))
		rc = ab_fail(d, AB_ERR_DATA, "slot '%s' of case '%s' in '%s' should have %d samples 0..%d, has others",
			     s->label, cname, L->st->path, s->n_samples, s->n_samples - 1);
	sqlite3_reset(L->s[L_SAMPLES]);
	return rc;
}

static enum ab_rc load_kernels(struct loader *L, int64_t slot_id, struct results_slot *s, const char *cname,
			       struct ab_diag *d)
{
	int cap = 0, src = SQLITE_DONE;
	enum ab_rc rc = bind_parent(L, L->s[L_KERNELS], slot_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_KERNELS])) == SQLITE_ROW) {
		void *q = grow(s->kernels, s->n_kernels, &cap, sizeof *s->kernels);
		if (!q)
			rc = nomem(d, "load kernel times");
		else {
			s->kernels = q;
			struct col c = { L->s[L_KERNELS], 0 };
			read_kernel(&c, &s->kernels[s->n_kernels++]);
		}
	}
	if (!rc && src != SQLITE_DONE)
		rc = db_fail(L->st, d, "read kernel times of slot '%s' of case '%s'", s->label, cname);
	sqlite3_reset(L->s[L_KERNELS]);
	return rc;
}

static enum ab_rc load_outputs(struct loader *L, int64_t slot_id, struct results_slot *s, const char *cname,
			       struct ab_diag *d)
{
	int src = SQLITE_DONE;
	enum ab_rc rc = bind_parent(L, L->s[L_OUTPUTS], slot_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_OUTPUTS])) == SQLITE_ROW) {
		if (s->n_outputs == RESULTS_MAX_OUTPUTS) {
			rc = ab_fail(d, AB_ERR_DATA, "slot '%s' of case '%s' in '%s' has more than %d outputs", s->label,
				     cname, L->st->path, RESULTS_MAX_OUTPUTS);
			break;
		}
		struct col c = { L->s[L_OUTPUTS], 0 };
		read_output(&c, &s->outputs[s->n_outputs++]);
	}
	if (!rc && src != SQLITE_DONE)
		rc = db_fail(L->st, d, "read outputs of slot '%s' of case '%s'", s->label, cname);
	sqlite3_reset(L->s[L_OUTPUTS]);
	return rc;
}

static enum ab_rc load_slot_children(struct loader *L, int64_t slot_id, struct results_slot *s, const char *cname,
				     struct ab_diag *d)
{
	enum ab_rc rc = load_samples(L, slot_id, s, cname, d);
	if (!rc)
		rc = load_kernels(L, slot_id, s, cname, d);
	if (!rc)
		rc = load_outputs(L, slot_id, s, cname, d);
	return rc;
}

static enum ab_rc load_slots(struct loader *L, int64_t case_id, struct results_case *k, struct ab_diag *d)
{
	int cap = 0, src = SQLITE_DONE;
	enum ab_rc rc = bind_parent(L, L->s[L_SLOTS], case_id, d);
	while (!rc && (src = sqlite3_step(L->s[L_SLOTS])) == SQLITE_ROW) {
		void *q = grow(k->slots, k->n_slots, &cap, sizeof *k->slots);
		if (!q) {
			rc = nomem(d, "load slots");
			break;
		}
		k->slots = q;
		struct results_slot *s = &k->slots[k->n_slots++];
		memset(s, 0, sizeof *s);
		struct col c = { L->s[L_SLOTS], 0 };
		int64_t slot_id = c_i64(&c);
		read_slot(&c, s);
		rc = load_slot_children(L, slot_id, s, k->name, d);
	}
	if (!rc && src != SQLITE_DONE)
		rc = db_fail(L->st, d, "read slots of case '%s'", k->name);
	sqlite3_reset(L->s[L_SLOTS]);
	return rc;
}

static enum ab_rc load_cases(struct loader *L, struct results_run *r, struct ab_diag *d)
{
	int cap = 0, src = SQLITE_DONE;
	enum ab_rc rc = bind_parent(L, L->s[L_CASES], r->id, d);
	while (!rc && (src = sqlite3_step(L->s[L_CASES])) == SQLITE_ROW) {
		void *q = grow(r->cases, r->n_cases, &cap, sizeof *r->cases);
		if (!q) {
			rc = nomem(d, "load cases");
			break;
		}
		r->cases = q;
		struct results_case *k = &r->cases[r->n_cases++];
		memset(k, 0, sizeof *k);
		struct col c = { L->s[L_CASES], 0 };
		int64_t case_id = c_i64(&c);
		read_case(&c, k);
		rc = load_slots(L, case_id, k, d);
	}
	if (!rc && src != SQLITE_DONE)
		rc = db_fail(L->st, d, "read cases of run %" PRId64, r->id);
	sqlite3_reset(L->s[L_CASES]);
	return rc;
}

static enum ab_rc load_device(struct store *st, int64_t device_id, struct results_device *dv, struct ab_diag *d)
{
	struct bind b;
	enum ab_rc rc = prepare_bind(st, "SELECT " DEVICE_COLS " FROM devices WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, device_id);
	int src = step_bound(&b);
	if (src == SQLITE_ROW) {
		struct col c = { b.s, 0 };
		read_device(&c, dv);
	} else if (src == SQLITE_DONE) {
		rc = ab_fail(d, AB_ERR_DATA, "no device %" PRId64 " in '%s'", device_id, st->path);
	} else {
		rc = db_fail(st, d, "read device %" PRId64, device_id);
	}
	sqlite3_finalize(b.s);
	return rc;
}

static enum ab_rc load_header(struct store *st, int64_t id, struct results_run *r, struct ab_diag *d)
{
	struct bind b;
	int64_t device_id = 0;
	bool ok = true;
	enum ab_rc rc = prepare_bind(st, "SELECT id, " RUN_COLS " FROM runs WHERE id = ?", &b, d);
	if (rc)
		return rc;
	b_i64(&b, id);
	int src = step_bound(&b);
	if (src == SQLITE_ROW) {
		struct col c = { b.s, 0 };
		r->id = c_i64(&c);
		device_id = read_run(&c, r, &ok);
		if (!ok)
			rc = nomem(d, "load the run");
	} else if (src == SQLITE_DONE) {
		rc = ab_fail(d, AB_ERR_DATA, "no run '%" PRId64 "' in '%s'", id, st->path);
	} else {
		rc = db_fail(st, d, "read run %" PRId64, id);
	}
	sqlite3_finalize(b.s);
	if (!rc)
		rc = load_device(st, device_id, &r->device, d);
	if (!rc)
		rc = load_arm_sources(st, id, r, d);
	return rc;
}

/* One read transaction, so that the run is read from one snapshot (or
 * the caller's transaction: a merge reads what it wrote). */
enum ab_rc store_load_run(struct store *st, int64_t id, struct results_run **out, struct ab_diag *d)
{
	struct loader L = { .st = st };
	bool own = sqlite3_get_autocommit(st->db) != 0;
	*out = NULL;
	struct results_run *r = calloc(1, sizeof *r);
	if (!r)
		return nomem(d, "load the run");
	enum ab_rc rc = own ? exec(st, "BEGIN", "begin reading the run", d) : AB_OK;
	if (!rc)
		rc = load_header(st, id, r, d);
	if (!rc)
		rc = prepare_all(st, loader_sql, L.s, L_N, d);
	if (!rc)
		rc = load_cases(&L, r, d);
	finalize_all(L.s, L_N);
	if (own)
		rollback(st); /* read only: nothing to commit */
	if (rc) {
		results_run_free(r);
		return rc;
	}
	*out = r;
	return AB_OK;
}

enum ab_rc store_resolve_load(struct store *st, const char *spec, struct results_run **out, struct ab_diag *d)
{
	int64_t id;
	*out = NULL;
	const char *set = store_set_spec(spec);
	if (set)
		return runset_load(st, set, out, d);
	enum ab_rc rc = store_resolve_run(st, spec, &id, d);
	return rc ? rc : store_load_run(st, id, out, d);
}

enum ab_rc store_load_spec(const char *db_path, const char *spec, struct results_run **out, struct ab_diag *d)
{
	struct store *st;
	*out = NULL;
	enum ab_rc rc = store_open_readonly(db_path, &st, d);
	if (rc)
		return rc;
	rc = store_resolve_load(st, spec, out, d);
	store_close(st);
	return rc;
}

/* ---- baselines and the device cache ---------------------------------- */

static enum ab_rc run_exists(struct store *st, int64_t run_id, struct ab_diag *d)
{
	bool found = false;
	int64_t id;
	enum ab_rc rc = query_id(st, "SELECT id FROM runs WHERE id = ?", NULL, run_id, &id, &found, d);
	if (!rc && !found)
		rc = ab_fail(d, AB_ERR_DATA, "no run '%" PRId64 "' in '%s'", run_id, st->path);
	return rc;
}

enum ab_rc store_check_label(const char *label, struct ab_diag *d)
{
	size_t max = sizeof ((struct results_run *)0)->label - 1, n = strlen(label);
	if (n > max)
		return ab_fail(d, AB_ERR_USAGE, "label '%.40s...' is %zu characters long, more than %zu", label, n, max);
	if (n && (strspn(label, "0123456789") == n || !strcmp(label, "last") || store_set_spec(label)))
		return ab_fail(d, AB_ERR_USAGE, "label '%s' would read as a run (an id, 'last' or 'set:ID'): choose another",
			       label);
	for (const unsigned char *p = (const unsigned char *)label; *p; p++)
		if (*p < 0x20 || *p == 0x7F)
			return ab_fail(d, AB_ERR_USAGE, "label '%s' holds a control character", label);
	return AB_OK;
}

/* A baseline name must not read as a run spec (store_resolve_run): not a
 * run id, not 'last', not a label in use; and it must fit. */
static enum ab_rc check_baseline_name(struct store *st, const char *name, struct ab_diag *d)
{
	size_t max = sizeof ((struct store_baseline *)0)->name - 1;
	bool found = false;
	int64_t id;
	if (!*name || strlen(name) > max)
		return ab_fail(d, AB_ERR_USAGE, "baseline name '%.80s' must be 1 to %zu characters", name, max);
	if (strspn(name, "0123456789") == strlen(name) || !strcmp(name, "last") || store_set_spec(name))
		return ab_fail(d, AB_ERR_USAGE,
			       "baseline name '%s' would read as a run (an id, 'last' or 'set:ID'): choose another", name);
	enum ab_rc rc = query_id(st, "SELECT id FROM runs WHERE label = ? LIMIT 1", name, 0, &id, &found, d);
	if (!rc && found)
		rc = ab_fail(d, AB_ERR_USAGE, "baseline name '%s' is the label of run %" PRId64 ": choose another", name,
			     id);
	return rc;
}

/* Points name at run_id, or at run_set when it is not '' (run_id is then
 * one of its runs, for the cascade); set_at NULL: now. */
static enum ab_rc baseline_point(struct store *st, const char *name, int64_t run_id, const char *run_set,
				 const char *set_at, struct ab_diag *d)
{
	struct bind b;
	char now[32];
	enum ab_rc rc = run_exists(st, run_id, d);
	if (!rc)
		rc = prepare_bind(st,
				  "INSERT OR REPLACE INTO baselines (name, run_id, set_at, run_set) VALUES (?, ?, ?, ?)",
				  &b, d);
	if (rc)
		return rc;
	utc_now(now, sizeof now);
	b_text(&b, name);
	b_i64(&b, run_id);
	b_text(&b, set_at ? set_at : now);
	b_text(&b, run_set);
	return run_bound(st, &b, d, "set baseline '%s'", name);
}

enum ab_rc store_baseline_set(struct store *st, const char *name, int64_t run_id, struct ab_diag *d)
{
	enum ab_rc rc = check_baseline_name(st, name, d);
	return rc ? rc : baseline_point(st, name, run_id, "", NULL, d);
}

enum ab_rc store_baseline_set_run_set(struct store *st, const char *name, const struct results_run *set,
				      struct ab_diag *d)
{
	if (!set->run_set[0] || set->shard_index != 0)
		return ab_fail(d, AB_ERR_INTERNAL, "baseline '%s': run %lld is not a whole run set", name,
			       (long long)set->id);
	enum ab_rc rc = check_baseline_name(st, name, d);
	return rc ? rc : baseline_point(st, name, set->id, set->run_set, NULL, d);
}

enum ab_rc store_baseline_load(struct store *st, const char *name, struct results_run **out, struct ab_diag *d)
{
	struct bind b;
	char set[64] = "";
	int64_t run_id = 0;
	*out = NULL;
	enum ab_rc rc = prepare_bind(st, "SELECT run_id, run_set FROM baselines WHERE name = ?", &b, d);
	if (rc)
		return rc;
	b_text(&b, name);
	int src = step_bound(&b);
	if (src == SQLITE_ROW) {
		struct col c = { b.s, 0 };
		run_id = c_i64(&c);
		C_STR(&c, set);
	} else if (src == SQLITE_DONE) {
		rc = ab_fail(d, AB_ERR_DATA, "no baseline '%s' in '%s'", name, st->path);
	} else {
		rc = db_fail(st, d, "read baseline '%s'", name);
	}
	sqlite3_finalize(b.s);
	if (rc)
		return rc;
	return set[0] ? runset_load(st, set, out, d) : store_load_run(st, run_id, out, d);
}

enum ab_rc store_baseline_get(struct store *st, const char *name, int64_t *run_id, struct ab_diag *d)
{
	bool found = false;
	enum ab_rc rc = query_id(st, "SELECT run_id FROM baselines WHERE name = ?", name, 0, run_id, &found, d);
	if (!rc && !found)
		rc = ab_fail(d, AB_ERR_DATA, "no baseline '%s' in '%s'", name, st->path);
	return rc;
}

static void read_baseline(struct col *c, void *p)
{
	struct store_baseline *e = p;
	C_STR(c, e->name);
	e->run_id = c_i64(c);
	C_STR(c, e->set_at);
	C_STR(c, e->scenario_name);
	C_STR(c, e->device);
	C_STR(c, e->run_set);
	C_STR(c, e->run_uuid);
}

enum ab_rc store_baseline_list(struct store *st, struct store_baseline **out, int *n, struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = list_rows(st,
				  "SELECT b.name, b.run_id, b.set_at, r.scenario_name, dv.name, b.run_set, r.uuid"
				  " FROM baselines b"
				  " JOIN runs r ON r.id = b.run_id JOIN devices dv ON dv.id = r.device_id"
				  " ORDER BY b.name",
				  sizeof **out, read_baseline, &v, n, "list baselines", d);
	*out = v;
	return rc;
}

enum ab_rc store_device_copy_gbps(struct store *st, const char *uuid, double *gbps, struct ab_diag *d)
{
	struct bind b;
	*gbps = 0;
	enum ab_rc rc = prepare_bind(st,
				     "SELECT copy_gbps FROM devices WHERE uuid = ? AND copy_gbps > 0"
				     " ORDER BY id DESC LIMIT 1",
				     &b, d);
	if (rc)
		return rc;
	b_text(&b, uuid);
	int src = step_bound(&b);
	if (src == SQLITE_ROW)
		*gbps = sqlite3_column_double(b.s, 0);
	else if (src != SQLITE_DONE)
		rc = db_fail(st, d, "read the copy bandwidth of device '%s'", uuid);
	sqlite3_finalize(b.s);
	return rc;
}

/* ---- run sets, UUIDs and copying runs between databases -------------- */

const char *store_path(const struct store *st)
{
	return st->path;
}

const char *store_set_spec(const char *spec)
{
	return spec && !strncmp(spec, STORE_SET_PREFIX, strlen(STORE_SET_PREFIX)) ? spec + strlen(STORE_SET_PREFIX)
										      : NULL;
}

static void read_member(struct col *c, void *p)
{
	struct store_set_member *m = p;
	m->id = c_i64(c);
	m->shard_index = c_int(c);
	m->shard_count = c_int(c);
	C_STR(c, m->status);
	C_STR(c, m->error);
}

enum ab_rc store_set_members(struct store *st, const char *set, struct store_set_member **out, int *n,
			     struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = list_rows_of(st,
				     "SELECT id, shard_index, shard_count, status, error FROM runs WHERE run_set = ?"
				     " ORDER BY shard_index, started_at DESC, id DESC",
				     set, sizeof **out, read_member, &v, n, "list the runs of a run set", d);
	*out = v;
	return rc;
}

static void read_ref(struct col *c, void *p)
{
	struct store_run_ref *m = p;
	m->id = c_i64(c);
	C_STR(c, m->uuid);
	C_STR(c, m->status);
}

enum ab_rc store_list_refs(struct store *st, struct store_run_ref **out, int *n, struct ab_diag *d)
{
	void *v;
	enum ab_rc rc = list_rows(st, "SELECT id, uuid, status FROM runs ORDER BY id", sizeof **out, read_ref, &v, n,
				  "list runs", d);
	*out = v;
	return rc;
}

enum ab_rc store_find_uuid(struct store *st, const char *uuid, int64_t *id, struct ab_diag *d)
{
	bool found = false;
	*id = 0;
	enum ab_rc rc = query_id(st, "SELECT id FROM runs WHERE uuid = ?", uuid, 0, id, &found, d);
	if (!found)
		*id = 0;
	return rc;
}

enum ab_rc store_open_input(const char *path, struct store **out, struct ab_diag *d)
{
	return open_readonly(path, false, out, d);
}

enum ab_rc store_write_begin(struct store *st, struct ab_diag *d)
{
	return exec(st, "BEGIN IMMEDIATE", "lock the database for writing", d);
}

enum ab_rc store_write_commit(struct store *st, struct ab_diag *d)
{
	enum ab_rc rc = exec(st, "COMMIT", "commit", d);
	if (rc)
		rollback(st);
	return rc;
}

void store_write_rollback(struct store *st)
{
	rollback(st);
}

enum ab_rc store_import_run(struct store *st, const struct results_run *r, int64_t *id, struct ab_diag *d)
{
	int64_t device_id = 0;
	*id = 0;
	if (sqlite3_get_autocommit(st->db))
		return ab_fail(d, AB_ERR_INTERNAL, "store_import_run outside a transaction");
	if (!r->uuid[0] || !strcmp(r->status, "running"))
		return ab_fail(d, AB_ERR_INTERNAL, "run %lld cannot be copied (no uuid or still running)",
			       (long long)r->id);
	enum ab_rc rc = device_upsert(st, &r->device, &device_id, d);
	if (!rc)
		rc = insert_run(st, r, device_id, id, d);
	if (!rc)
		rc = insert_arm_sources(st, r, *id, d);
	if (!rc)
		rc = write_cases(st, r, *id, d);
	return rc;
}

enum ab_rc store_baseline_copy(struct store *st, const struct store_baseline *b, int64_t run_id, struct ab_diag *d)
{
	return baseline_point(st, b->name, run_id, b->run_set, b->set_at, d);
}
