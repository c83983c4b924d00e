/*
 * pyrt_load.c - libpython into this process, once (pyrt.h): dlopen, the
 * table of stable-ABI functions, Py_InitializeEx, the shim; pyrt_need and
 * the error helpers the other pyrt files share (pyrt_api.h).
 *
 * The library is opened RTLD_NOW | RTLD_GLOBAL: extension modules (numpy,
 * torch) are not linked against libpython and resolve its symbols from
 * the global scope, as they do from the python executable. It is never
 * closed, and the interpreter never finalised (pyrt.h says why); what
 * pyrt_close frees is pyrt's own: its references, its modules' entries in
 * sys.modules, its memory.
 */
#include "arms/pyrt_api.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pyrt_api pyrt_py;

static struct pyrt the_rt;
static void *lib;                     /* the libpython loaded, never closed */
static char lib_path[PATH_MAX];
static wchar_t program_name[PATH_MAX]; /* Py_SetProgramName keeps the pointer */
static pthread_t py_thread;             /* the thread that initialised Python: it holds the GIL */
static bool py_ours;                    /* Python was initialised by pyrt */
static volatile sig_atomic_t stop_armed; /* shim.guard installed the stop signal's handler */

#define SYM(n, req) { #n, offsetof(struct pyrt_api, n), req }
static const struct {
	const char *name;
	size_t offset;
	bool required;
} syms[] = {
	SYM(Py_IsInitialized, true),   SYM(Py_InitializeEx, true),
	SYM(Py_GetVersion, true),      SYM(Py_SetProgramName, false),
	SYM(Py_IncRef, true),          SYM(Py_DecRef, true),
	SYM(PyErr_Fetch, true),
	SYM(PyErr_NormalizeException, true), SYM(PyErr_Clear, true),
	SYM(PyErr_GivenExceptionMatches, true), SYM(PyObject_Str, true),
	SYM(PyObject_GetAttrString, true), SYM(PyObject_CallObject, true),
	SYM(PyUnicode_FromString, true), SYM(PyUnicode_AsUTF8String, true),
	SYM(PyBytes_AsString, true),   SYM(Py_CompileString, true),
	SYM(PyImport_ExecCodeModule, true), SYM(PyMemoryView_FromMemory, true),
	SYM(PyLong_FromVoidPtr, true), SYM(PyLong_FromLongLong, true),
	SYM(PyList_New, true),         SYM(PyList_Append, true),
	SYM(Py_BuildValue, true),
	{ NULL, 0, false },
};

/* ---- helpers of every pyrt file ------------------------------------------------ */

enum ab_rc pyrt_same_thread(const struct pyrt *rt, struct ab_diag *d)
{
	if (pthread_equal(pthread_self(), rt->thread))
		return AB_OK;
	return ab_fail(d, AB_ERR_INTERNAL, "python called from another thread than the one that opened it (it holds the GIL)");
}

void pyrt_text(pyobj *s, char *buf, size_t len)
{
	pyobj *b = s ? pyrt_py.PyUnicode_AsUTF8String(s) : NULL;
	const char *t = b ? pyrt_py.PyBytes_AsString(b) : NULL;
	if (s && !b)
		pyrt_py.PyErr_Clear();
	snprintf(buf, len, "%s", t ? t : s ? "(a message that is not valid text)" : "");
	if (b)
		pyrt_py.Py_DecRef(b);
}

pyobj *pyrt_list(const void *v, int n, pyobj *(*item)(const void *v, int i))
{
	pyobj *list = pyrt_py.PyList_New(0);
	for (int i = 0; list && i < n; i++) {
		pyobj *x = item(v, i);
		if (!x || pyrt_py.PyList_Append(list, x) != 0) {
			if (x)
				pyrt_py.Py_DecRef(x);
			pyrt_py.Py_DecRef(list);
			return NULL;
		}
		pyrt_py.Py_DecRef(x);
	}
	return list;
}

/* "Kind: message" of an exception value, by the shim when it is loaded. */
static void exception_text(struct pyrt *rt, pyobj *v, char *buf, size_t len)
{
	pyobj *f = rt->shim ? pyrt_py.PyObject_GetAttrString(rt->shim, "text") : NULL;
	pyobj *args = f ? pyrt_py.Py_BuildValue("(O)", v) : NULL;
	pyobj *s = args ? pyrt_py.PyObject_CallObject(f, args) : NULL;
	if (!s) {
		pyrt_py.PyErr_Clear();
		s = pyrt_py.PyObject_Str(v);
		if (!s)
			pyrt_py.PyErr_Clear();
	}
	pyrt_text(s, buf, len);
	if (!buf[0])
		snprintf(buf, len, "an exception that cannot be printed");
	for (pyobj *o[] = { s, args, f }, **p = o; p < o + 3; p++)
		if (*p)
			pyrt_py.Py_DecRef(*p);
}

enum ab_rc pyrt_fail_pending(struct pyrt *rt, enum ab_rc otherwise, const char *what, struct ab_diag *d)
{
	pyobj *type = NULL, *value = NULL, *tb = NULL;
	char msg[AB_DIAG_MAX];
	pyrt_py.PyErr_Fetch(&type, &value, &tb);
	if (!type)
		return ab_fail(d, otherwise, "%s failed without a python exception", what);
	pyrt_py.PyErr_NormalizeException(&type, &value, &tb);
	/* Fail and Env carry a finished line; anything else is described. */
	enum ab_rc rc = otherwise;
	bool ours = true;
	if (rt->fail && pyrt_py.PyErr_GivenExceptionMatches(type, rt->fail))
		rc = AB_ERR_INPUT;
	else if (rt->env && pyrt_py.PyErr_GivenExceptionMatches(type, rt->env))
		rc = AB_ERR_BACKEND;
	else
		ours = false;
	if (ours) {
		pyobj *s = value ? pyrt_py.PyObject_Str(value) : NULL;
		if (!s)
			pyrt_py.PyErr_Clear();
		pyrt_text(s, msg, sizeof msg);
		if (s)
			pyrt_py.Py_DecRef(s);
	} else {
		exception_text(rt, value, msg, sizeof msg);
	}
	for (pyobj *o[] = { type, value, tb }, **p = o; p < o + 3; p++)
		if (*p)
			pyrt_py.Py_DecRef(*p);
	return ours ? ab_fail(d, rc, "%s", msg) : ab_fail(d, rc, "%s: %s", what, msg);
}

enum ab_rc pyrt_shim_call(struct pyrt *rt, const char *name, pyobj *args, pyobj **result, enum ab_rc otherwise,
			  struct ab_diag *d)
{
	char what[96];
	pyobj *f = pyrt_py.PyObject_GetAttrString(rt->shim, name);
	*result = f ? pyrt_py.PyObject_CallObject(f, args) : NULL;
	if (f)
		pyrt_py.Py_DecRef(f);
	if (args)
		pyrt_py.Py_DecRef(args);
	if (*result)
		return AB_OK;
	snprintf(what, sizeof what, "pyrt's %s.%s", PYRT_SHIM_MODULE, name);
	return pyrt_fail_pending(rt, otherwise, what, d);
}

/* shim.name(*args) for its side effect; the result dropped. */
static enum ab_rc shim_do(struct pyrt *rt, const char *name, pyobj *args, struct ab_diag *d)
{
	pyobj *r;
	enum ab_rc rc = pyrt_shim_call(rt, name, args, &r, AB_ERR_INTERNAL, d);
	if (r)
		pyrt_py.Py_DecRef(r);
	return rc;
}

/* ---- loading libpython ----------------------------------------------------------- */

static enum ab_rc load_symbols(const char *path, struct ab_diag *d)
{
	for (int i = 0; syms[i].name; i++) {
		void *p = dlsym(lib, syms[i].name);
		if (!p && syms[i].required)
			return ab_fail(d, AB_ERR_INPUT, "'%s' has no '%s': not a CPython 3 library with the stable ABI", path,
				       syms[i].name);
		memcpy((char *)&pyrt_py + syms[i].offset, &p, sizeof p);
	}
	pyrt_py.none = dlsym(lib, "_Py_NoneStruct");
	if (!pyrt_py.none)
		return ab_fail(d, AB_ERR_INPUT, "'%s' has no '_Py_NoneStruct': not a CPython 3 library", path);
	return AB_OK;
}

/* dlopen the library the interpreter named, and check its version is the
 * interpreter's ("3.11." opens "3.11.2 (main, ...)"). */
static enum ab_rc open_library(const struct pyrt_interp *ip, struct ab_diag *d)
{
	char want[32];
	lib = dlopen(ip->libpython, RTLD_NOW | RTLD_GLOBAL);
	if (!lib)
		return ab_fail(d, AB_ERR_INPUT, "cannot load libpython of python '%s': %s", ip->program, dlerror());
	enum ab_rc rc = load_symbols(ip->libpython, d);
	snprintf(want, sizeof want, "%d.%d.", ip->major, ip->minor);
	const char *have = rc ? "" : pyrt_py.Py_GetVersion();
	if (!rc && strncmp(have, want, strlen(want)) != 0)
		rc = ab_fail(d, AB_ERR_INPUT, "'%s' is python %.20s, but python '%s' is %d.%d.%d", ip->libpython, have,
			     ip->program, ip->major, ip->minor, ip->micro);
	if (rc) {
		/* nothing of it ran: it may go, so that another interpreter can come */
		dlclose(lib);
		lib = NULL;
		return rc;
	}
	snprintf(lib_path, sizeof lib_path, "%s", ip->libpython);
	return AB_OK;
}

/* Py_InitializeEx(0): no signal handlers, abbench has its own. The
 * program name (the interpreter's own path) lets Python find its prefix
 * and a venv's pyvenv.cfg as the interpreter itself does. */
static enum ab_rc initialise(const struct pyrt_interp *ip, struct ab_diag *d)
{
	if (pyrt_py.Py_IsInitialized())
		return ab_fail(d, AB_ERR_INTERNAL, "python is already initialised in this process by someone else");
	const char *exe = ip->executable[0] ? ip->executable : ip->program;
	if (pyrt_py.Py_SetProgramName && mbstowcs(program_name, exe, PATH_MAX - 1) != (size_t)-1)
		pyrt_py.Py_SetProgramName(program_name);
	pyrt_py.Py_InitializeEx(0);
	if (!pyrt_py.Py_IsInitialized())
		return ab_fail(d, AB_ERR_BACKEND, "python '%s' did not initialise", exe);
	py_ours = true;
	py_thread = pthread_self();
	return AB_OK;
}

/* ---- the shim ---------------------------------------------------------------------- */

static pyobj *path_item(const void *path, int i)
{
	return pyrt_py.PyUnicode_FromString(((char *const *)path)[i]);
}

/* Compiles and runs the shim, keeps Fail and Env, and calls init. */
static enum ab_rc load_shim(struct pyrt *rt, struct ab_diag *d)
{
	pyobj *code = pyrt_py.Py_CompileString(pyrt_shim_source, PYRT_SHIM_FILE, PY_FILE_INPUT);
	rt->shim = code ? pyrt_py.PyImport_ExecCodeModule(PYRT_SHIM_MODULE, code) : NULL;
	if (code)
		pyrt_py.Py_DecRef(code);
	if (!rt->shim)
		return pyrt_fail_pending(rt, AB_ERR_INTERNAL, "pyrt's shim", d);
	rt->fail = pyrt_py.PyObject_GetAttrString(rt->shim, "Fail");
	rt->env = rt->fail ? pyrt_py.PyObject_GetAttrString(rt->shim, "Env") : NULL;
	if (!rt->env)
		return pyrt_fail_pending(rt, AB_ERR_INTERNAL, "pyrt's shim", d);
	pyobj *path = pyrt_list(rt->ip.path, rt->ip.n_path, path_item);
	pyobj *args = path ? pyrt_py.Py_BuildValue("(sO)", rt->ip.executable, path) : NULL;
	if (path)
		pyrt_py.Py_DecRef(path);
	if (!args)
		return pyrt_fail_pending(rt, AB_ERR_INTERNAL, "sys.path of the interpreter", d);
	enum ab_rc rc = shim_do(rt, "init", args, d);
	if (!rc && py_ours && !stop_armed && !(rc = shim_do(rt, "guard", pyrt_py.Py_BuildValue("(i)", PYRT_STOP_SIGNAL), d)))
		stop_armed = 1;
	return rc;
}

/* ---- open and close ------------------------------------------------------------------ */

static void release_all(struct pyrt *rt)
{
	pyrt_enter();
	for (int i = 0; i < rt->n_fns; i++) {
		pyrt_py.Py_DecRef(rt->fns[i]->fn);
		free(rt->fns[i]);
	}
	for (int i = 0; i < rt->n_mods; i++) {
		shim_do(rt, "unload", pyrt_py.Py_BuildValue("(O)", rt->mods[i]->mod), NULL);
		pyrt_py.Py_DecRef(rt->mods[i]->mod);
		free(rt->mods[i]);
	}
	free(rt->fns);
	free(rt->mods);
	if (rt->shim)
		shim_do(rt, "flush", NULL, NULL);
	for (pyobj *o[] = { rt->fail, rt->env, rt->shim }, **p = o; p < o + 3; p++)
		if (*p)
			pyrt_py.Py_DecRef(*p);
	pyrt_leave();
	pyrt_interp_free(&rt->ip);
	memset(rt, 0, sizeof *rt);
}

/* A later open: the interpreter named must be the one loaded. */
static enum ab_rc reopen(const struct pyrt_interp *ip, struct ab_diag *d)
{
	if (strcmp(ip->libpython, lib_path) == 0)
		return AB_OK;
	return ab_fail(d, AB_ERR_INPUT, "python '%s' (%s) cannot be loaded: this process already runs '%s' "
		       "(one interpreter per process)", ip->program, ip->libpython, lib_path);
}

enum ab_rc pyrt_open(const struct pyrt_options *opt, struct pyrt **out, struct ab_diag *d)
{
	struct pyrt_interp ip;
	*out = NULL;
	if (py_ours && !pthread_equal(pthread_self(), py_thread))
		return ab_fail(d, AB_ERR_INTERNAL, "python was started by another thread of this process (it holds the GIL)");
	enum ab_rc rc = pyrt_find(opt ? opt->python : NULL, opt ? opt->timeout_ms : 0, &ip, d);
	if (rc)
		return rc;
	if ((rc = lib ? reopen(&ip, d) : open_library(&ip, d)) != AB_OK) {
		pyrt_interp_free(&ip);
		return rc;
	}
	if (the_rt.opens) {
		pyrt_interp_free(&ip);
		the_rt.opens++;
		*out = &the_rt;
		return AB_OK;
	}
	the_rt.ip = ip;
	the_rt.thread = pthread_self();
	pyrt_enter();
	if (!pyrt_py.Py_IsInitialized())
		rc = initialise(&the_rt.ip, d);
	rc = rc ? rc : load_shim(&the_rt, d);
	pyrt_leave();
	if (rc) {
		release_all(&the_rt);
		return rc;
	}
	the_rt.opens = 1;
	*out = &the_rt;
	return AB_OK;
}

void pyrt_close(struct pyrt *rt)
{
	if (!rt || rt->opens <= 0 || pyrt_same_thread(rt, NULL) != AB_OK)
		return;
	if (--rt->opens == 0)
		release_all(rt);
}

const struct pyrt_interp *pyrt_interp(const struct pyrt *rt)
{
	return &rt->ip;
}

/* ---- what the arrays need ---------------------------------------------------------------- */

/* What a device's arrays need, as Python that exits 0 when this
 * interpreter has it (pyrt_find_other asks other interpreters). */
static const char *need_check(enum pyrt_device dev)
{
	return dev == PYRT_CUDA ? "import sys, numpy, torch; sys.exit(0 if torch.cuda.is_available() else 3)"
				: "import numpy";
}

/* shim.need_*(other): the message again, naming another interpreter of the
 * machine that has what this one lacks, when there is one (the user need
 * not know ABBENCH_PYTHON to be told which to pick). */
static enum ab_rc need_with_hint(struct pyrt *rt, enum pyrt_device dev, enum ab_rc rc, struct ab_diag *d)
{
	const char *const skip[] = { rt->ip.program, rt->ip.executable, NULL };
	char other[PATH_MAX];
	pyobj *v = NULL;
	if (rc != AB_ERR_BACKEND || !pyrt_find_other(need_check(dev), skip, other, sizeof other))
		return rc;
	rc = pyrt_shim_call(rt, dev == PYRT_CUDA ? "need_torch" : "need_numpy", pyrt_py.Py_BuildValue("(s)", other),
			    &v, AB_ERR_BACKEND, d);
	if (v) /* it imports now after all */
		pyrt_py.Py_DecRef(v);
	return rc ? rc : AB_ERR_BACKEND;
}

enum ab_rc pyrt_need(struct pyrt *rt, enum pyrt_device dev, struct ab_diag *d)
{
	enum ab_rc rc = pyrt_same_thread(rt, d);
	char *version = dev == PYRT_CUDA ? rt->torch : rt->numpy;
	size_t len = dev == PYRT_CUDA ? sizeof rt->torch : sizeof rt->numpy;
	if (rc || version[0])
		return rc;
	pyobj *v;
	pyrt_enter();
	rc = pyrt_shim_call(rt, dev == PYRT_CUDA ? "need_torch" : "need_numpy", NULL, &v, AB_ERR_BACKEND, d);
	if (rc)
		rc = need_with_hint(rt, dev, rc, d);
	if (!rc) {
		pyrt_text(v, version, len);
		pyrt_py.Py_DecRef(v);
	}
	pyrt_leave();
	if (rc)
		return rc;
	if (!version[0])
		snprintf(version, len, "?");
	return AB_OK;
}

void pyrt_describe(const struct pyrt *rt, char *buf, size_t len)
{
	const struct pyrt_interp *ip = &rt->ip;
	snprintf(buf, len, "python %d.%d.%d (%s; %s)%s%s%s%s", ip->major, ip->minor, ip->micro,
		 ip->executable[0] ? ip->executable : ip->program, ip->libpython, rt->numpy[0] ? ", numpy " : "",
		 rt->numpy, rt->torch[0] ? ", torch " : "", rt->torch);
}

void pyrt_versions(struct pyrt *rt, char *buf, size_t len)
{
	pyobj *v = NULL;
	struct ab_diag d;
	buf[0] = '\0';
	if (pyrt_same_thread(rt, NULL) != AB_OK)
		return;
	pyrt_enter();
	if (pyrt_shim_call(rt, "versions", NULL, &v, AB_ERR_INTERNAL, &d) == AB_OK) {
		pyrt_text(v, buf, len);
		pyrt_py.Py_DecRef(v);
	}
	pyrt_leave();
}

/* Async-signal-safe: pthread_kill is, and the thread and flag are set
 * once, before the first call. */
void pyrt_stop_call(void)
{
	if (stop_armed)
		pthread_kill(py_thread, PYRT_STOP_SIGNAL);
}
