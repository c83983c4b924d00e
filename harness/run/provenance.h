/*
 * provenance.h - where a run came from: time, host, command line.
 * (The build's git commit is compiled in: version.h.)
 */
#ifndef AB_PROVENANCE_H
#define AB_PROVENANCE_H

#include <stddef.h>

/* "2026-11-29T14:15:00Z" */
void provenance_utc_now(char *buf, size_t len);
void provenance_host(char *buf, size_t len);
/* argv joined with single spaces, arguments with shell metacharacters in
 * single quotes. malloc'd; NULL when out of memory. */
char *provenance_command_line(int argc, char **argv);

#endif
