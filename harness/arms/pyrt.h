/*
 * pyrt.h - the Python runtime that Python arms are built on: find an
 * interpreter at run time, load its libpython, import a user's module from
 * a file, and call a function of it as fn(t, d) over abbench's own buffers.
 *
 * abbench is built without Python headers and without -lpython: the core
 * binary starts on a machine with no Python at all. When a run needs
 * Python, pyrt_open runs the interpreter once as a child process (no
 * shell, with a timeout) to learn its version, its libpython and its
 * sys.path, opens that libpython with dlopen(RTLD_GLOBAL) (so extension
 * modules such as numpy's find the interpreter's symbols) and looks up the
 * functions it uses with dlsym. Only functions of CPython's stable ABI are
 * used, so one abbench build runs with Debian 12's Python 3.11 and with a
 * Python 3.12 venv (docs/PYTHON_ARMS.md).
 *
 * The interpreter, in this order:
 *   - pyrt_options.python, when the caller names one;
 *   - $ABBENCH_PYTHON (a path, or a name looked up on PATH);
 *   - python3 on PATH.
 * On this project's CI machines python3 on PATH is a pyenv shim, not
 * Debian's /usr/bin/python3 whose packages `make deps` installs: tests name
 * the interpreter they mean, and users pick one with ABBENCH_PYTHON.
 *
 * Lifecycle and ownership:
 *
 *   pyrt_open -> pyrt_need (numpy for the CPU, torch for CUDA)
 *     -> pyrt_import (once per file) -> pyrt_function
 *     -> per case: pyrt_bind -> per slot: pyrt_activate, pyrt_call ... ,
 *        pyrt_verify -> pyrt_unbind
 *   -> pyrt_close
 *
 * A struct pyrt owns its modules and functions (freed by pyrt_close); a
 * struct pyrt_bound is the caller's until pyrt_unbind, which must come
 * before pyrt_close and before the buffers it describes are freed.
 *
 * One interpreter per process. CPython cannot be initialised twice, and
 * numpy and torch cannot be unloaded: pyrt_close frees every object pyrt
 * made and flushes Python's streams but does not call Py_FinalizeEx (torch
 * registers exit handlers that touch CUDA, and finalising with extension
 * modules loaded is not supported by them); the interpreter stays
 * initialised until the process exits, and a later pyrt_open of the same
 * libpython reuses it. A pyrt_open naming another libpython than the one
 * loaded fails. Open after any fork(), never before.
 *
 * Threads and the GIL: the thread that first calls pyrt_open initialises
 * Python and keeps the GIL from then on; every pyrt function must be
 * called from that thread, for the life of the process (another thread
 * gets AB_ERR_INTERNAL). Threads that a user's
 * module starts therefore run only while a pyrt call executes Python code,
 * which is when they can matter to a measurement.
 *
 * Output: the embedded interpreter's sys.stdout is its sys.stderr, so a
 * print() in a user's function never mixes into abbench's results on
 * stdout (what C code of an extension writes to fd 1 still goes there).
 * Signals stay abbench's: Python installs no handler of its own, but
 * one: PYRT_STOP_SIGNAL's, whose handler raises shim.Stopped (a
 * BaseException) in the Python code running; pyrt_stop_call sends it to
 * the interpreter's thread, so that a Ctrl-C or a call's time limit
 * (run/interrupt.h, run/supervise.h) ends a call that spins in Python
 * (`while True: pass`) or sleeps in it (time.sleep), at its next
 * bytecode or at once. os._exit in this process raises SystemExit, as
 * sys.exit does: an arm ends its call that way, never abbench. Initialising Python sets LC_CTYPE
 * to the user's locale (Python's rule); LC_NUMERIC stays "C".
 *
 * Errors are one line in a struct ab_diag (common/diag.h):
 *   AB_ERR_INPUT    the user's choice or code: no interpreter there, one
 *                   without a shared libpython or too old, a module that
 *                   does not import ("FILE:LINE: ExcType: message"), a
 *                   missing function, an exception in a call, a tensor of
 *                   t replaced or deleted, a value returned;
 *   AB_ERR_BACKEND  what the machine lacks: numpy or torch not importable
 *                   by that interpreter, torch without CUDA;
 *   AB_ERR_INTERNAL a call from another thread, or a fault of pyrt itself.
 * No pyrt function exits, prints or leaves a Python exception set.
 */
#ifndef AB_PYRT_H
#define AB_PYRT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

/* The oldest Python pyrt accepts (the stable ABI functions it uses exist
 * there); 3.11 and 3.12 are the versions it is tested with. */
#define PYRT_MIN_MAJOR 3
#define PYRT_MIN_MINOR 9
/* How long the interpreter may take to answer the probe (a pyenv shim or
 * a cold file cache can take a second or two). */
#define PYRT_PROBE_TIMEOUT_MS 30000
/* Tensor ranks pyrt passes to Python (shapes are C-contiguous). */
#define PYRT_MAX_RANK 8

struct pyrt;        /* the loaded interpreter, with its modules */
struct pyrt_module; /* a user's module, imported from a file */
struct pyrt_fn;     /* one function of a module */
struct pyrt_bound;  /* a function bound to one case's tensors */

/* ---- finding the interpreter (pyrt_find.c) ----------------------------------- */

/* What the interpreter said about itself. path lists its sys.path (the
 * probe's own first entry, the current directory, left out). */
struct pyrt_interp {
	char program[PATH_MAX];    /* what was run: a path */
	char chosen_by[32];        /* "the caller", "ABBENCH_PYTHON" or "PATH" */
	char executable[PATH_MAX]; /* its sys.executable */
	char prefix[PATH_MAX];     /* its sys.prefix (a venv's own) */
	int major, minor, micro;
	char libpython[PATH_MAX];  /* the shared library, its real path */
	int n_path;
	char **path;
};

/* Finds and asks the interpreter (python as pyrt_options.python; NULL:
 * $ABBENCH_PYTHON, else python3 on PATH) within timeout_ms (0: the
 * default). Loads nothing into this process. Errors (AB_ERR_INPUT) name
 * the program and say how to pick another (ABBENCH_PYTHON): not found,
 * not executable, not a Python (no answer, a garbled one), a failed or
 * timed-out probe, too old, not CPython, no shared libpython. */
enum ab_rc pyrt_find(const char *python, int timeout_ms, struct pyrt_interp *out, struct ab_diag *d);
void pyrt_interp_free(struct pyrt_interp *ip);

/* How long each other interpreter may take to answer the hint's check
 * (importing torch cold takes seconds), and how many are asked at most. */
#define PYRT_HINT_TIMEOUT_MS 20000
#define PYRT_HINT_MAX_TRIED 12

/* For the message of an interpreter that lacks what a run needs: another
 * on this machine for which `python3 -c check` exits 0 (check imports
 * what is needed), asked as a child process with abbench's environment
 * (PYRT_HINT_TIMEOUT_MS each): python3 in each folder of PATH, then
 * /usr/bin/python3 and /usr/local/bin/python3, skipping the paths of skip
 * (NULL-terminated: the one that failed). Its path into buf; false when
 * none can. Loads nothing into this process. */
bool pyrt_find_other(const char *check, const char *const *skip, char *buf, size_t len);

/* ---- the runtime (pyrt_load.c) ---------------------------------------------- */

struct pyrt_options {
	const char *python; /* NULL: $ABBENCH_PYTHON, else python3 on PATH */
	int timeout_ms;     /* the probe's limit; 0: PYRT_PROBE_TIMEOUT_MS */
};

/* pyrt_find, then dlopen its libpython, check that the library's version
 * is the interpreter's, initialise Python (no signal handlers: abbench
 * keeps its own), give it the interpreter's sys.executable and sys.path,
 * and load pyrt's own Python shim. */
enum ab_rc pyrt_open(const struct pyrt_options *opt, struct pyrt **out, struct ab_diag *d);
void pyrt_close(struct pyrt *rt);

/* The interpreter pyrt_open found (its paths and version). */
const struct pyrt_interp *pyrt_interp(const struct pyrt *rt);

enum pyrt_device { PYRT_CPU, PYRT_CUDA };

/* Makes sure the arrays of a device can be made: numpy for PYRT_CPU;
 * torch, built with CUDA and seeing a device, for PYRT_CUDA. Call before
 * the run (it imports torch: seconds). AB_ERR_BACKEND names the
 * interpreter and what to install. */
enum ab_rc pyrt_need(struct pyrt *rt, enum pyrt_device dev, struct ab_diag *d);

/* "python 3.11.2 (/usr/bin/python3; /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0),
 * numpy 1.24.2": the interpreter and the versions of what pyrt_need
 * imported, for a run's provenance. */
void pyrt_describe(const struct pyrt *rt, char *buf, size_t len);

/* "python=3.11.2 numpy=1.24.2 torch=2.11.0 triton=3.6.0": the
 * interpreter's version and those of numpy, torch and triton where the
 * process has imported them (a module that imports triton at its top has,
 * once pyrt_import ran), as KEY=VALUE words for a certificate
 * (common/results.h). "" when Python cannot be asked. */
void pyrt_versions(struct pyrt *rt, char *buf, size_t len);

/* The signal whose handler (installed in the interpreter by pyrt_open,
 * when pyrt initialised Python) raises shim.Stopped: a real-time one, so
 * that a module's own SIGALRM or SIGUSR1 is left alone. */
#define PYRT_STOP_SIGNAL (SIGRTMIN + 6)

/* Asks the Python code running (or the next to run) in the interpreter's
 * thread to stop: it raises Stopped there, a call ends with it.
 * Async-signal-safe (a signal handler calls it); nothing before pyrt_open
 * armed it. */
void pyrt_stop_call(void);

/* ---- modules and functions (pyrt_module.c) ----------------------------------- */

/* Imports the module at path (absolute; the caller resolves relative
 * paths), once: a second import of the same file returns the same module.
 * Its folder is put first on sys.path, as `python FILE.py` does, so it
 * imports its neighbours. Its __name__ is "abbench_arm_" and the file's
 * stem, never "__main__". A module that does not import is AB_ERR_INPUT:
 * "FILE:LINE: ExcType: message", LINE in the user's file (for a syntax
 * error, the file and line of the error). */
enum ab_rc pyrt_import(struct pyrt *rt, const char *path, struct pyrt_module **out, struct ab_diag *d);

/* The module's callable called name, which must accept (t, d). Missing:
 * "'FILE' has no function 'NAME' (its functions: a, b)". */
enum ab_rc pyrt_function(struct pyrt_module *m, const char *name, struct pyrt_fn **out, struct ab_diag *d);

/* ---- calls (pyrt_call.c) ------------------------------------------------------ */

enum pyrt_dtype {
	PYRT_BF16, /* numpy: uint16 (the raw bits); torch: torch.bfloat16 */
	PYRT_F16,
	PYRT_F32,
	PYRT_I32,
	PYRT_I64,
	PYRT_U8,
	PYRT_N_DTYPES
};

/* "bf16", "f16", "f32", "i32", "i64", "u8"; NULL for another value. */
const char *pyrt_dtype_name(enum pyrt_dtype dt);

/* One tensor of t: a C-contiguous array over data (host memory for
 * PYRT_CPU, device memory for PYRT_CUDA), which must stay valid until
 * pyrt_unbind. data NULL: the case has no such tensor, t[name] is None. */
struct pyrt_tensor {
	const char *name;
	enum pyrt_dtype dtype;
	int rank; /* 0..PYRT_MAX_RANK */
	int64_t shape[PYRT_MAX_RANK];
	void *data;
	bool read_only; /* numpy: a read-only array (write -> ValueError); torch has none */
};

/* A name and a value of d (an axis letter, a dimension). */
struct pyrt_int {
	const char *name;
	int64_t value;
};

/* What d holds (docs/PYTHON_ARMS.md): the case, its site, its axes by
 * letter in order, the site's named dimensions, eps, affine. */
struct pyrt_case {
	const char *name;
	const char *site;
	int n_axes;
	const struct pyrt_int *axes;
	int n_dims;
	const struct pyrt_int *dims;
	double eps;
	bool affine;
};

/* Where the arrays live: the CPU, or CUDA device cuda_device (numbered as
 * the CUDA runtime numbers them) with abbench's stream (a cudaStream_t). */
struct pyrt_target {
	enum pyrt_device device;
	int cuda_device;
	void *stream;
};

/* Builds t and d for one case, once: numpy arrays over memoryviews of the
 * host pointers, or torch tensors over the device pointers (through
 * __cuda_array_interface__; bf16 viewed as torch.bfloat16), each checked
 * to share the buffer (zero copy), and for CUDA torch's stream object for
 * on->stream. pyrt_need(rt, on->device) must have succeeded. */
enum ab_rc pyrt_bind(struct pyrt_fn *fn, const struct pyrt_case *c, const struct pyrt_tensor *t, int n,
		     const struct pyrt_target *on, struct pyrt_bound **out, struct ab_diag *d);

/* Once per slot, before its calls: makes torch's current device and
 * current stream the binding's, so what fn queues goes on abbench's
 * stream. Nothing to do on the CPU. */
enum ab_rc pyrt_activate(struct pyrt_bound *b, struct ab_diag *d);

/* fn(t, d), then: t still holds the very objects bind put there (none
 * replaced, deleted or added), and fn returned None. An exception is
 * "FILE:LINE: in FUNC: ExcType: message (raised at FILE:LINE in FUNC)",
 * the first location being the innermost frame in the user's file, the
 * second the traceback's last frame when it is elsewhere. A warm-up call
 * is just a call: the caller makes one before any timed span (a Triton
 * kernel compiles, torch initialises there). On CUDA the work is queued,
 * not waited for. */
enum ab_rc pyrt_call(struct pyrt_bound *b, struct ab_diag *d);

/* The slower check, outside timed spans (after a slot): every array still
 * has its shape, dtype and buffer (none reshaped, retyped or re-pointed in
 * place), and on CUDA torch's current device and stream are still the
 * binding's. */
enum ab_rc pyrt_verify(struct pyrt_bound *b, struct ab_diag *d);

/* Releases t, d and torch's stream (the device's default stream becomes
 * current again) and frees b. AB_ERR_INPUT when the function kept an
 * array of t beyond the case (in a global or a cache): abbench frees those
 * buffers next. b is freed either way. */
enum ab_rc pyrt_unbind(struct pyrt_bound *b, struct ab_diag *d);

#endif
