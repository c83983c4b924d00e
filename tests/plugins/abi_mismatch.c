/*
 * abi_mismatch.c - a plugin built against a plugin ABI version abbench
 * does not speak (its table says 999): abbench must refuse it by name.
 */
#include "abbench/plugin.h"

static int never(const struct abbench_call *call)
{
	return abbench_fail(call, ABBENCH_ERR, "must never be called");
}

static const struct abbench_arm arms[] = {
	{ "rga_exact", "residual_gate_add", NULL, NULL, never, never, NULL },
};

static const struct abbench_plugin table = { 999u, "abi_mismatch", 1, arms };

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version);

ABBENCH_PLUGIN_EXPORT const struct abbench_plugin *abbench_plugin_entry(uint32_t harness_abi_version)
{
	(void)harness_abi_version;
	return &table;
}
