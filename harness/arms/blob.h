/*
 * blob.h - a user arm's file in memory: its bytes (NUL-terminated, so a
 * PTX or JSON text can be read as a string) and their sha256 for the
 * run's provenance.
 */
#ifndef AB_BLOB_H
#define AB_BLOB_H

#include <stddef.h>

#include "common/diag.h"

struct blob {
	unsigned char *data; /* size bytes, then a NUL */
	size_t size;
	char sha256[65];
};

/* Reads the regular file at path, of at most max bytes. A missing,
 * unreadable or oversized file is AB_ERR_INPUT ("cannot open 'p': ...");
 * the caller adds the scenario's FILE:LINE. */
enum ab_rc blob_read(const char *path, size_t max, struct blob *out, struct ab_diag *d);
void blob_free(struct blob *b);

#endif
