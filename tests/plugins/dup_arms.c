/*
 * dup_arms.c - a plugin whose table names one arm twice (entries 1 and 3):
 * abbench must refuse the table naming both entries, not run whichever
 * comes last (issue 19, row 13).
 */
#include "abbench/plugin.h"

static int never(const struct abbench_call *call)
{
	return abbench_fail(call, ABBENCH_ERR, "must never be called");
}

static const struct abbench_arm arms[] = {
	{ "rga_exact", "residual_gate_add", "the first", NULL, never, never, NULL },
	{ "rga_other", "residual_gate_add", NULL, NULL, never, never, NULL },
	{ "rga_exact", "residual_gate_add", "the second, same name", NULL, never, never, NULL },
};

static const struct abbench_plugin table = { ABBENCH_PLUGIN_ABI_VERSION, "dup_arms", 3, arms };

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &table;
}
