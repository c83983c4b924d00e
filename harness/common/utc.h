/*
 * utc.h - the wall clock in UTC, written the way abbench writes times:
 * ISO 8601 with seconds ("2026-11-29T14:15:00Z") in run rows, baselines
 * and lock owners; the basic form ("20261129T141500Z") inside generated
 * ids. The one place that formats the current time.
 */
#ifndef AB_UTC_H
#define AB_UTC_H

#include <stddef.h>

/* "2026-11-29T14:15:00Z" (21 bytes with the NUL). */
void utc_now(char *buf, size_t len);
/* "20261129T141500Z" (17 bytes with the NUL). */
void utc_now_basic(char *buf, size_t len);
/* The time seconds before now, as utc_now writes it (no earlier than
 * 1970): such strings sort as the times do (prune's --older-than). */
void utc_ago(double seconds, char *buf, size_t len);

#endif
