/*
 * devices.h - `abbench run --devices all|LIST`: one worker per device on
 * this host, each a shard of the scenario pinned to its device, merged
 * into one run set at the end.
 *
 * Worker i of n is abbench itself (/proc/self/exe), started with the
 * command line the caller builds for it (devices_argv_fn): `abbench run`
 * writes it from its own option table, so every option of the parent
 * reaches the workers as the parent parsed it, with the worker's device,
 * shard i/n, run set and database (DIR/worker-D_i.db) set, and no option
 * is spelled a second time here. Its standard output and error go to
 * DIR/worker-D_i.log, DIR a fresh directory beside the database
 * (DB.workers.XXXXXX). Each worker writes its own SQLite file, so no two
 * processes contend for one write lock during the hours a large scenario
 * takes. The parent prints a line per device when its worker starts and
 * when it ends. When all have ended, every worker file is merged into the
 * database (store/merge.h; failed runs are kept, as a plain run's would
 * be) and DIR is removed, but for the logs of the workers that failed,
 * which stay there and are named in the messages.
 *
 * A worker that fails fails the command with its own message; its shard
 * then has no 'ok' run, so the run set is incomplete and `set:ID` refuses
 * to read it: there is no 'ok' run set.
 */
#ifndef AB_DEVICES_H
#define AB_DEVICES_H

#include <stdbool.h>

#include "common/diag.h"
#include "run/shard.h"

#define DEVICES_MAX 64

/* Parses "all" (devices 0..count_all-1) or a comma-separated list of
 * distinct device indexes ("0,2,3") into dev[0..*n). AB_ERR_USAGE on bad
 * text, AB_ERR_USAGE when "all" finds no device. */
enum ab_rc devices_parse(const char *text, int count_all, int *dev, int *n, struct ab_diag *d);

/* What differs between workers: the settings of one. */
struct devices_worker {
	int device;          /* its device index */
	struct shard shard;  /* i/n */
	const char *run_set;
	const char *db;      /* its own database file, in DIR */
};

/* The command line that starts worker w: argv[0] "abbench", then "run" and
 * the options, NULL-terminated, in one malloc'd block (devices_run frees
 * it); NULL when out of memory. */
typedef char **(*devices_argv_fn)(const struct devices_worker *w, const void *ctx);

struct devices_job {
	const char *db_path;
	const char *run_set;
	int n;                /* workers */
	const int *device;    /* their device indexes */
	devices_argv_fn argv; /* each worker's command line, from the caller's option table */
	const void *ctx;      /* for argv */
};

/* Runs the workers and merges their files into j->db_path. AB_OK when
 * every worker stored an 'ok' run and the merge succeeded; otherwise the
 * first failed worker's message (its last "abbench: error: " line, or how
 * it ended when it wrote none, and where its log stays), with AB_ERR_DATA
 * when it exited 2 and AB_ERR_BACKEND when it ended otherwise. */
enum ab_rc devices_run(const struct devices_job *j, struct ab_diag *d);

/* A run set id for a --devices run given none: "devices-YYYYMMDDTHHMMSSZ-PID". */
void devices_default_set_id(char *buf, size_t len);

#endif
