/*
 * store_int.h - what the files of the store family share, and nothing
 * outside harness/store/ includes (SQLite's sqliteInt.h is the model).
 *
 * The family (store.h is its public interface):
 *
 *   store.c           opening and closing: paths, connections, the read-only
 *                     and immutable opens
 *   store_schema.c    the migrations table, the header checks, migrating, WAL
 *   store_sql.c       errors, statements, transactions, lists of rows
 *   store_rows.c      each table's columns bound and read in one order
 *   store_write.c     devices, a run begun, finished, failed, imported
 *   store_reap.c      runs whose process is gone, marked 'interrupted'
 *   store_read.c      listing, resolving ids and loading a run back
 *   store_baseline.c  run labels and baseline names, baselines
 *   store_spec.c      a RUN as commands spell it (id, label, last, set:ID,
 *                     a baseline), run sets joined by runset.c
 *
 * Includes run one way: each file includes store.h (the interface) and this
 * header, which includes neither; store_spec.c includes runset.h, which
 * needs nothing of the store (tests/cli/t244-store-family.sh checks).
 *
 * Every value goes through sqlite3_bind_*; the only SQL text assembled at
 * run time is "PRAGMA user_version = N" and "PRAGMA schema_version = N"
 * with N a number (PRAGMA values cannot be bound). Doubles that are NAN are
 * stored as NULL and NULL reads back as NAN. Text columns are NOT NULL and
 * hold '' for "none", except runs.finished_at (NULL while running) and the
 * two malloc'd strings scenario_text and command_line (NULL <-> NULL).
 */
#ifndef AB_STORE_INT_H
#define AB_STORE_INT_H

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "common/diag.h"
#include "common/results.h"
#include "common/results_check.h"

#define STORE_BUSY_MS 5000
/* PRAGMA application_id of abbench databases: "abbe" in ASCII. */
#define STORE_APP_ID 0x61626265

struct store {
	sqlite3 *db;
	bool read_only; /* store_open_readonly: nothing is ever written through db */
	bool immutable; /* opened as an immutable file, or a private copy: nothing to reap */
	char path[4096];
	char copy_dir[4096]; /* "" or the private directory of a copy read with its WAL */
};

/* ---- errors, statements, transactions (store_sql.c) ------------------- */

/* AB_ERR_DB "cannot WHAT: sqlite message". Call before anything else
 * touches the connection (a ROLLBACK would replace the message). */
enum ab_rc store_db_fail(struct store *st, struct ab_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
enum ab_rc store_db_vfail(struct store *st, struct ab_diag *d, const char *fmt, va_list ap);
enum ab_rc store_nomem(struct ab_diag *d, const char *what);

/* Static SQL only (transactions, pragmas, the migrations). */
enum ab_rc store_exec(struct store *st, const char *sql, const char *what, struct ab_diag *d);
/* Rolls back the open transaction, if there is one. */
void store_rollback(struct store *st);
enum ab_rc store_prepare(struct store *st, const char *sql, sqlite3_stmt **s, struct ab_diag *d);

/* The first read of a file tells whether it is SQLite at all: SQLITE_NOTADB
 * is AB_ERR_DATA, anything else AB_ERR_DB. */
enum ab_rc store_read_error(struct store *st, int src, const char *what, struct ab_diag *d);
/* One integer from a statement without parameters (PRAGMA, count). */
enum ab_rc store_query_int(struct store *st, const char *sql, int64_t *v, struct ab_diag *d);
/* One id from a query with at most one text or integer parameter. */
enum ab_rc store_query_id(struct store *st, const char *sql, const char *text, int64_t num, int64_t *id,
			  bool *found, struct ab_diag *d);

/* Grows a malloc'd array so that element n fits; NULL when out of memory
 * (the old block stays valid). */
void *store_grow(void *p, int n, int *cap, size_t size);

/* ---- binding parameters in order --------------------------------------- */

struct bind {
	sqlite3_stmt *s;
	int i;     /* parameters bound so far */
	int rc;    /* first sqlite error */
	bool once; /* from store_prepare_bind: store_run_bound finalizes s instead of resetting it */
};

static inline struct bind bind_start(sqlite3_stmt *s)
{
	return (struct bind){ .s = s, .i = 0, .rc = SQLITE_OK, .once = false };
}

static inline void b_null(struct bind *b)
{
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_null(b->s, i);
}

/* NULL pointer -> NULL. The text must outlive the statement's step. */
static inline void b_text(struct bind *b, const char *v)
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
static inline void b_str(struct bind *b, const char *v, size_t cap)
{
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_text(b->s, i, v, (int)strnlen(v, cap), SQLITE_STATIC);
}
#define B_STR(b, arr) b_str((b), (arr), sizeof(arr))

/* One character as a one-letter text, copied by SQLite. */
static inline void b_char(struct bind *b, char ch)
{
	char v[2] = { ch, '\0' };
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_text(b->s, i, v, ch ? 1 : 0, SQLITE_TRANSIENT);
}

static inline void b_i64(struct bind *b, int64_t v)
{
	int i = ++b->i;
	if (b->rc == SQLITE_OK)
		b->rc = sqlite3_bind_int64(b->s, i, v);
}

/* NAN -> NULL. */
static inline void b_real(struct bind *b, double v)
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
 * statement used once (finished by store_run_bound or sqlite3_finalize(b->s)). */
enum ab_rc store_prepare_bind(struct store *st, const char *sql, struct bind *b, struct ab_diag *d);

/* The first step after binding: SQLITE_ROW, SQLITE_DONE or an error code
 * (a failed bind's included). */
static inline int step_bound(const struct bind *b)
{
	return b->rc == SQLITE_OK ? sqlite3_step(b->s) : b->rc;
}

/* Steps a statement that returns no row, then resets it for the next use
 * (or finalizes it, when it came from store_prepare_bind). fmt names what
 * was being done, for the message. */
enum ab_rc store_run_bound(struct store *st, struct bind *b, struct ab_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Statements prepared together and finalized together (NULL entries of a
 * failed store_prepare_all are harmless to store_finalize_all). */
enum ab_rc store_prepare_all(struct store *st, const char *const *sql, sqlite3_stmt **s, int n, struct ab_diag *d);
void store_finalize_all(sqlite3_stmt **s, int n);

/* ---- reading columns in order ------------------------------------------ */

/* A row read column by column. Each reader checks what it reads: a text
 * must be valid UTF-8 without NUL that fits its field, an integer must be
 * an INTEGER that fits its C type, a real a number or NULL. The first
 * column that is not is kept (bad: 1 + its index, why: what is wrong with
 * it), the row is then refused by its caller (store_bad_row), never cut or
 * truncated into something else. */
struct col {
	sqlite3_stmt *s;
	int i;
	int bad;
	char why[160];
};

static inline void c_mark(struct col *c, int i, const char *what)
{
	if (c->bad)
		return;
	c->bad = i + 1;
	snprintf(c->why, sizeof c->why, "%s %s", sqlite3_column_name(c->s, i), what);
}

/* The text of column i checked against a field of cap bytes (0: any
 * length); NULL when the column is NULL. */
static inline const char *c_text(struct col *c, int i, size_t cap)
{
	const char *t = (const char *)sqlite3_column_text(c->s, i);
	size_t n = t ? (size_t)sqlite3_column_bytes(c->s, i) : 0;
	if (t && !c->bad && !results_check_text(sqlite3_column_name(c->s, i), t, n, cap, c->why, sizeof c->why))
		c->bad = i + 1;
	return t;
}

static inline void c_str(struct col *c, char *dst, size_t cap)
{
	const char *t = c_text(c, c->i++, cap);
	snprintf(dst, cap, "%s", t ? t : "");
}
#define C_STR(c, arr) c_str((c), (arr), sizeof(arr))

/* NULL stays NULL; *ok turns false when out of memory. */
static inline char *c_dup(struct col *c, bool *ok)
{
	const char *t = c_text(c, c->i++, 0);
	if (!t)
		return NULL;
	char *p = strdup(t);
	if (!p)
		*ok = false;
	return p;
}

static inline int64_t c_i64(struct col *c)
{
	int i = c->i++;
	if (sqlite3_column_type(c->s, i) != SQLITE_INTEGER)
		c_mark(c, i, "is not an integer");
	return sqlite3_column_int64(c->s, i);
}

static inline int c_int(struct col *c)
{
	int64_t v = c_i64(c);
	if (v < INT_MIN || v > INT_MAX) {
		char what[64];
		snprintf(what, sizeof what, "is %lld, more than an int holds", (long long)v);
		c_mark(c, c->i - 1, what);
		return 0;
	}
	return (int)v;
}

static inline bool c_bool(struct col *c)
{
	return c_i64(c) != 0;
}

/* NULL -> NAN. */
static inline double c_real(struct col *c)
{
	int i = c->i++, type = sqlite3_column_type(c->s, i);
	if (type == SQLITE_NULL)
		return NAN;
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
		c_mark(c, i, "is not a number");
	return sqlite3_column_double(c->s, i);
}

/* AB_ERR_DATA for a row that cannot be read as it stands: "'DB': bad row
 * in table T (WHERE): WHY". */
enum ab_rc store_bad_row(struct store *st, const char *table, const char *where, const char *why, struct ab_diag *d);

/* Every row of sql (at most one text parameter, param) read by read_row
 * into a malloc'd array of size-byte elements; nothing on failure. what
 * ("list runs") names the work in the messages. */
enum ab_rc store_list_rows(struct store *st, const char *sql, const char *param, size_t size,
			   void (*read_row)(struct col *, void *), void **out, int *n, const char *what,
			   struct ab_diag *d);

/* ---- the schema (store_schema.c) --------------------------------------- */

/* The header (user_version, application_id) checked in a read transaction
 * of its own: files that are not SQLite, SQLite files of other programs,
 * versions this build cannot know are refused. *src (when not NULL) gets
 * SQLite's code of a failure, which the rollback would reset. */
enum ab_rc store_check_header_now(struct store *st, int64_t *version, int *src, struct ab_diag *d);

/* Forward migrations up to version target, one transaction each (create:
 * whether an empty file may be given the first schema). */
enum ab_rc store_migrate(struct store *st, bool create, int target, struct ab_diag *d);

/* The journal mode switched to WAL unless it is already, retried while
 * other connections hold the file. */
enum ab_rc store_ensure_wal(struct store *st, struct ab_diag *d);

enum ab_rc store_empty_database(struct store *st, struct ab_diag *d);

/* ---- each table's columns in one order (store_rows.c) ----------------- */

/* Column lists shared by the INSERT and the SELECT of a table, so that the
 * store_bind_* and store_read_* functions follow one order. */
#define DEVICE_COLS                                                                              \
	"name, uuid, backend, cc_major, cc_minor, sm_count, l2_bytes, mem_bytes, driver_version, " \
	"runtime_version, default_sm_mhz, copy_gbps"
#define RUN_COLS                                                                                 \
	"started_at, finished_at, status, error, label, scenario_name, scenario_path, "            \
	"scenario_text, scenario_hash, command_line, git_commit, host, backend, version, quick, "  \
	"bracket, arm_a, arm_b, steps, forwards_per_step, launch_gaps, l2_flush, notes, uuid, run_set, " \
	"shard_index, shard_count, device_id, only_cases, fake_timer, device_index, noise_measure, "    \
	"cases_planned, resumed, timing, recheck"
#define CASE_COLS                                                                                \
	"name, site, shape, dtype, eps, affine, count, input, sweep, axis, axis_value, bytes_min, "  \
	"bytes_a, bytes_b, arm_a, arm_b, copy_floor_ns, copy_floor_kernel_ns, copy_floor_method, " \
	"copy_floor_samples, copy_floor_detail"
#define SLOT_COLS                                                                                \
	"position, label, arm, variant, warmup, n_samples, n_discarded, stopping_reason, elapsed_s, "  \
	"median_ns, p10_ns, p90_ns, min_ns, max_ns, mean_ns, noise, kernel_median_ns, "            \
	"kernel_records_bad, before_valid, before_sm_mhz, before_mem_mhz, "                        \
	"before_throttle_reasons, before_temp_c, after_valid, after_sm_mhz, after_mem_mhz, "       \
	"after_throttle_reasons, after_temp_c"
#define KERNEL_COLS "name, family, launches, total_ns, min_ns, max_ns"
#define OUTPUT_COLS                                                                              \
	"tensor, md5, bytes, bit_exact, mismatches, max_abs_err, max_err_ratio, ref_ok, "          \
	"ref_skipped, has_ref"
#define ARM_SOURCE_COLS "arm, name, kind, path, sha256, detail"

void store_bind_device(struct bind *b, const struct results_device *dv);
void store_read_device(struct col *c, struct results_device *dv);
void store_bind_run(struct bind *b, const struct results_run *r, int64_t device_id);
/* Returns the device_id column (only_cases follows it). */
int64_t store_read_run(struct col *c, struct results_run *r, bool *ok);
void store_bind_case(struct bind *b, const struct results_case *c);
/* The ordinal, then CASE_COLS. */
void store_read_case(struct col *c, struct results_case *k);
void store_bind_slot(struct bind *b, const struct results_slot *s);
void store_read_slot(struct col *c, struct results_slot *s);
void store_bind_kernel(struct bind *b, const struct results_kernel *k);
void store_read_kernel(struct col *c, struct results_kernel *k);
void store_bind_output(struct bind *b, const struct results_output *o);
void store_read_output(struct col *c, struct results_output *o);
void store_bind_arm_source(struct bind *b, const struct results_arm_source *a);
void store_read_arm_source(struct col *c, struct results_arm_source *a);

/* ---- writing (store_write.c) and reaping (store_reap.c) --------------- */

/* Inside the caller's transaction: a 'running' run ends with status and
 * error, keeping the cases it committed. AB_ERR_DATA when it is not
 * 'running'. */
enum ab_rc store_end_run(struct store *st, int64_t run_id, const char *status, const char *error, struct ab_diag *d);

/* Runs of this host whose process is gone, marked 'interrupted'. */
enum ab_rc store_reap_stale(struct store *st, struct ab_diag *d);
/* The same for a reading store, through a short read-write connection of
 * its own when the file can be written; a courtesy that never fails. */
void store_reap_stale_from_reader(struct store *st);

/* ---- connections (store.c) --------------------------------------------- */

enum ab_rc store_connect(struct store *st, const char *name, int flags, struct ab_diag *d);
void store_disconnect(struct store *st);

#endif
