/*
 * report_peers.h - the words of a report's side-by-side runs
 * (analysis/peers.h decides what sets them apart, peers_axis): the
 * section's title, the md5 column's head, what one run of the charts is
 * called, and the sentence that says what differs. Runs that differ in arms
 * are never called GPUs: their section is "Per run: the arms differ", its
 * md5 column compares against the reported run, and the charts name each
 * run by its arms.
 */
#ifndef AB_REPORT_PEERS_H
#define AB_REPORT_PEERS_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/peers.h"

struct report_peer_words {
	const char *section;   /* "Per GPU", "Per run: the arms differ", "Per run" */
	const char *md5_head;  /* "md5 across GPUs", "md5 against run 3", "md5 across runs" */
	const char *one;       /* what one series is: "GPU", "run" */
	char md5_buf[48];
};

void report_peers_words(const struct peers_table *P, struct report_peer_words *w);

/* Series s's name on a chart and in a column head: "NVIDIA H200 (run 3)";
 * where the arms differ "run 3: A eager, B twopass (NVIDIA H200)" (the arms
 * of the first case whose arms differ). Returns buf. */
char *report_peers_series_name(const struct peers_table *P, int s, char *buf, size_t len);

/* Markdown: the sentence that says what differs between the runs, "" when
 * they are GPUs or one run. */
void report_peers_lead(FILE *f, const struct peers_table *P);

#endif
