/*
 * fuzz_profile.c - libFuzzer harness for the device-profile parser
 * (config/profile.c): any bytes, read as a profile file through
 * profile_parse_file (a memfd named /proc/self/fd/N); it must end in a
 * profile or a message, never a crash, a hang or a sanitizer report.
 * `make fuzz` runs it on tests/fuzz/corpus/profile plus profiles/.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct profile p;
	struct ab_diag d;
	if (fd < 0) {
		fd = memfd_create("fuzz-profile.ini", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	profile_parse_file(path, &p, &d);
	return 0;
}
