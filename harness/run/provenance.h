/*
 * provenance.h - how a run was started: its command line, as a shell
 * would read it back. (Its time is common/utc.h's, its host
 * common/procid.h's, the build's git commit version.h's.)
 */
#ifndef AB_PROVENANCE_H
#define AB_PROVENANCE_H

#include <stddef.h>

/* argv joined with single spaces, arguments with shell metacharacters in
 * single quotes. malloc'd; NULL when out of memory. */
char *provenance_command_line(int argc, char **argv);

#endif
