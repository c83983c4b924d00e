/*
 * determinism.c - a slot's output hashes held to its first (determinism.h).
 */
#include "run/determinism.h"

#include <stdio.h>
#include <string.h>

bool determinism_hashed(uint32_t id)
{
	return id >= 1 && (id <= 4 || (id & (id - 1)) == 0);
}

void determinism_begin(struct determinism *m, int n_out)
{
	memset(m, 0, sizeof *m);
	m->n_out = n_out;
	m->differ_out = -1;
}

void determinism_take(struct determinism *m, uint32_t id, const void *const *out, const size_t *bytes)
{
	int first_bad = -1;
	for (int o = 0; o < m->n_out; o++) {
		struct inputcheck_digest h;
		inputcheck_digest(out[o], bytes[o], &h);
		if (!m->have_first)
			m->first[o] = h;
		else if (first_bad < 0 && !inputcheck_same(&h, &m->first[o]))
			first_bad = o;
	}
	m->have_first = true;
	m->calls_checked++;
	if (first_bad < 0)
		return;
	if (!m->calls_differ++) {
		m->first_differ = (int)id;
		m->differ_out = first_bad;
	}
}

void determinism_result(const struct determinism *m, const char *const *names, struct results_slot_check *check)
{
	check->calls_checked = m->calls_checked;
	check->calls_differ = m->calls_differ;
	check->first_differ = m->first_differ;
	snprintf(check->differ_tensor, sizeof check->differ_tensor, "%s", m->differ_out >= 0 ? names[m->differ_out] : "");
}
