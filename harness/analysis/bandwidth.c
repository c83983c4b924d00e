/*
 * bandwidth.c - GB/s of an arm and its share of the copy bandwidth (see
 * bandwidth.h).
 */
#include "analysis/bandwidth.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

struct bandwidth_ref bandwidth_copy(const struct results_run *r, double profile_gbps, const char *profile)
{
	struct bandwidth_ref ref = { NAN, BANDWIDTH_NONE, "" };
	if (isfinite(profile_gbps) && profile_gbps > 0) {
		ref.gbps = profile_gbps;
		ref.source = BANDWIDTH_PROFILE;
		snprintf(ref.profile, sizeof ref.profile, "%s", profile ? profile : "");
	} else if (isfinite(r->device.copy_gbps) && r->device.copy_gbps > 0) {
		ref.gbps = r->device.copy_gbps;
		ref.source = BANDWIDTH_MEASURED;
	}
	return ref;
}

struct bandwidth_arm bandwidth_arm(int64_t bytes, double median_ns, const struct bandwidth_ref *copy)
{
	struct bandwidth_arm a = { NAN, NAN, NAN };
	if (bytes <= 0)
		return a;
	a.bytes = (double)bytes;
	if (isfinite(median_ns) && median_ns > 0)
		a.gbps = a.bytes / median_ns;
	if (copy->source != BANDWIDTH_NONE)
		a.pct_copy = 100 * a.gbps / copy->gbps;
	return a;
}

const char *bandwidth_source_str(enum bandwidth_source s)
{
	switch (s) {
	case BANDWIDTH_MEASURED: return "measured";
	case BANDWIDTH_PROFILE: return "profile";
	case BANDWIDTH_NONE: break;
	}
	return "none";
}
