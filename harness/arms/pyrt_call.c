/*
 * pyrt_call.c - fn(t, d) over abbench's buffers (pyrt.h).
 *
 * pyrt_bind hands the shim one tuple per tensor, (name, dtype, shape,
 * view, pointer, read_only): on the CPU the view is a memoryview of the
 * host buffer (PyMemoryView_FromMemory: no copy, no ownership), which the
 * shim turns into a numpy array; on CUDA the pointer alone, which the shim
 * turns into a torch tensor. The shim returns a Bound whose `call`
 * attribute is a closure of no arguments: calling it runs fn(t, d) and
 * its checks and returns None, or the error as one line. So a call from
 * C is one PyObject_CallObject and one pointer compare.
 */
#include "arms/pyrt_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pyrt_bound {
	struct pyrt *rt;
	pyobj *bound; /* shim.Bound */
	pyobj *call;  /* bound.call */
	bool cuda;
};

static const char *const dtype_names[PYRT_N_DTYPES] = { "bf16", "f16", "f32", "i32", "i64", "u8" };
static const int dtype_bytes[PYRT_N_DTYPES] = { 2, 2, 4, 4, 8, 1 };

const char *pyrt_dtype_name(enum pyrt_dtype dt)
{
	return (unsigned)dt < PYRT_N_DTYPES ? dtype_names[dt] : NULL;
}

static void drop(pyobj *o)
{
	if (o)
		pyrt_py.Py_DecRef(o);
}

/* ---- what the shim is given -------------------------------------------------- */

/* The tensor's size in bytes; false for a shape pyrt cannot describe. */
static bool tensor_bytes(const struct pyrt_tensor *t, int64_t *bytes)
{
	int64_t n = dtype_bytes[t->dtype];
	for (int i = 0; i < t->rank; i++) {
		if (t->shape[i] < 0 || (t->shape[i] && n > INT64_MAX / t->shape[i]))
			return false;
		n *= t->shape[i];
	}
	*bytes = n;
	return true;
}

static enum ab_rc check_tensors(const struct pyrt_tensor *t, int n, struct ab_diag *d)
{
	for (int i = 0; i < n; i++) {
		int64_t bytes;
		if (!t[i].name || (unsigned)t[i].dtype >= PYRT_N_DTYPES || t[i].rank < 0 || t[i].rank > PYRT_MAX_RANK ||
		    !tensor_bytes(&t[i], &bytes))
			return ab_fail(d, AB_ERR_INTERNAL, "python arm tensor %d ('%s'): bad name, dtype, rank or shape", i,
				       t[i].name ? t[i].name : "");
		for (int k = 0; k < i; k++)
			if (strcmp(t[k].name, t[i].name) == 0)
				return ab_fail(d, AB_ERR_INTERNAL, "python arm tensor '%s' given twice", t[i].name);
	}
	return AB_OK;
}

static pyobj *int_item(const void *v, int i)
{
	return pyrt_py.PyLong_FromLongLong((long long)((const int64_t *)v)[i]);
}

/* (name, dtype, [shape], memoryview or None, pointer or None, read_only) */
static pyobj *tensor_tuple(const struct pyrt_tensor *t, bool cuda)
{
	int64_t bytes = 0;
	tensor_bytes(t, &bytes);
	pyobj *shape = pyrt_list(t->shape, t->rank, int_item);
	pyobj *view = NULL, *ptr = NULL, *r = NULL;
	if (!t->data) {
		view = pyrt_py.none;
		ptr = pyrt_py.none;
		pyrt_py.Py_IncRef(view);
		pyrt_py.Py_IncRef(ptr);
	} else {
		view = cuda ? pyrt_py.none : pyrt_py.PyMemoryView_FromMemory(t->data, (py_ssize)bytes,
									     t->read_only ? PY_BUF_READ : PY_BUF_WRITE);
		if (cuda)
			pyrt_py.Py_IncRef(view);
		ptr = pyrt_py.PyLong_FromVoidPtr(t->data);
	}
	if (shape && view && ptr)
		r = pyrt_py.Py_BuildValue("(siOOOi)", t->name, (int)t->dtype, shape, view, ptr, (int)t->read_only);
	drop(shape);
	drop(view);
	drop(ptr);
	return r;
}

static pyobj *host_tensor(const void *t, int i)
{
	return tensor_tuple((const struct pyrt_tensor *)t + i, false);
}

static pyobj *device_tensor(const void *t, int i)
{
	return tensor_tuple((const struct pyrt_tensor *)t + i, true);
}

/* (name, value) */
static pyobj *named_item(const void *v, int i)
{
	const struct pyrt_int *p = (const struct pyrt_int *)v + i;
	return pyrt_py.Py_BuildValue("(sL)", p->name, (long long)p->value);
}

/* (name, site, axes, dims, eps, affine) */
static pyobj *case_tuple(const struct pyrt_case *c)
{
	pyobj *axes = pyrt_list(c->axes, c->n_axes, named_item), *dims = pyrt_list(c->dims, c->n_dims, named_item), *r = NULL;
	if (axes && dims)
		r = pyrt_py.Py_BuildValue("(ssOOdi)", c->name ? c->name : "", c->site ? c->site : "", axes, dims, c->eps,
					  (int)c->affine);
	drop(axes);
	drop(dims);
	return r;
}

/* shim.bind's arguments: (fn, name, file, tensors, case, device or None, stream or None) */
static pyobj *bind_args(struct pyrt_fn *fn, const struct pyrt_case *c, const struct pyrt_tensor *t, int n,
			const struct pyrt_target *on)
{
	bool cuda = on->device == PYRT_CUDA;
	pyobj *tensors = pyrt_list(t, n, cuda ? device_tensor : host_tensor), *kase = case_tuple(c), *args = NULL;
	pyobj *dev = cuda ? pyrt_py.PyLong_FromLongLong(on->cuda_device) : pyrt_py.none;
	pyobj *stream = cuda ? pyrt_py.PyLong_FromVoidPtr(on->stream) : pyrt_py.none;
	if (!cuda) {
		pyrt_py.Py_IncRef(dev);
		pyrt_py.Py_IncRef(stream);
	}
	if (tensors && kase && dev && stream)
		args = pyrt_py.Py_BuildValue("(OssOOOO)", fn->fn, fn->name, fn->m->path, tensors, kase, dev, stream);
	for (pyobj *o[] = { tensors, kase, dev, stream }, **p = o; p < o + 4; p++)
		drop(*p);
	return args;
}

/* ---- bind, call, check, unbind ------------------------------------------------- */

enum ab_rc pyrt_bind(struct pyrt_fn *fn, const struct pyrt_case *c, const struct pyrt_tensor *t, int n,
		     const struct pyrt_target *on, struct pyrt_bound **out, struct ab_diag *d)
{
	struct pyrt *rt = fn->m->rt;
	*out = NULL;
	enum ab_rc rc = pyrt_same_thread(rt, d);
	if (rc || (rc = check_tensors(t, n, d)))
		return rc;
	if (!(on->device == PYRT_CUDA ? rt->torch : rt->numpy)[0])
		return ab_fail(d, AB_ERR_INTERNAL, "pyrt_bind before pyrt_need(%s)", on->device == PYRT_CUDA ? "cuda" : "cpu");
	struct pyrt_bound *b = calloc(1, sizeof *b);
	if (!b)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python binding");
	*b = (struct pyrt_bound){ .rt = rt, .cuda = on->device == PYRT_CUDA };
	pyrt_enter();
	pyobj *args = bind_args(fn, c, t, n, on);
	if (!args)
		rc = pyrt_fail_pending(rt, AB_ERR_INTERNAL, "the python arm's arguments", d);
	else if (!(rc = pyrt_shim_call(rt, "bind", args, &b->bound, AB_ERR_INTERNAL, d)) &&
		 !(b->call = pyrt_py.PyObject_GetAttrString(b->bound, "call")))
		rc = pyrt_fail_pending(rt, AB_ERR_INTERNAL, "pyrt's Bound.call", d);
	if (rc)
		drop(b->bound);
	pyrt_leave();
	if (rc) {
		free(b);
		return rc;
	}
	*out = b;
	return AB_OK;
}

/* bound.name(): None is AB_OK, a str is the user's error (AB_ERR_INPUT),
 * an exception is pyrt_fail_pending's with `otherwise`. */
static enum ab_rc method(struct pyrt_bound *b, const char *name, enum ab_rc otherwise, struct ab_diag *d)
{
	char what[64], msg[AB_DIAG_MAX] = "";
	enum ab_rc rc = AB_OK;
	pyrt_enter();
	pyobj *f = pyrt_py.PyObject_GetAttrString(b->bound, name);
	pyobj *r = f ? pyrt_py.PyObject_CallObject(f, NULL) : NULL;
	drop(f);
	if (!r) {
		snprintf(what, sizeof what, "pyrt's Bound.%s", name);
		rc = pyrt_fail_pending(b->rt, otherwise, what, d);
	} else if (r != pyrt_py.none) {
		pyrt_text(r, msg, sizeof msg);
		rc = AB_ERR_INPUT;
	}
	drop(r);
	pyrt_leave();
	return rc == AB_ERR_INPUT && msg[0] ? ab_fail(d, rc, "%s", msg) : rc;
}

enum ab_rc pyrt_activate(struct pyrt_bound *b, struct ab_diag *d)
{
	enum ab_rc rc = pyrt_same_thread(b->rt, d);
	if (rc || !b->cuda)
		return rc;
	return method(b, "activate", AB_ERR_BACKEND, d);
}

enum ab_rc pyrt_call(struct pyrt_bound *b, struct ab_diag *d)
{
	char msg[AB_DIAG_MAX];
	if (!pthread_equal(pthread_self(), b->rt->thread))
		return pyrt_same_thread(b->rt, d);
	pyrt_enter();
	pyobj *r = pyrt_py.PyObject_CallObject(b->call, NULL);
	if (r == pyrt_py.none) {
		pyrt_py.Py_DecRef(r);
		pyrt_leave();
		return AB_OK;
	}
	enum ab_rc rc = AB_ERR_INPUT;
	if (!r) {
		rc = pyrt_fail_pending(b->rt, AB_ERR_INTERNAL, "pyrt's call of the python arm", d);
	} else {
		pyrt_text(r, msg, sizeof msg);
		pyrt_py.Py_DecRef(r);
	}
	pyrt_leave();
	return r ? ab_fail(d, rc, "%s", msg) : rc;
}

enum ab_rc pyrt_verify(struct pyrt_bound *b, struct ab_diag *d)
{
	enum ab_rc rc = pyrt_same_thread(b->rt, d);
	return rc ? rc : method(b, "verify", AB_ERR_INTERNAL, d);
}

enum ab_rc pyrt_unbind(struct pyrt_bound *b, struct ab_diag *d)
{
	if (!b)
		return AB_OK;
	enum ab_rc rc = pyrt_same_thread(b->rt, d);
	if (rc)
		return rc;
	pyrt_enter();
	drop(b->call); /* the closure holds t: it goes first */
	pyrt_leave();
	rc = method(b, "release", AB_ERR_INTERNAL, d);
	pyrt_enter();
	drop(b->bound);
	pyrt_leave();
	free(b);
	return rc;
}
