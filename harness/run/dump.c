/*
 * dump.c - `run --dump DIR`: tensors as .npy files and a JSON manifest.
 */
#include "run/dump.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outfile.h"
#include "run/npy.h"

/* Whether dir holds anything besides "." and "..". */
static bool dir_has_entries(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	bool any = false;
	while (dp && !any && (e = readdir(dp)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (dp)
		closedir(dp);
	return any;
}

enum ab_rc dump_prepare(const char *dir, bool *created, struct ab_diag *d)
{
	struct stat sb;
	*created = mkdir(dir, 0777) == 0;
	if (!*created && errno != EEXIST)
		return ab_fail(d, AB_ERR_IO, "cannot create dump directory '%s': %s", dir, strerror(errno));
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return ab_fail(d, AB_ERR_USAGE, "dump path '%s' is not a directory", dir);
	if (access(dir, W_OK) != 0)
		return ab_fail(d, AB_ERR_IO, "dump directory '%s' is not writable: %s", dir, strerror(errno));
	if (dir_has_entries(dir))
		return ab_fail(d, AB_ERR_USAGE,
			       "dump directory '%s' is not empty: give a new or empty directory (one run's files are "
			       "never mixed with another's)",
			       dir);
	return AB_OK;
}

/* The .npy type of each site dtype: bf16 as its raw bits. */
static const enum npy_dtype npy_of[SITE_N_DTYPES] = {
	[SITE_BF16] = NPY_U2, [SITE_F32] = NPY_F4, [SITE_F16] = NPY_F2,
	[SITE_I32] = NPY_I4,  [SITE_I64] = NPY_I8, [SITE_U8] = NPY_U1,
};

enum ab_rc dump_tensor(const char *dir, const struct case_plan *p, int tensor_index, const char *file_stem,
		       const void *data, struct ab_diag *d)
{
	char path[4096];
	const struct case_plan_tensor *pt = &p->tensor[tensor_index];
	snprintf(path, sizeof path, "%s/%s", dir, p->c->name);
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		return ab_fail(d, AB_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
	snprintf(path, sizeof path, "%s/%s/%s.npy", dir, p->c->name, file_stem);
	return npy_write(path, data, npy_of[pt->t->dtype], pt->rank, pt->shape, d);
}

/* Case and tensor names are [A-Za-z0-9_.-], so they need no JSON escaping;
 * the scenario name and input description are escaped anyway. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void manifest_slot(FILE *f, const struct results_slot *sl, const struct case_plan *p)
{
	uint32_t writes = p->arm[sl->arm == 'b'].writes;
	fprintf(f, "        {\"slot\": \"%s\", \"arm\": \"%c\", \"variant\": \"%s\", \"files\": {", sl->label, sl->arm,
		sl->variant);
	bool first = true;
	for (int i = 0; i < p->n_tensors; i++) {
		if (!(writes & SITE_IO(i)))
			continue;
		const char *name = p->tensor[i].t->name;
		char path[512];
		snprintf(path, sizeof path, "%s/%s_%s_%s.npy", p->c->name, sl->label, sl->variant, name);
		fprintf(f, "%s\"%s\": \"%s\"", first ? "" : ", ", name, path);
		first = false;
	}
	fprintf(f, "}, \"md5\": {");
	for (int o = 0; o < sl->n_outputs; o++)
		fprintf(f, "%s\"%s\": \"%s\"", o ? ", " : "", sl->outputs[o].tensor, sl->outputs[o].md5);
	fprintf(f, "}}");
}

/* Case c of the run, planned p: its inputs' files and every tensor's
 * dtype from the plan, each arm's first slot's files from what the plan
 * says that arm writes. */
static void manifest_case(FILE *f, const struct results_case *c, const struct case_plan *p)
{
	fprintf(f, "    {\"name\": \"%s\", \"site\": \"%s\", \"shape\": \"%s\", \"eps\": %.9g, \"affine\": %s, ",
		c->name, c->site, c->shape, c->eps, c->affine ? "true" : "false");
	fprintf(f, "\"input\": ");
	json_string(f, c->input);
	fprintf(f, ",\n     \"inputs\": {");
	bool first = true;
	for (int i = 0; i < p->n_tensors; i++) {
		const struct case_plan_tensor *pt = &p->tensor[i];
		if (!pt->input || !pt->present)
			continue;
		fprintf(f, "%s\"%s\": \"%s/in_%s.npy\"", first ? "" : ", ", pt->t->name, c->name, pt->t->name);
		first = false;
	}
	fprintf(f, "},\n     \"dtypes\": {");
	for (int i = 0; i < p->n_tensors; i++)
		fprintf(f, "%s\"%s\": \"%s\"", i ? ", " : "", p->tensor[i].t->name, p->tensor[i].dtype);
	fprintf(f, "},\n     \"slots\": [\n");
	int written = 0;
	for (int k = 0; k < c->n_slots; k++) {
		bool first_of_arm = true;
		for (int q = 0; q < k; q++)
			first_of_arm = first_of_arm && c->slots[q].arm != c->slots[k].arm;
		if (!first_of_arm)
			continue;
		fprintf(f, "%s", written++ ? ",\n" : "");
		manifest_slot(f, &c->slots[k], p);
	}
	fprintf(f, "\n     ]}");
}

enum ab_rc dump_manifest(const char *dir, const struct results_run *r, const struct case_plan *plans, int n_plans,
			 struct ab_diag *d)
{
	char path[4096];
	struct outfile of;
	for (int i = 0; i < r->n_cases; i++)
		if (r->cases[i].ordinal < 0 || r->cases[i].ordinal >= n_plans)
			return ab_fail(d, AB_ERR_INTERNAL, "case '%s' has no plan (its place %d of %d cases)", r->cases[i].name,
				       r->cases[i].ordinal, n_plans);
	if (snprintf(path, sizeof path, "%s/manifest.json", dir) >= (int)sizeof path)
		return ab_fail(d, AB_ERR_USAGE, "dump path too long '%.64s...'", dir);
	enum ab_rc rc = outfile_open(&of, path, d);
	if (rc)
		return rc;
	FILE *f = of.f;
	fprintf(f, "{\n  \"format\": \"abbench-dump-1\",\n  \"run_id\": %lld,\n  \"scenario\": ", (long long)r->id);
	json_string(f, r->scenario_name);
	fprintf(f, ",\n  \"backend\": \"%s\",\n  \"bf16_storage\": \"<u2 raw bits\",\n  \"cases\": [\n", r->backend);
	for (int i = 0; i < r->n_cases; i++) {
		fprintf(f, "%s", i ? ",\n" : "");
		manifest_case(f, &r->cases[i], &plans[r->cases[i].ordinal]);
	}
	fprintf(f, "\n  ]\n}\n");
	return outfile_commit(&of, d);
}
