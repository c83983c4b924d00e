/*
 * fuzz_triton.c - libFuzzer harness for Triton's kernel metadata reader
 * (arms/triton_meta.c, jansson): any bytes, as the NUL-terminated text of
 * a NAME.json, through triton_meta_parse and triton_meta_scratch_params.
 * It must end in the metadata or a message, never a crash, a hang, a leak
 * or a sanitizer report. `make fuzz` runs it on tests/fuzz/corpus/triton
 * (a copy of examples/cubin/ln_tritonlike.json among the seeds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arms/triton_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct triton_meta m;
	char err[256];
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (triton_meta_parse(text, &m, err, sizeof err) && triton_meta_scratch_params(&m) > 2)
		abort(); /* the contract: 0, 1 or 2 */
	free(text);
	return 0;
}
