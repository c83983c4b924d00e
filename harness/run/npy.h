/*
 * npy.h - writes NumPy .npy files (format version 1.0) for `run --dump`.
 *
 * bf16 tensors are stored as '<u2' (their raw bits), float32 as '<f4'
 * (float16 '<f2', int32 '<i4', int64 '<i8', uint8 '|u1'), so
 * any tool can load them: numpy.load(f).view(ml_dtypes.bfloat16) or
 * torch.from_numpy(a.view('int16')).view(torch.bfloat16). Files are
 * outfiles (common/outfile.h): written to a temporary name and renamed, so
 * a reader never sees half a file.
 */
#ifndef AB_NPY_H
#define AB_NPY_H

#include <stdint.h>

#include "common/diag.h"

/* '<u2' (bf16's raw bits), '<f4', '<f2', '<i4', '<i8', '|u1'. */
enum npy_dtype { NPY_U2, NPY_F4, NPY_F2, NPY_I4, NPY_I8, NPY_U1, NPY_N_DTYPES };

enum ab_rc npy_write(const char *path, const void *data, enum npy_dtype dt, int rank, const int64_t *shape,
		     struct ab_diag *d);

#endif
