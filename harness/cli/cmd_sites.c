/*
 * cmd_sites.c - `abbench sites`: the registry, its variants and on which
 * backends each exists in this build.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "kernels/common/site.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "common/diag.h"

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

int cmd_sites(int argc, char **argv)
{
	const struct cli_option opts[] = { CLI_OPT_END };
	const struct cli_spec spec = {
		"sites", NULL, "list the registered sites, their variants and backends",
		"Each site is printed with its shape rule (the axis letters its scenario shape takes,\n"
		"e.g. BxTxW), its tensors and its variants. The geometry a kernel, plugin or cubin arm\n"
		"sees (kernels/common/site.h: struct site_dims; include/abbench/plugin.h: struct\n"
		"abbench_dims) follows from the shape:\n"
		"  activations are contiguous [batch B, tokens T, width W] (a 2-D shape TxW has B = 1);\n"
		"  a LayerNorm normalises rows of row_len = N elements, so rows = B*T*W / N;\n"
		"  qk_layernorm's shape BxTxHxD has width W = H*D, row_len N = D and heads H = W / N;\n"
		"  every other site has row_len N = W and heads 1.\n"
		"Parameters (scale, shift, weight, bias, gate) are [W]; per-row statistics (mean, rstd)\n"
		"[rows]. A shape the site's rule refuses is an error naming the rule (FILE:LINE).",
		0, 0, opts,
	};
	const char *pos[1];
	int n_pos;
	enum cli_result cr = cli_parse(&spec, argc, argv, pos, &n_pos);
	if (cr != CLI_OK)
		return cr == CLI_HELP_SHOWN ? cli_finish(0) : AB_EXIT_USAGE;

	for (const struct site_desc *const *p = site_registry; *p; p++) {
		const struct site_desc *s = *p;
		printf("%s  (%s)\n  %s\n  tensors:", s->name, s->shape_help, s->summary);
		for (int i = 0; i < s->n_tensors; i++)
			printf(" %s%s", s->tensors[i].name, s->tensors[i].affine_only ? "*" : "");
		printf("\n");
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
	return cli_finish(0);
}
