/*
 * fuzz_cubin.c - libFuzzer harness for the compiled-binary reader
 * (arms/cubin_file.c): any bytes, read as a cubin (ELF), a fatbin or PTX
 * text by cubin_file_inspect, first for a kernel named "k", then for the
 * first kernel the file lists (so that its parameters are read too). It
 * must end in an answer or a message, never a crash, a hang, a leak or a
 * sanitizer report. The bytes are copied into a buffer of exactly their
 * size plus the NUL the function's contract asks for, so that ASan sees
 * any read past them. `make fuzz` runs it on tests/fuzz/corpus/cubin
 * (hand-made cubins and PTX, and every input that ever failed) plus the
 * example kernels of a CUDA build (build/examples/cubin).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arms/cubin_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cubin_file_info info;
	char err[256], first[256];
	unsigned char *buf = malloc(size + 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	cubin_file_inspect(buf, size, "k", &info, err, sizeof err);
	size_t n = strcspn(info.kernels, ",");
	if (n && n < sizeof first) {
		memcpy(first, info.kernels, n);
		first[n] = '\0';
		cubin_file_inspect(buf, size, first, &info, err, sizeof err);
	}
	free(buf);
	return 0;
}
