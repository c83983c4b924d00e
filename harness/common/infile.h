/*
 * infile.h - every file abbench reads from a user (a scenario and its
 * included site files, a device profile, an arm's module, library,
 * binary or metadata, a list of cases) opened so that it can never block.
 *
 * open(2) of a FIFO for reading waits for a writer, forever if none
 * comes; reading a terminal or a socket waits for input. So a file is
 * opened O_NONBLOCK (which returns at once, whatever it is), checked with
 * fstat on the descriptor just opened (no window for the name to be
 * swapped between a check and the open), and refused unless it is a
 * regular file; only then is O_NONBLOCK cleared and a stream made. The
 * output side is common/outfile.h; the database's own checks are the
 * store's (store.c).
 */
#ifndef AB_INFILE_H
#define AB_INFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

/* The regular file at path, open for reading ("rb"), and its fstat in st
 * (may be NULL); NULL with the reason in why ("No such file or
 * directory", "it is a FIFO, not a regular file") and errno set
 * (ENOENT for a missing file; EINVAL for one that is not regular). */
FILE *infile_open(const char *path, struct stat *st, char *why, size_t len);

/* What a file of this mode is, for messages: "a FIFO", "a directory",
 * "a socket", "a character device", "a block device", "a regular file". */
const char *infile_kind(mode_t mode);

#endif
