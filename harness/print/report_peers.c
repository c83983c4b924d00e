/*
 * report_peers.c - the words of a report's side-by-side runs
 * (report_peers.h); what sets them apart comes computed (peers_axis).
 */
#include "print/report_peers.h"

#include <string.h>

#include "print/md.h"

void report_peers_words(const struct peers_table *P, struct report_peer_words *w)
{
	memset(w, 0, sizeof *w);
	switch (P->axis) {
	case PEERS_ARMS:
		w->section = "Per run: the arms differ";
		snprintf(w->md5_buf, sizeof w->md5_buf, "md5 against run %lld", (long long)P->series[0]->run->id);
		w->md5_head = w->md5_buf;
		w->one = "run";
		return;
	case PEERS_RUNS:
		w->section = "Per run";
		w->md5_head = "md5 across runs";
		w->one = "run";
		return;
	default:
		w->section = "Per GPU";
		w->md5_head = "md5 across GPUs";
		w->one = "GPU";
	}
}

/* The first case whose arms differ between the runs, -1 when none. */
static int first_differing(const struct peers_table *P)
{
	for (int i = 0; i < P->n_cases; i++)
		if (P->arms_differ[i])
			return i;
	return -1;
}

char *report_peers_series_name(const struct peers_table *P, int s, char *buf, size_t len)
{
	const struct results_run *r = P->series[s]->run;
	int i = P->axis == PEERS_ARMS ? first_differing(P) : -1;
	const struct summary_case *c = i >= 0 ? peers_cell(P, i, s) : NULL;
	if (c)
		snprintf(buf, len, "run %lld: A %.31s, B %.31s (%.80s)", (long long)r->id, c->arm_a, c->arm_b, r->device.name);
	else if (P->axis == PEERS_ARMS)
		snprintf(buf, len, "run %lld (%.80s)", (long long)r->id, r->device.name);
	else
		snprintf(buf, len, "%.120s (run %lld)", r->device.name, (long long)r->id);
	return buf;
}

void report_peers_lead(FILE *f, const struct peers_table *P)
{
	int i = first_differing(P);
	if (P->axis != PEERS_ARMS || i < 0) {
		if (P->axis == PEERS_RUNS)
			fputs("These runs ran the same arms on the same device: repeated runs, not GPUs. ", f);
		return;
	}
	md_printf(f, "**These runs measured different arms** (in %d of %d cases; `%s`:", P->n_arms_differ, P->n_cases,
		  P->series[0]->cases[i].c->name);
	for (int s = 0; s < P->n_series; s++) {
		const struct summary_case *c = peers_cell(P, i, s);
		if (!c)
			continue;
		md_printf(f, "%s run %lld A `%s`, B `%s`", s ? ";" : "", (long long)P->series[s]->run->id, c->arm_a,
			  c->arm_b);
	}
	fputs("): the columns compare arms, not GPUs, and the md5s of arms with other arithmetic are not expected to "
	      "agree. ", f);
}
