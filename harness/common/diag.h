/*
 * diag.h - result codes and error messages that travel back to the caller.
 *
 * Library code never prints and never exits: it returns an ab_rc and, on
 * failure, fills a struct ab_diag with one human-readable line that names
 * what failed first and the subject in 'quotes' (git style: lowercase, no
 * trailing period). Only main.c and the cmd_*.c files turn a code into an
 * exit status (see ab_rc_exit_status) and print the message.
 */
#ifndef AB_DIAG_H
#define AB_DIAG_H

#include <stddef.h>
#include <stdio.h>

enum ab_rc {
	AB_OK = 0,
	AB_ERR_USAGE,    /* bad command line */
	AB_ERR_INPUT,    /* bad scenario, profile or other user file */
	AB_ERR_DATA,     /* the database lacks what was asked for, or disagrees */
	AB_ERR_IO,       /* file system or stream failure */
	AB_ERR_DB,       /* SQLite failure */
	AB_ERR_BACKEND,  /* device, driver, CUDA, CUPTI or NVML failure */
	AB_ERR_NOMEM,
	AB_ERR_INTERNAL, /* a bug: an invariant did not hold */
	AB_ERR_INTERRUPTED, /* a signal stopped the work (run/interrupt.h) */
};

/* Exit statuses, a documented contract (docs/USAGE.md, "Exit status"). */
enum {
	AB_EXIT_OK = 0,
	AB_EXIT_VERDICT = 1, /* the gate found a regression or lost bit-exactness */
	AB_EXIT_USAGE = 2,   /* bad arguments, bad input files, missing data */
	AB_EXIT_FAILURE = 3, /* the work itself failed: IO, database, device */
	AB_EXIT_INCONCLUSIVE = 4, /* the gate: too little evidence to pass (--quick, few samples, partial run) */
	/* A run stopped by a signal exits 128 + its number, as a shell reports
	 * a process the signal killed: 130 SIGINT, 143 SIGTERM, 129 SIGHUP. */
	AB_EXIT_SIGNAL_BASE = 128,
};

#include <stdbool.h>
#include <stddef.h>

#define AB_DIAG_MAX 512

struct ab_diag {
	char msg[AB_DIAG_MAX];
};

/* Maps a result code to the exit status contract above. */
int ab_rc_exit_status(enum ab_rc rc);

/* Formats the message into d (when d is not NULL) and returns rc, so that
 * `return ab_fail(d, AB_ERR_IO, "cannot open '%s'", path);` reads naturally. */
enum ab_rc ab_fail(struct ab_diag *d, enum ab_rc rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Formats the message into err[len] (when err is not NULL) and returns
 * false: the failure path of the parsers that report into a caller's
 * buffer (expressions, arm specs, cubin files, Triton metadata), so that
 * `return ab_fail_text(err, len, "bad '%s'", s);` reads like ab_fail. */
bool ab_fail_text(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes context to an existing message: "ctx: old message". */
enum ab_rc ab_wrap(struct ab_diag *d, enum ab_rc rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prints "abbench: error: MSG" to stderr and returns -1 (git's error()).
 * Messages echo what users and files gave (names, values, paths), so MSG
 * goes through ab_put_escaped: a terminal never sees a control character. */
int ab_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "abbench: warning: MSG" to stderr, escaped like ab_error. */
void ab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes text with every control character (C0, DEL, C1) and every byte
 * that is not valid UTF-8 written as \xNN; other text as it is. */
void ab_put_escaped(FILE *f, const char *text);

#endif
