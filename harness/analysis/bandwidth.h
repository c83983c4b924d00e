/*
 * bandwidth.h - an arm's bytes per second, against the device's copy
 * bandwidth: how close a memory-bound kernel runs to the floor.
 *
 * Each case stores, from the site's declarations at run time
 * (kernels/common/site.h), the bytes its arms move: bytes_a and bytes_b (the eager
 * chain's real traffic, launch by launch, for the eager arm; the minimum
 * for any other) and bytes_min (every input read once, every output
 * written once). An arm's GB/s is its bytes over its median time (bytes
 * per ns = GB/s); its share of the copy bandwidth is that over the
 * device's copy bandwidth (read + write, as a device-to-device copy counts
 * it): the device profile's dram_gbps when it has one (a measured,
 * stable figure: profiles/h200.ini's 2 GiB device-to-device copy), else
 * the one the backend measured for the run's device (the CPU profile has
 * none: hosts differ, and one host's memcpy moved 5 -> 11 GB/s between
 * device rows), else unknown. A case whose working set fits the device's
 * last-level cache is not held against it at all (summary.h,
 * cache_resident). A case's floor is not derived from this bandwidth
 * (bytes_min at a 2 GiB copy's rate, which no kernel of these sizes
 * reaches): it is the copy of its minimum bytes measured in the run
 * (backend/copy_floor.h, summary.h). The printers say all of this through
 * one function each (print/md.h: md_bw_pct, md_floor, md_b_over_floor).
 *
 * Runs stored before the bytes existed (schema 1) have 0 bytes: every
 * figure here is NAN for them, and printers write n/a.
 */
#ifndef AB_BANDWIDTH_H
#define AB_BANDWIDTH_H

#include <stdint.h>

#include "common/results.h"

enum bandwidth_source {
	BANDWIDTH_NONE,     /* neither the run nor a profile knows it */
	BANDWIDTH_MEASURED, /* the run's device: results_device.copy_gbps */
	BANDWIDTH_PROFILE,  /* the device profile's dram_gbps */
};

struct bandwidth_ref {
	double gbps; /* NAN when source is BANDWIDTH_NONE */
	enum bandwidth_source source;
	char profile[64]; /* BANDWIDTH_PROFILE: the profile's name */
};

struct bandwidth_arm {
	double bytes;    /* NAN when unknown */
	double gbps;     /* bytes / median_ns */
	double pct_copy; /* 100 * gbps / copy bandwidth */
};

/* The copy bandwidth a run's figures are held against: the device
 * profile's (profile_gbps, from the profile named profile; 0 or NAN: the
 * profile has none, or there is no profile), else the run's measured one,
 * else none. The command
 * looks the profile up (analysis/ reads no file). */
struct bandwidth_ref bandwidth_copy(const struct results_run *r, double profile_gbps, const char *profile);

/* An arm that moved bytes (0: unknown) in median_ns. */
struct bandwidth_arm bandwidth_arm(int64_t bytes, double median_ns, const struct bandwidth_ref *copy);

/* "measured", "profile", "none". */
const char *bandwidth_source_str(enum bandwidth_source s);

#endif
