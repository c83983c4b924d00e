/*
 * fuzz_scenario.c - libFuzzer harness for the scenario parser
 * (config/scenario.c): any bytes, read as a scenario file through
 * scenario_parse_file (so the file checks run too: size, NUL and control
 * characters, their line numbers); a parse must end in a scenario or a
 * message, never a crash, a hang, a leak or a sanitizer report. The bytes
 * go through a memfd, named /proc/self/fd/N. `make fuzz` builds it with
 * ASan + UBSan and runs it on tests/fuzz/corpus/scenario plus every
 * scenario of the tree.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct scenario *s = NULL;
	struct ab_diag d;
	if (fd < 0) {
		fd = memfd_create("fuzz.ini", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (scenario_parse_file(path, &s, &d) == AB_OK)
		scenario_free(s);
	return 0;
}
