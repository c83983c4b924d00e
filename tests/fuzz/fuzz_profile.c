/*
 * fuzz_profile.c - libFuzzer harness for the device-profile parser
 * (config/profile.c): any bytes, parsed as a profile file's text; it must
 * end in a profile or a message, never a crash, a hang or a sanitizer
 * report. `make fuzz` runs it on tests/fuzz/corpus/profile plus profiles/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct ab_diag d;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	profile_parse_text("fuzz.ini", text, &p, &d);
	free(text);
	return 0;
}
