/*
 * fuzz_scenario.c - libFuzzer harness for the scenario parser
 * (config/scenario.c): any bytes, parsed as a scenario file's text; a
 * parse must end in a scenario or a message, never a crash, a hang, a leak
 * or a sanitizer report. `make fuzz` builds it with ASan + UBSan and runs
 * it on tests/fuzz/corpus/scenario plus every scenario of the tree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario *s = NULL;
	struct ab_diag d;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (scenario_parse_text("fuzz.ini", text, &s, &d) == AB_OK)
		scenario_free(s);
	free(text);
	return 0;
}
