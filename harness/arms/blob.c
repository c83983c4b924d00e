/*
 * blob.c - reads a file whole (blob.h).
 */
#include "arms/blob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/digest.h"
#include "common/infile.h"

static enum ab_rc blob_fill(FILE *f, const char *path, size_t size, struct blob *out, struct ab_diag *d)
{
	out->data = malloc(size + 1);
	if (!out->data)
		return ab_fail(d, AB_ERR_NOMEM, "cannot read '%s': out of memory (%zu bytes)", path, size);
	if (fread(out->data, 1, size, f) != size)
		return ab_fail(d, AB_ERR_INPUT, "cannot read '%s': %s", path, ferror(f) ? strerror(errno) : "file shrank");
	out->data[size] = '\0';
	out->size = size;
	return digest_sha256_hex(out->data, size, out->sha256, d);
}

enum ab_rc blob_read(const char *path, size_t max, struct blob *out, struct ab_diag *d)
{
	struct stat st;
	char why[128];
	memset(out, 0, sizeof *out);
	FILE *f = infile_open(path, &st, why, sizeof why); /* a FIFO never blocks */
	if (!f)
		return ab_fail(d, AB_ERR_INPUT, "cannot open '%s': %s", path, why);
	enum ab_rc rc = AB_OK;
	if ((size_t)st.st_size > max)
		rc = ab_fail(d, AB_ERR_INPUT, "'%s' is %lld bytes, more than the %zu allowed", path, (long long)st.st_size,
			     max);
	else
		rc = blob_fill(f, path, (size_t)st.st_size, out, d);
	fclose(f);
	if (rc)
		blob_free(out);
	return rc;
}

void blob_free(struct blob *b)
{
	free(b->data);
	b->data = NULL;
	b->size = 0;
}
