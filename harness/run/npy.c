/*
 * npy.c - NumPy .npy writer, format version 1.0.
 *
 * Layout: "\x93NUMPY", bytes 1 and 0 (the version), the header length as a
 * little-endian uint16, then the header: a Python dict literal
 * "{'descr': '<u2', 'fortran_order': False, 'shape': (1, 4096, 4096), }"
 * padded with spaces and ended by '\n' so that magic + version + length +
 * header is a multiple of 64 bytes; then the raw little-endian data, C order.
 * A rank-1 shape is written "(5,)" and a rank-0 one "()", as Python spells
 * tuples. The data are written as they are in memory, so the host must be
 * little-endian (checked at compile time).
 */
#include "run/npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/outfile.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c writes memory as little-endian data: port it before using a big-endian host"
#endif

#define NPY_PREAMBLE 10 /* magic (6) + version (2) + header length (2) */
#define NPY_ALIGN 64
#define NPY_MAX_RANK 32

static const struct {
	const char *descr;
	size_t size;
} npy_types[NPY_N_DTYPES] = {
	[NPY_U2] = { "<u2", 2 }, [NPY_F4] = { "<f4", 4 }, [NPY_F2] = { "<f2", 2 },
	[NPY_I4] = { "<i4", 4 }, [NPY_I8] = { "<i8", 8 }, [NPY_U1] = { "|u1", 1 },
};

/* Writes the padded header (preamble included) into buf; returns its length
 * or 0 when it does not fit. */
static size_t npy_header(char *buf, size_t cap, const char *descr, int rank, const int64_t *shape)
{
	char dict[1024];
	size_t n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);

	for (int i = 0; i < rank && n < sizeof dict; i++)
		n += (size_t)snprintf(dict + n, sizeof dict - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
	if (n < sizeof dict)
		n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", rank == 1 ? "," : "");
	if (n >= sizeof dict)
		return 0;
	size_t total = (NPY_PREAMBLE + n + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	if (total > cap || total - NPY_PREAMBLE > 0xFFFF)
		return 0;
	size_t hlen = total - NPY_PREAMBLE;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (char)(hlen & 0xFF);
	buf[9] = (char)(hlen >> 8);
	memcpy(buf + NPY_PREAMBLE, dict, n);
	memset(buf + NPY_PREAMBLE + n, ' ', hlen - n - 1);
	buf[total - 1] = '\n';
	return total;
}

/* Elements of the shape; -1 on a negative dimension or overflow. */
static int64_t npy_elems(int rank, const int64_t *shape)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++)
		if (shape[i] < 0)
			return -1;
	for (int i = 0; i < rank; i++)
		if (shape[i] == 0)
			return 0;
	for (int i = 0; i < rank; i++) {
		if (n > INT64_MAX / shape[i])
			return -1;
		n *= shape[i];
	}
	return n;
}

enum ab_rc npy_write(const char *path, const void *data, enum npy_dtype dt, int rank, const int64_t *shape,
		     struct ab_diag *d)
{
	char hdr[2048];
	struct outfile of;
	if ((unsigned)dt >= NPY_N_DTYPES)
		return ab_fail(d, AB_ERR_INTERNAL, "invalid dtype for '%s'", path);
	size_t elsize = npy_types[dt].size;
	int64_t n = npy_elems(rank, shape);

	if (rank < 0 || rank > NPY_MAX_RANK || n < 0 || (uint64_t)n > SIZE_MAX / elsize)
		return ab_fail(d, AB_ERR_INTERNAL, "invalid shape for '%s'", path);
	if (n > 0 && !data)
		return ab_fail(d, AB_ERR_INTERNAL, "no data to write to '%s'", path);
	size_t hlen = npy_header(hdr, sizeof hdr, npy_types[dt].descr, rank, shape);
	if (hlen == 0)
		return ab_fail(d, AB_ERR_INTERNAL, "header too long for '%s'", path);
	enum ab_rc rc = outfile_open(&of, path, d);
	if (rc != AB_OK)
		return rc;
	size_t bytes = (size_t)n * elsize;
	fwrite(hdr, 1, hlen, of.f);
	if (bytes)
		fwrite(data, 1, bytes, of.f);
	return outfile_commit(&of, d); /* catches a short write: errors are sticky */
}
