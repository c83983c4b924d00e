/*
 * copy_floor.c - the plan of a case's copy floor, and the CPU's method
 * (copy_floor.h).
 */
#include "backend/copy_floor.h"

#include <stdio.h>
#include <string.h>

bool copy_floor_fits(const char *site_name, int n_in, int n_out, char *why, size_t len)
{
	if (n_out == 0)
		snprintf(why, len, "site '%s' has no output", site_name);
	else if (n_in > COPY_FLOOR_SEGS || n_out > COPY_FLOOR_SEGS)
		snprintf(why, len, "site '%s' has %d %s, the copy floor takes at most %d", site_name,
			 n_in > COPY_FLOOR_SEGS ? n_in : n_out, n_in > COPY_FLOOR_SEGS ? "inputs" : "outputs", COPY_FLOOR_SEGS);
	else
		return true;
	return false;
}

bool copy_floor_plan(const struct site_desc *s, const struct site_args *a, struct copy_floor_plan *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		bool in = site_role_is_input(t->role), out = t->role == SITE_OUT;
		if ((!in && !out) || !site_tensor_present(t, a->affine))
			continue;
		int64_t bytes = site_tensor_bytes(t, &a->dims);
		if (!a->t[i] || (in ? p->n_in : p->n_out) == COPY_FLOOR_SEGS)
			return false;
		if (in) {
			p->in[p->n_in] = a->t[i];
			p->in_bytes[p->n_in++] = bytes;
			p->read_bytes += bytes;
		} else {
			p->out[p->n_out] = a->t[i];
			p->out_bytes[p->n_out++] = bytes;
			p->write_bytes += bytes;
		}
	}
	return p->write_bytes > 0;
}

/* Copies n bytes of the read stream from offset off into dst: a memcpy
 * per input segment it spans, zeros past the stream's end. */
static void read_stream_copy(const struct copy_floor_plan *p, int64_t off, unsigned char *dst, int64_t n)
{
	int64_t start = 0;
	for (int k = 0; k < p->n_in && n > 0; k++) {
		int64_t end = start + p->in_bytes[k];
		if (off < end) {
			int64_t take = end - off < n ? end - off : n;
			memcpy(dst, (const unsigned char *)p->in[k] + (off - start), (size_t)take);
			dst += take;
			off += take;
			n -= take;
		}
		start = end;
	}
	if (n > 0)
		memset(dst, 0, (size_t)n);
}

/* Reads the read stream from offset off to its end once, xor-ing 8-byte
 * words (and the last bytes) into the value returned. */
static uint64_t read_stream_rest(const struct copy_floor_plan *p, int64_t off)
{
	uint64_t acc = 0;
	int64_t start = 0;
	for (int k = 0; k < p->n_in; k++) {
		int64_t end = start + p->in_bytes[k];
		for (int64_t at = off > start ? off : start; at < end;) {
			const unsigned char *src = (const unsigned char *)p->in[k] + (at - start);
			uint64_t w = 0;
			size_t take = end - at >= 8 ? 8 : (size_t)(end - at);
			memcpy(&w, src, take);
			acc ^= w;
			at += (int64_t)take;
		}
		start = end;
	}
	return acc;
}

void copy_floor_memcpy(const struct copy_floor_plan *p)
{
	int64_t off = 0;
	for (int k = 0; k < p->n_out; k++) {
		read_stream_copy(p, off, p->out[k], p->out_bytes[k]);
		off += p->out_bytes[k];
	}
	uint64_t rest = off < p->read_bytes ? read_stream_rest(p, off) : 0;
	/* the sum is kept, so the reads cannot be left out */
	__asm__ __volatile__("" : : "r"(rest) : "memory");
}
