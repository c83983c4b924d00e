/*
 * pyrt_api.h - private to pyrt_*.c: the libpython functions pyrt calls,
 * found with dlsym, and the runtime's state.
 *
 * No Python header is included anywhere in abbench: a Python object is an
 * opaque `pyobj`, and every function below is one of CPython's stable ABI
 * (the limited API's exported symbols, present from 3.9 to 3.13 at least),
 * with the prototype the limited API gives it. Reference counts go through
 * Py_IncRef/Py_DecRef (functions, not the macros that touch the object).
 * Only Py_SetProgramName may be missing (it is deprecated since 3.11);
 * without it Python finds its prefix from the sys.path pyrt sets.
 */
#ifndef AB_PYRT_API_H
#define AB_PYRT_API_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "arms/pyrt.h"

typedef struct pyrt_object pyobj;
typedef intptr_t py_ssize; /* Py_ssize_t */

/* Values of the C API (Include/compile.h, Include/pybuffer.h). */
enum { PY_FILE_INPUT = 257, PY_BUF_READ = 0x100, PY_BUF_WRITE = 0x200 };

struct pyrt_api {
	int (*Py_IsInitialized)(void);
	void (*Py_InitializeEx)(int initsigs);
	const char *(*Py_GetVersion)(void);
	void (*Py_SetProgramName)(const wchar_t *name); /* optional */
	void (*Py_IncRef)(pyobj *o);
	void (*Py_DecRef)(pyobj *o);
	void (*PyErr_Fetch)(pyobj **type, pyobj **value, pyobj **tb);
	void (*PyErr_NormalizeException)(pyobj **type, pyobj **value, pyobj **tb);
	void (*PyErr_Clear)(void);
	int (*PyErr_GivenExceptionMatches)(pyobj *given, pyobj *exc);
	pyobj *(*PyObject_Str)(pyobj *o);
	pyobj *(*PyObject_GetAttrString)(pyobj *o, const char *name);
	pyobj *(*PyObject_CallObject)(pyobj *callable, pyobj *args);
	pyobj *(*PyUnicode_FromString)(const char *s);
	pyobj *(*PyUnicode_AsUTF8String)(pyobj *o);
	char *(*PyBytes_AsString)(pyobj *o);
	pyobj *(*Py_CompileString)(const char *src, const char *filename, int start);
	pyobj *(*PyImport_ExecCodeModule)(const char *name, pyobj *code);
	pyobj *(*PyMemoryView_FromMemory)(char *mem, py_ssize size, int flags);
	pyobj *(*PyLong_FromVoidPtr)(void *p);
	pyobj *(*PyLong_FromLongLong)(long long v);
	pyobj *(*PyList_New)(py_ssize n);
	int (*PyList_Append)(pyobj *list, pyobj *item);
	pyobj *(*Py_BuildValue)(const char *format, ...); /* no '#' formats: PY_SSIZE_T_CLEAN-proof */
	pyobj *none;                                      /* &_Py_NoneStruct */
};

struct pyrt_module {
	struct pyrt *rt;
	char path[PATH_MAX];
	pyobj *mod;
};

struct pyrt_fn {
	struct pyrt_module *m;
	char name[128];
	pyobj *fn;
};

struct pyrt {
	struct pyrt_interp ip;
	pthread_t thread; /* the one that opened it and holds the GIL */
	int opens;        /* pyrt_open calls not yet closed */
	pyobj *shim;      /* pyrt_shim.c's module */
	pyobj *fail;      /* shim.Fail: a user error, one line */
	pyobj *env;       /* shim.Env: what the machine lacks */
	char numpy[32];   /* versions pyrt_need found, "" before */
	char torch[64];
	int n_mods, n_fns;
	struct pyrt_module **mods;
	struct pyrt_fn **fns;
};

/* The table, filled by pyrt_open (pyrt_load.c). */
extern struct pyrt_api pyrt_py;

/* Turns the pending Python exception into d and clears it: shim.Fail is
 * AB_ERR_INPUT with its text, shim.Env AB_ERR_BACKEND, anything else
 * `otherwise` with what ("what: ExcType: message"). */
enum ab_rc pyrt_fail_pending(struct pyrt *rt, enum ab_rc otherwise, const char *what, struct ab_diag *d);

/* *result = shim.NAME(*args) (args: a tuple, stolen; NULL: none); on
 * failure *result is NULL and the code and d are pyrt_fail_pending's. */
enum ab_rc pyrt_shim_call(struct pyrt *rt, const char *name, pyobj *args, pyobj **result, enum ab_rc otherwise,
			  struct ab_diag *d);

/* A str object's UTF-8 text into buf (truncated); "" for NULL, a note
 * for what cannot be encoded (a lone surrogate). */
void pyrt_text(pyobj *s, char *buf, size_t len);

/* [item(v, 0), ..., item(v, n - 1)], a new list; NULL (an exception set)
 * when an item or the list cannot be made. */
pyobj *pyrt_list(const void *v, int n, pyobj *(*item)(const void *v, int i));

/* AB_ERR_INTERNAL unless called from the thread that opened rt. */
enum ab_rc pyrt_same_thread(const struct pyrt *rt, struct ab_diag *d);

/* LeakSanitizer and Python: CPython keeps most objects in arenas it maps
 * itself, which LSan does not scan, so whatever those objects point to
 * looks leaked when the process exits (the interpreter is never
 * finalised). In a sanitizer build every stretch of pyrt that runs Python
 * sits between pyrt_enter and pyrt_leave, which tell LSan to ignore what
 * this thread allocates meanwhile (__lsan_disable/enable); pyrt's own C
 * allocations are made outside them and stay checked. In other builds the
 * weak symbols are NULL and these do nothing. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static inline void pyrt_enter(void)
{
	if (__lsan_disable)
		__lsan_disable();
}

static inline void pyrt_leave(void)
{
	if (__lsan_enable)
		__lsan_enable();
}

/* The shim's source and the name its code carries (pyrt_shim.c). */
extern const char pyrt_shim_source[];
#define PYRT_SHIM_FILE "<abbench pyrt>"
#define PYRT_SHIM_MODULE "_abbench_pyrt"

#endif
