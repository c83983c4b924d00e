/*
 * scenario_sweep.c - one dimension of a case's shape in braces
 * (scenario_int.h, scenario.h has the format): `1x{256,1024,4096}x4096`
 * or a range `1x{256:16384:x2}x4096`. The shape key keeps the values in
 * the parse context; once the file is read every value is checked against
 * the site's shape rule and the case is replaced, in place and in value
 * order, by one case per value named `NAME[T=1024]`.
 */
#include "config/scenario_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_DIM_MAX ((int64_t)1 << 31) /* site_parse_shape's largest dimension */

/* One positive integer at *p (advanced past it), at most SWEEP_DIM_MAX. */
static bool sweep_number(const char **p, int64_t *out)
{
	int64_t v = 0;
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > SWEEP_DIM_MAX)
			return false;
	*p = s;
	*out = v;
	return v > 0;
}

static enum ab_rc sweep_add(struct pctx *c, struct sweep *sw, int64_t v, const char *text)
{
	for (int i = 0; i < sw->n; i++)
		if (sw->v[i] == v)
			return scenario_perr(c, c->line, "shape", "sweep '%s' lists %lld twice", text, (long long)v);
	if (sw->n == SCENARIO_SWEEP_MAX)
		return scenario_perr(c, c->line, "shape", "sweep '%s' has more than %d values (the limit of one sweep)", text,
			    SCENARIO_SWEEP_MAX);
	sw->v[sw->n++] = v;
	return AB_OK;
}

/* "256,1024,4096" */
static enum ab_rc sweep_list(struct pctx *c, const char *in, struct sweep *sw, const char *text)
{
	for (const char *p = in;; p++) {
		int64_t v;
		if (!sweep_number(&p, &v) || (*p != ',' && *p != '\0'))
			return scenario_perr(c, c->line, "shape", "sweep '%s' is not a list of positive integers, as in {256,1024}",
				    text);
		if (sweep_add(c, sw, v, text) != AB_OK || *p == '\0')
			return c->rc;
	}
}

/* "256:16384:x2" (times 2) or "256:1024:+256" (plus 256): lo, then every
 * step while the value stays <= hi. */
static enum ab_rc sweep_range(struct pctx *c, const char *in, struct sweep *sw, const char *text)
{
	int64_t lo, hi, step;
	const char *p = in;
	char op;
	if (!sweep_number(&p, &lo) || *p++ != ':' || !sweep_number(&p, &hi) || *p++ != ':' ||
	    ((op = *p++) != 'x' && op != '+') || !sweep_number(&p, &step) || *p)
		return scenario_perr(c, c->line, "shape", "sweep '%s' is not a range LOW:HIGH:xFACTOR or LOW:HIGH:+STEP, as in "
			    "{256:16384:x2}", text);
	if (lo > hi)
		return scenario_perr(c, c->line, "shape", "sweep '%s' starts above its end", text);
	if (op == 'x' && step < 2)
		return scenario_perr(c, c->line, "shape", "sweep '%s' multiplies by %lld: the factor must be at least 2", text,
			    (long long)step);
	for (int64_t v = lo; v <= hi; v = op == 'x' ? v * step : v + step)
		if (sweep_add(c, sw, v, text) != AB_OK)
			return c->rc;
	return AB_OK;
}

/* The dimension at open ('{') of val: its index, and the braces' text
 * checked to be a whole dimension. */
static enum ab_rc sweep_parse(struct pctx *c, const char *val, const char *open, struct sweep *sw)
{
	const char *close = strchr(open, '}');
	char inner[256];
	if (!close)
		return scenario_perr(c, c->line, "shape", "'%s' opens a sweep with '{' and never closes it", val);
	if (strchr(close + 1, '{') || memchr(open + 1, '{', (size_t)(close - open - 1)))
		return scenario_perr(c, c->line, "shape", "'%s' sweeps more than one dimension (one per case)", val);
	if ((open != val && open[-1] != 'x') || (close[1] != '\0' && close[1] != 'x'))
		return scenario_perr(c, c->line, "shape", "'%s': a sweep in braces must be a whole dimension, as in 1x{256,1024}x4096",
			    val);
	snprintf(inner, sizeof inner, "%.*s", (int)(close - open - 1), open + 1);
	sw->dim = 0;
	for (const char *p = val; p < open; p++)
		sw->dim += *p == 'x';
	sw->n = 0;
	return strchr(inner, ':') ? sweep_range(c, inner, sw, inner) : sweep_list(c, inner, sw, inner);
}

static enum ab_rc shape_err(struct pctx *c, const struct key_def *k, const char *val)
{
	return scenario_perr(c, c->line, k->name, "'%s' is not a shape (1 to %d positive dimensions joined by 'x', as in %s)",
		    val, SITE_MAX_RANK, strchr(val, '{') ? "1x{256:16384:x2}x4096" : "1x4096x4096");
}

/* A plain shape, or a swept one: the case keeps the first value in its
 * shape, the sweep keeps them all. */
enum ab_rc scenario_sweep_set_shape(struct pctx *c, const struct key_def *k, void *field, const char *val)
{
	const char *open = strchr(val, '{');
	struct sweep *sw = &c->sweeps[c->cur];
	char first[256];
	if (!open) {
		sw->dim = -1;
		return site_parse_shape(val, field) ? AB_OK : shape_err(c, k, val);
	}
	if (sweep_parse(c, val, open, sw) != AB_OK)
		return c->rc;
	snprintf(first, sizeof first, "%.*s%lld%s", (int)(open - val), val, (long long)sw->v[0], strchr(open, '}') + 1);
	return site_parse_shape(first, field) ? AB_OK : shape_err(c, k, val);
}

/* ---- expanding sweeps ------------------------------------------------------ */

/* Every value of case i's sweep against the site's shape rule (the case's
 * own shape holds the first), and the length of each expanded name. */
enum ab_rc scenario_sweep_check(struct pctx *c, int i)
{
	const struct scenario_case *cs = &c->scn->cases[i];
	const struct sweep *sw = &c->sweeps[i];
	int line = scenario_keys_line(&c->cscope[i], scenario_keys_case, "shape");
	char axis[8], err[256], shape[96], name[128];
	site_axis_name(cs->site, sw->dim, axis, sizeof axis);
	for (int v = 0; v < sw->n; v++) {
		struct site_shape sh = cs->shape;
		struct site_dims dims;
		sh.dim[sw->dim] = sw->v[v];
		err[0] = '\0';
		if (!site_geometry(cs->site, &sh, &dims, err, sizeof err)) {
			site_format_shape(&sh, shape, sizeof shape);
			return scenario_perr(c, line, "shape", "site '%s' rejects '%s' (%s=%lld of the sweep): %s", cs->site->name,
				    shape, axis, (long long)sw->v[v], err);
		}
		int n = snprintf(name, sizeof name, "%s[%s=%lld]", cs->name, axis, (long long)sw->v[v]);
		if (n >= SCENARIO_NAME_MAX)
			return scenario_perr(c, cs->line, NULL, "[case %s]: expanded case name '%s' is %d characters long, at most %d "
				    "allowed (shorten the case name)", cs->name, name, n, SCENARIO_NAME_MAX - 1);
	}
	return AB_OK;
}

enum ab_rc scenario_sweep_check_invariance(struct pctx *c, int i)
{
	const struct scenario_case *cs = &c->scn->cases[i];
	const struct sweep *sw = &c->sweeps[i];
	int line = scenario_keys_line(&c->cscope[i], scenario_keys_case, "invariance");
	char axis[8], before[8];
	if (cs->invariance != SCENARIO_INVARIANCE_ROWS)
		return AB_OK;
	if (sw->dim < 0)
		return scenario_perr(c, line, "invariance", "case '%s' sweeps no dimension: invariance = rows compares row r "
				     "across a sweep's cases (shape = 1x{1,17,4096}x4096)", cs->name);
	site_axis_name(cs->site, sw->dim, axis, sizeof axis);
	for (int t = 0; t < cs->site->n_tensors; t++) {
		const struct site_tensor *ts = &cs->site->tensors[t];
		for (int k = 0; k < ts->shape.rank && ts->shape.axis[k] != sw->dim; k++) {
			int64_t ext = cs->shape.dim[ts->shape.axis[k]];
			if (ext == 1 || !memchr(ts->shape.axis + k, sw->dim, (size_t)(ts->shape.rank - k)))
				continue;
			site_axis_name(cs->site, ts->shape.axis[k], before, sizeof before);
			return scenario_perr(c, line, "invariance", "tensor '%s' has axis %s = %lld before the swept axis %s: "
					     "its row r would not be a prefix the sweep's cases share (make %s 1, or sweep "
					     "the outermost axis)", ts->name, before, (long long)ext, axis, before);
		}
	}
	return AB_OK;
}

/* The cases the scenario will have once expanded; an error past
 * SCENARIO_CASES_MAX, at the case that crosses it. */
static enum ab_rc count_expanded(struct pctx *c, int *total)
{
	*total = 0;
	for (int i = 0; i < c->scn->n_cases; i++) {
		const struct sweep *sw = &c->sweeps[i];
		*total += sw->dim >= 0 ? sw->n : 1;
		if (*total > SCENARIO_CASES_MAX)
			return scenario_perr(c, sw->dim >= 0 ? scenario_keys_line(&c->cscope[i], scenario_keys_case, "shape") : c->scn->cases[i].line,
				    NULL, "[case %s]: the scenario expands to more than %d cases (the limit)",
				    c->scn->cases[i].name, SCENARIO_CASES_MAX);
	}
	return AB_OK;
}

/* Case i's sweep value v as a case of its own, "NAME[T=1024]". */
static void expanded_case(const struct scenario_case *base, const struct sweep *sw, int v, struct scenario_case *out)
{
	*out = *base;
	out->shape.dim[sw->dim] = sw->v[v];
	site_geometry(base->site, &out->shape, &out->dims, NULL, 0); /* checked by scenario_sweep_check */
	site_axis_name(base->site, sw->dim, out->axis, sizeof out->axis);
	out->axis_value = sw->v[v];
	snprintf(out->sweep, sizeof out->sweep, "%s", base->name);
	char name[128]; /* fits out->name: scenario_sweep_check said so */
	snprintf(name, sizeof name, "%s[%s=%lld]", base->name, out->axis, (long long)sw->v[v]);
	snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, name);
}

/* Replaces every swept case, in place, by one case per value. */
enum ab_rc scenario_sweep_expand(struct pctx *c)
{
	struct scenario *s = c->scn;
	int total, k = 0;
	bool any = false;
	for (int i = 0; i < s->n_cases; i++)
		any = any || c->sweeps[i].dim >= 0;
	if (count_expanded(c, &total) != AB_OK || !any)
		return c->rc;
	struct scenario_case *out = calloc((size_t)total, sizeof *out);
	if (!out)
		return scenario_nomem(c);
	for (int i = 0; i < s->n_cases; i++) {
		const struct sweep *sw = &c->sweeps[i];
		if (sw->dim < 0)
			out[k++] = s->cases[i];
		for (int v = 0; sw->dim >= 0 && v < sw->n; v++)
			expanded_case(&s->cases[i], sw, v, &out[k++]);
	}
	free(s->cases);
	s->cases = out;
	s->n_cases = total;
	return AB_OK;
}
