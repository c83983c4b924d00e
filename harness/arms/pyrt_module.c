/*
 * pyrt_module.c - a user's module from a file and a function of it
 * (pyrt.h). The shim does the Python side (load, function); this file
 * keeps each module and function once, so that two arms naming the same
 * file share one import, and a run imports a module once.
 */
#include "arms/pyrt_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool keep_module(struct pyrt *rt, struct pyrt_module *m)
{
	struct pyrt_module **grown = realloc(rt->mods, (size_t)(rt->n_mods + 1) * sizeof *grown);
	if (!grown)
		return false;
	grown[rt->n_mods++] = m;
	rt->mods = grown;
	return true;
}

static bool keep_function(struct pyrt *rt, struct pyrt_fn *f)
{
	struct pyrt_fn **grown = realloc(rt->fns, (size_t)(rt->n_fns + 1) * sizeof *grown);
	if (!grown)
		return false;
	grown[rt->n_fns++] = f;
	rt->fns = grown;
	return true;
}

enum ab_rc pyrt_import(struct pyrt *rt, const char *path, struct pyrt_module **out, struct ab_diag *d)
{
	char real[PATH_MAX];
	*out = NULL;
	enum ab_rc rc = pyrt_same_thread(rt, d);
	if (rc)
		return rc;
	if (path[0] != '/')
		return ab_fail(d, AB_ERR_INTERNAL, "python module '%s': not an absolute path", path);
	if (!realpath(path, real))
		snprintf(real, sizeof real, "%s", path);
	for (int i = 0; i < rt->n_mods; i++)
		if (strcmp(rt->mods[i]->path, real) == 0) {
			*out = rt->mods[i];
			return AB_OK;
		}
	struct pyrt_module *m = calloc(1, sizeof *m);
	if (!m)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python module");
	m->rt = rt;
	snprintf(m->path, sizeof m->path, "%s", real);
	pyrt_enter();
	rc = pyrt_shim_call(rt, "load", pyrt_py.Py_BuildValue("(s)", m->path), &m->mod, AB_ERR_INTERNAL, d);
	pyrt_leave();
	if (!rc && !keep_module(rt, m))
		rc = ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python module");
	if (rc) {
		pyrt_enter();
		if (m->mod)
			pyrt_py.Py_DecRef(m->mod);
		pyrt_leave();
		free(m);
		return rc;
	}
	*out = m;
	return AB_OK;
}

enum ab_rc pyrt_function(struct pyrt_module *m, const char *name, struct pyrt_fn **out, struct ab_diag *d)
{
	struct pyrt *rt = m->rt;
	*out = NULL;
	enum ab_rc rc = pyrt_same_thread(rt, d);
	if (rc)
		return rc;
	for (int i = 0; i < rt->n_fns; i++)
		if (rt->fns[i]->m == m && strcmp(rt->fns[i]->name, name) == 0) {
			*out = rt->fns[i];
			return AB_OK;
		}
	if (strlen(name) >= sizeof rt->fns[0]->name)
		return ab_fail(d, AB_ERR_INPUT, "'%s': function name '%.40s...' is too long", m->path, name);
	struct pyrt_fn *f = calloc(1, sizeof *f);
	if (!f)
		return ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python function");
	f->m = m;
	snprintf(f->name, sizeof f->name, "%s", name);
	pyrt_enter();
	rc = pyrt_shim_call(rt, "function", pyrt_py.Py_BuildValue("(Oss)", m->mod, name, m->path), &f->fn,
			    AB_ERR_INTERNAL, d);
	pyrt_leave();
	if (!rc && !keep_function(rt, f))
		rc = ab_fail(d, AB_ERR_NOMEM, "cannot allocate a python function");
	if (rc) {
		pyrt_enter();
		if (f->fn)
			pyrt_py.Py_DecRef(f->fn);
		pyrt_leave();
		free(f);
		return rc;
	}
	*out = f;
	return AB_OK;
}
