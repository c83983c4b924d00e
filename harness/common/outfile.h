/*
 * outfile.h - every file abbench writes for a user (export --csv, compare
 * --out, gate --out and --failing-cases, report files, --dump files) goes
 * through here, so that one set of rules holds for all of them
 * (docs/RELIABILITY.md, "Output files"):
 *
 *   missing or a regular file  written to a temporary file in the same
 *                              directory (PATH.tmpXXXXXX), flushed, fsync'd
 *                              and renamed over PATH: a reader sees the old
 *                              file or the whole new one, never half. An
 *                              existing file keeps its permission bits.
 *   a FIFO or character device written through, in place (opened without
 *                              O_CREAT or O_TRUNC): the node is never
 *                              replaced. A FIFO's open waits for a reader.
 *   "-"                        standard output (written through).
 *   a symbolic link            followed: the file it points to is written
 *                              by the rules above and the link stays a link.
 *                              A link to nothing is refused.
 *   a directory, socket or     refused before anything is written
 *   block device               (AB_ERR_USAGE, exit 2).
 *
 * Any failure to write, flush, sync, close or rename (ENOSPC, EFBIG, EIO,
 * EPIPE ...) is AB_ERR_IO (exit 3) naming the path and the reason; a
 * temporary file is removed and the old PATH is left as it was.
 *
 * A signal that would end the process (SIGINT, SIGTERM, SIGHUP at their
 * default action) removes every temporary file still open first: the
 * first outfile_open installs a handler for each of them that is at its
 * default then (one a command installed itself, as `abbench run` does, or
 * an ignored one, is left alone), which unlinks the open temporaries and
 * lets the signal end the process as it would have (exit 128 + the
 * signal). At most OUTFILE_TRACKED temporaries are open at once.
 */
#ifndef AB_OUTFILE_H
#define AB_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "common/diag.h"

#define OUTFILE_PATH_MAX 4096
#define OUTFILE_TRACKED 16

struct outfile {
	FILE *f;                        /* write here between open and commit */
	bool through;                   /* written in place: no temporary */
	bool is_stdout;
	char path[OUTFILE_PATH_MAX];    /* as given, for messages */
	char target[OUTFILE_PATH_MAX];  /* the file finally written (links resolved) */
	char tmp[OUTFILE_PATH_MAX + 16];/* the temporary file, "" when through */
	int slot;                       /* its place among the temporaries a signal removes */
};

/* Opens path for writing by the rules above. On failure of->f is NULL and
 * nothing was created. */
enum ab_rc outfile_open(struct outfile *of, const char *path, struct ab_diag *d);

/* Checks and closes the stream, then renames the temporary file into
 * place. On failure the temporary file is removed. The struct is closed
 * afterwards either way. */
enum ab_rc outfile_commit(struct outfile *of, struct ab_diag *d);

/* Closes without installing anything: the temporary file is removed (a
 * write-through target keeps what was written to it). No-op when closed. */
void outfile_abort(struct outfile *of);

/* ---- a folder written by one command at a time (publish) ----
 *
 * A temporary survives a process killed by SIGKILL (no handler runs).
 * A command that fills a folder (the dashboard) takes the folder's lock
 * (flock of the directory itself, released when the process ends, kill -9
 * included): while it holds it no other such command writes there, so
 * every temporary of ours left in the folder is a dead process's, and
 * outfile_remove_stale removes them before they can be uploaded with the
 * folder. */

/* Locks dir (exclusive, waiting for another holder, saying so once on
 * stderr); *fd is the lock, for outfile_dir_unlock. */
enum ab_rc outfile_dir_lock(const char *dir, int *fd, struct ab_diag *d);
void outfile_dir_unlock(int fd);

/* Removes, under dir and its folders (4 deep, links not followed), every
 * regular file named as outfile_open names its temporaries (NAME.EXT +
 * ".tmp" + 6 letters or digits, EXT one of the kinds abbench writes);
 * the count removed. Call it holding dir's lock. */
int outfile_remove_stale(const char *dir);


#endif
