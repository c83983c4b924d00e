/*
 * cmd_sites.c - `abbench sites [FILE.ini ...]`: the registry, its variants
 * and on which backends each exists in this build, each site's tensors
 * (dtype, shape in axes, role); then the sites the files declare (a
 * scenario or a site file: [site NAME] sections, docs/SITES.md), checked
 * as a run would check them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "config/scenario.h"
#include "kernels/common/site.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"

/* How a built-in parameter is drawn (inputs.h), for the listing. */
static const char *param_text(enum site_param_dist p)
{
	switch (p) {
	case SITE_PARAM_MODULATION: return "  drawn normal(0, 0.5)";
	case SITE_PARAM_WEIGHT: return "  drawn 1 + normal(0, 0.1)";
	case SITE_PARAM_BIAS: return "  drawn normal(0, 0.1)";
	case SITE_PARAM_NONE: break;
	}
	return "";
}

/* One line per tensor: name (* when affine only), dtype, shape in the
 * site's axes, role. */
static void print_tensors(const struct site_desc *s)
{
	printf("  tensors:\n");
	for (int i = 0; i < s->n_tensors; i++) {
		const struct site_tensor *t = &s->tensors[i];
		char axes[SITE_MAX_RANK * SITE_AXIS_NAME_MAX + 8], name[64];
		site_tensor_axes(s, t, axes, sizeof axes);
		snprintf(name, sizeof name, "%s%s", t->name, t->affine_only ? "*" : "");
		printf("    %-10s %-4s  %-10s %s%s\n", name, site_dtype_name(t->dtype), axes[0] ? axes : "(scalar)",
		       site_role_name(t->role), t->role == SITE_IN_PARAM ? param_text(t->param) : "");
	}
}

/* One column per backend of the table, its name where the variant has
 * code for it in this build; "-" in the last column when it has none. */
static void print_backends(const struct site_variant *v)
{
	bool any = false;
	for (const struct backend_entry *e = backend_table; e->name; e++) {
		bool has = site_variant_impl(v, e->name) != NULL;
		bool last = !e[1].name;
		any = any || has;
		printf("%s%-*s", e == backend_table ? "" : " ", (int)strlen(e->name),
		       has ? e->name : last && !any ? "-" : "");
	}
}

#define SITES_FILES_MAX 16

/* The sites files declare: each file parsed (a scenario, or a site file
 * with no case), then its declared sites listed. */
static int declared_sites(const char *const *files, int n)
{
	for (int i = 0; i < n; i++) {
		struct scenario *scn = NULL;
		struct ab_diag d = { "" };
		enum ab_rc rc = scenario_parse_sites(files[i], &scn, &d);
		if (rc)
			return cli_exit_rc(rc, &d, "sites");
		for (int k = 0; k < scn->n_sites; k++) {
			const struct site_desc *s = &scn->sites[k]->desc;
			printf("%s  (%s)  declared at %s\n  %s\n", s->name, s->shape_help, s->declared_at,
			       s->summary[0] ? s->summary : "(no summary)");
			print_tensors(s);
			const struct scenario_site *ds = scn->sites[k];
			for (int j = 0, n_drawn = 0; j < ds->n_keys; j++)
				if (!strncmp(ds->keys[j].key, "input.", 6))
					printf("%s%s = %s", n_drawn++ ? ", " : "  inputs drawn: ", ds->keys[j].key + 6,
					       ds->keys[j].value);
			for (int j = 0; j < ds->n_keys; j++)
				if (!strncmp(ds->keys[j].key, "input.", 6)) {
					printf(" (the site's own; a case's input.NAME wins)\n");
					break;
				}
			printf("  arms: plugin, cubin or python arms (a declared site has no built-in variant); no float64 "
			       "reference\n\n");
		}
		scenario_free(scn);
	}
	return AB_EXIT_OK;
}

int cmd_sites(int argc, char **argv)
{
	const struct cli_option opts[] = { CLI_OPT_END };
	const struct cli_spec spec = {
		"sites", "[FILE.ini ...]",
		"list the registered sites, their variants and backends, and the sites FILE.ini declares",
		"Each site is printed with its shape rule (the axis letters its scenario shape takes,\n"
		"e.g. BxTxW), its tensors and its variants. The geometry a kernel, plugin or cubin arm\n"
		"sees (kernels/common/site.h: struct site_dims; include/abbench/plugin.h: struct\n"
		"abbench_dims) follows from the shape:\n"
		"  activations are contiguous [batch B, tokens T, width W] (a 2-D shape TxW has B = 1);\n"
		"  a LayerNorm normalises rows of row_len = N elements, so rows = B*T*W / N;\n"
		"  qk_layernorm's shape BxTxHxD has width W = H*D, row_len N = D and heads H = W / N;\n"
		"  every other site has row_len N = W and heads 1.\n"
		"Parameters (scale, shift, weight, bias, gate) are [W]; per-row statistics (mean, rstd)\n"
		"[rows]. A shape the site's rule refuses is an error naming the rule (FILE:LINE).\n"
		"A site FILE.ini declares (docs/SITES.md) is printed with its axes and its tensors'\n"
		"shapes as expressions of them; its arms see the case's shape per axis (abbench_call's\n"
		"shape and axes), row_len = its largest tensor's last axis, rows = its elements / row_len.",
		0, SITES_FILES_MAX, opts,
	};
	const char *pos[SITES_FILES_MAX];
	int n_pos;
	enum cli_result cr = cli_parse(&spec, argc, argv, pos, &n_pos);
	if (cr != CLI_OK)
		return cr == CLI_HELP_SHOWN ? cli_finish(0) : AB_EXIT_USAGE;

	for (const struct site_desc *const *p = site_registry; *p; p++) {
		const struct site_desc *s = *p;
		printf("%s  (%s)\n  %s\n", s->name, s->shape_help, s->summary);
		print_tensors(s);
		for (int v = 0; v < s->n_variants; v++) {
			const struct site_variant *var = &s->variants[v];
			printf("  %-13s backends: ", var->name);
			print_backends(var);
			printf("  %s%s\n", var->summary, var->byte_equal_expected ? "" : " (not byte-equal by design)");
		}
		printf("\n");
	}
	printf("* present only when a case sets affine = true\n");
	printf("fused is each site's measured winner; fused.<tuning> runs one tuning of it (on the backends listed; '-': not built)\n");
	if (n_pos) {
		printf("\n");
		int rc = declared_sites(pos, n_pos);
		if (rc != AB_EXIT_OK)
			return rc;
	}
	return cli_finish(0);
}
