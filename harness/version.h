/*
 * version.h - what this binary is: version, the commit it was built from,
 * and whether the CUDA backend is compiled in.
 */
#ifndef AB_VERSION_H
#define AB_VERSION_H

#define AB_VERSION "0.1.0"

#ifndef AB_GIT_COMMIT
#define AB_GIT_COMMIT "unknown"
#endif

#ifndef AB_HAVE_CUDA
#define AB_HAVE_CUDA 0
#endif

#endif
