/*
 * cubin_file.h - what a compiled GPU binary says about itself, read
 * without a GPU: its kind, the architecture it was built for, its
 * kernels, and one kernel's parameter count and sizes.
 *
 *   cubin   an NVIDIA ELF: the arch from e_flags, the kernels from their
 *           .nv.info.NAME sections, parameters from EIATTR_KPARAM_INFO
 *   PTX     text: `.target sm_XX`, the `.entry NAME (.param ...)` lists
 *   fatbin  a container of several: nothing is read here (the driver
 *           picks the code for the device when it loads it)
 *
 * So a scenario's wrong kernel name or parameter count is refused before
 * anything runs, on any machine.
 */
#ifndef AB_CUBIN_FILE_H
#define AB_CUBIN_FILE_H

#include <stdbool.h>
#include <stddef.h>

#define CUBIN_FILE_MAX_PARAMS 64
/* The most bytes of parameters a CUDA kernel takes (32764 since CUDA 12.1
 * on Volta and later): no one parameter can be larger. */
#define CUBIN_FILE_MAX_PARAM_BYTES 32764

enum cubin_file_kind { CUBIN_FILE_CUBIN, CUBIN_FILE_PTX, CUBIN_FILE_FATBIN };

struct cubin_file_info {
	enum cubin_file_kind kind;
	int sm;           /* 90 for sm_90; 0 when unknown (fatbin) */
	int n_params;     /* of the kernel asked for; -1 when unknown (fatbin) */
	int param_size[CUBIN_FILE_MAX_PARAMS]; /* bytes */
	char kernels[256]; /* the file's kernels, ", "-separated, for messages */
};

/* Inspects data (size bytes, NUL after them) for kernel. False with one
 * line in err when the file is none of the three kinds, is damaged, or has
 * no kernel of that name. */
bool cubin_file_inspect(const unsigned char *data, size_t size, const char *kernel, struct cubin_file_info *out,
			char *err, size_t len);

const char *cubin_file_kind_str(enum cubin_file_kind k);

#endif
