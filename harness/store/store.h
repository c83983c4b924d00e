/*
 * store.h - the SQLite store of runs.
 *
 * Schema versioned with PRAGMA user_version and forward migrations (a newer
 * schema than this build knows is refused). WAL mode, a busy timeout,
 * prepared statements only. A run's row is inserted with status 'running'
 * (with the pid and identity of its process) and committed before
 * measuring starts; each case is then committed in a transaction of its
 * own as it finishes (whole: its slots, samples, kernels and outputs), and
 * a last transaction sets 'ok' once every case the run planned is stored.
 * A run that fails is marked 'failed' with its error, one stopped by a
 * signal or whose process died 'interrupted'; both keep the cases they
 * finished, each whole, and never read as complete (status is not 'ok');
 * `run --resume` takes such a run up again (store_resume_run).
 *
 * Tables: runs, devices, cases, slots, samples, kernel_times, outputs,
 * run_arms, baselines (named pointers to runs). See docs/SCHEMA.md.
 *
 * One interface for a family of files, each a section of the store
 * (store_int.h lists them): opening (store.c), the schema
 * (store_schema.c), writing (store_write.c, store_reap.c), reading
 * (store_read.c), names and baselines (store_baseline.c), RUN specs with
 * run sets (store_spec.c, runset.c) and pruning (store_prune.c).
 */
#ifndef AB_STORE_H
#define AB_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"

struct store;

/* The longest full path (absolute, links resolved) of a database: SQLite's
 * unix VFS takes 512 bytes with "-journal" appended. */
#define STORE_PATH_MAX 504

/* Where the database is: the --db value, else $ABBENCH_DB, else "abbench.db". */
const char *store_default_path(const char *cli_value);

/* Opens the database read-write (create = true: creating it as needed),
 * switches it to WAL mode and migrates it. create = false on a missing file
 * is AB_ERR_DATA ("no database 'x'"); a path that is not a regular file (a
 * directory, a FIFO: never opened) or longer than STORE_PATH_MAX as a full
 * path is AB_ERR_USAGE. Several processes may open (and
 * create) one file at once. Runs of this host left 'running' by a process
 * that is gone are marked 'interrupted' (procid.h). */
enum ab_rc store_open(const char *path, bool create, struct store **out, struct ab_diag *d);

/* Opens an existing database for reading only: no WAL switch, no
 * migration, nothing written through this connection (a database that
 * needs migrating is AB_ERR_DATA, saying so). A WAL database on read-only
 * media (no -shm can be made beside it) is opened as immutable when its
 * WAL is empty, else read from a private copy of it and its WAL (never
 * without the transactions its WAL holds). The stale runs store_open
 * would mark are marked through a separate short connection when the file
 * is writable. */
enum ab_rc store_open_readonly(const char *path, struct store **out, struct ab_diag *d);
bool store_is_read_only(const struct store *st);

void store_close(struct store *st);

/* Creates (or opens) the file and migrates it up to schema version
 * `version` only, never past it: how the tests build a file of an older
 * schema to check the migrations after it. */
enum ab_rc store_open_version(const char *path, int version, struct store **out, struct ab_diag *d);

/* Inserts the run row as 'running' (plus its device row) from r's header
 * fields and commits; sets r->id and a new random r->uuid. */
enum ab_rc store_begin_run(struct store *st, struct results_run *r, struct ab_diag *d);

/* In one transaction: case c of the 'running' run r (its slots, samples,
 * kernels, outputs), checked whole first (results_check_case against r's
 * bracket). AB_ERR_DATA when r is not 'running' or c is malformed,
 * AB_ERR_INTERNAL when r already holds a case at c's ordinal. On failure
 * nothing of c stays. */
enum ab_rc store_commit_case(struct store *st, const struct results_run *r, const struct results_case *c,
			     struct ab_diag *d);

/* In one transaction: every case of r not stored yet (store_commit_case
 * wrote the others), then the run's status 'ok' with its finish time and
 * notes, once it holds r->cases_planned cases (when that is > 0; else
 * AB_ERR_INTERNAL: an incomplete run is never 'ok'). On failure nothing of
 * this transaction stays. */
enum ab_rc store_finish_run(struct store *st, const struct results_run *r, struct ab_diag *d);

/* Marks the run 'failed' with the message; the cases it committed stay. */
enum ab_rc store_fail_run(struct store *st, int64_t run_id, const char *error, struct ab_diag *d);

/* Marks the run 'interrupted' (a signal stopped it) with why; likewise its
 * committed cases stay. */
enum ab_rc store_interrupt_run(struct store *st, int64_t run_id, const char *why, struct ab_diag *d);

/* `run --resume`: an 'interrupted' or 'failed' run back to 'running'
 * (error cleared, resumed counted, this process its owner), in one
 * transaction, so that its remaining cases can be committed into it.
 * AB_ERR_USAGE for a run that is 'ok' or still 'running', AB_ERR_DATA for
 * no such run. The caller checks first that it measures what the run
 * measured (same scenario text, build, backend and device). */
enum ab_rc store_resume_run(struct store *st, int64_t run_id, struct ab_diag *d);

/* Newest first. *out is malloc'd (free()). */
enum ab_rc store_list_runs(struct store *st, struct results_run_summary **out, int *n, struct ab_diag *d);

/* Resolves "RUN": NULL or "last" = newest finished run (any status but
 * 'running'), a number = that id, anything else = newest finished run with
 * that label. AB_ERR_DATA when nothing matches. */
enum ab_rc store_resolve_run(struct store *st, const char *spec, int64_t *id, struct ab_diag *d);

/* The did-you-mean of a run spec or baseline name that matched nothing
 * (common/suggest.h), written into hint: the run labels (labels) and the
 * baseline names (baselines) of the database held against name: " (did
 * you mean 'nightly'?)", the names while they are few, else "". Best
 * effort: a database error leaves the hint empty. */
void store_name_hint(struct store *st, const char *name, bool labels, bool baselines, char *hint, size_t len);

/* Loads the whole run. Release with results_run_free. */
enum ab_rc store_load_run(struct store *st, int64_t id, struct results_run **out, struct ab_diag *d);

/* store_resolve_run, then store_load_run of the run it names. */
enum ab_rc store_resolve_load(struct store *st, const char *spec, struct results_run **out, struct ab_diag *d);

/* Opens db_path read-only (store_open_readonly), resolves spec, loads that
 * run and closes the database: what the commands that read one run need.
 * *out is NULL on failure; release it with results_run_free. */
enum ab_rc store_load_spec(const char *db_path, const char *spec, struct results_run **out, struct ab_diag *d);

/* A run label must fit (63 characters), hold no control character, and
 * not read as a run id or 'last' (it could never be named then). "" is no
 * label. AB_ERR_USAGE otherwise. */
enum ab_rc store_check_label(const char *label, struct ab_diag *d);

/* Baselines: named pointers to runs. store_baseline_set refuses a name
 * that is empty, over 63 characters, all digits, 'last' or the label of a
 * run (AB_ERR_USAGE): it would shadow a run in 'gate --baseline'. */
enum ab_rc store_baseline_set(struct store *st, const char *name, int64_t run_id, struct ab_diag *d);
enum ab_rc store_baseline_get(struct store *st, const char *name, int64_t *run_id, struct ab_diag *d);
struct store_baseline {
	char name[64];
	int64_t run_id;
	char set_at[32];
	char scenario_name[64];
	char device[128];
	char run_set[64];      /* '' or the run set the baseline names (run_id: one of its runs) */
	char run_uuid[37];
};
enum ab_rc store_baseline_list(struct store *st, struct store_baseline **out, int *n, struct ab_diag *d);

/* Points NAME at a whole run set (as loaded by store_resolve_load "set:ID"). */
enum ab_rc store_baseline_set_run_set(struct store *st, const char *name, const struct results_run *set,
				      struct ab_diag *d);
/* Loads what NAME points at: its run, or its run set read as one run. */
enum ab_rc store_baseline_load(struct store *st, const char *name, struct results_run **out, struct ab_diag *d);

/* ---- pruning runs (store_prune.c) ----
 *
 * What `abbench prune` takes away: the 'failed' and 'interrupted' runs
 * started before `before` (UTC as runs store it, "2026-11-29T14:15:00Z";
 * NULL: none by age), and the runs ids names, whatever their status but
 * 'running'. Never a run a baseline points at, nor a run of a run set a
 * baseline names. */
struct store_prune {
	const char *before;
	const int64_t *ids;
	int n_ids;
	bool dry_run;     /* choose, remove nothing */
};

/* The runs that go (or would, dry_run), newest first, in *out (malloc'd,
 * free()), removed in one transaction with everything stored under them.
 * A run ids names that does not exist is AB_ERR_DATA; one still running
 * or a baseline's is AB_ERR_USAGE; either way nothing is removed. */
enum ab_rc store_prune_runs(struct store *st, const struct store_prune *q, struct results_run_summary **out, int *n,
			    struct ab_diag *d);

/* Copy bandwidth measured once per device, cached by uuid (0 = none yet). */
enum ab_rc store_device_copy_gbps(struct store *st, const char *uuid, double *gbps, struct ab_diag *d);

/* Removes the database file at path and its -wal, -shm and -journal (a
 * merge's temporary, a reader's private copy); nothing else. */
void store_remove_db_files(const char *path);

/* The schema version this build writes. */
int store_schema_version(void);

/* ---- run sets, UUIDs and copying runs between databases ----
 *
 * A run set is the runs that share runs.run_set: shard I of N of one
 * scenario each (`abbench run --shard I/N --run-set ID`). "set:ID" as a RUN
 * reads the set as one run (store_resolve_load, runset.h). Runs carry a
 * random UUID, their identity when `abbench merge` copies them. */

#define STORE_SET_PREFIX "set:"

/* The ID of a "set:ID" spec, else NULL. */
const char *store_set_spec(const char *spec);

/* The path the store was opened with, for messages. */
const char *store_path(const struct store *st);

struct store_run_ref {
	int64_t id;
	char uuid[37];
	char status[16];
};

/* Every run's id, UUID and status, oldest id first. *out malloc'd. */
enum ab_rc store_list_refs(struct store *st, struct store_run_ref **out, int *n, struct ab_diag *d);

/* The id of the run with this UUID, 0 when there is none. */
enum ab_rc store_find_uuid(struct store *st, const char *uuid, int64_t *id, struct ab_diag *d);

/* Opens an existing database read-only, as the input of a merge: as
 * store_open_readonly (nothing is migrated, and a schema version other
 * than this build's is AB_ERR_DATA), but nothing at all is written to the
 * file, not even the marking of stale runs; and a file that fails
 * SQLite's integrity check is AB_ERR_DATA. */
enum ab_rc store_open_input(const char *path, struct store **out, struct ab_diag *d);

/* An explicit write transaction (BEGIN IMMEDIATE) around store_import_run
 * and store_baseline_copy; commit rolls back when it fails. */
enum ab_rc store_write_begin(struct store *st, struct ab_diag *d);
enum ab_rc store_write_commit(struct store *st, struct ab_diag *d);
void store_write_rollback(struct store *st);

/* Folds the WAL back into the main file and leaves WAL mode, so that the
 * file holds everything by itself (a merge's new OUT, linked into place
 * whole); the next writer that opens it switches it back. */
enum ab_rc store_leave_wal(struct store *st, struct ab_diag *d);

/* Inside a write transaction: inserts r (loaded from another database,
 * 'ok' or 'failed', with its UUID, times and status) and every result it
 * holds; its device row is reused or added. *id is the new run id. */
enum ab_rc store_import_run(struct store *st, const struct results_run *r, int64_t *id, struct ab_diag *d);

/* Inside a write transaction: b (from another database's
 * store_baseline_list) pointed at run_id of this one, set_at kept. */
enum ab_rc store_baseline_copy(struct store *st, const struct store_baseline *b, int64_t run_id, struct ab_diag *d);

#endif
