/*
 * profile.h - per-device profiles: measured ceilings, the noise floor and
 * the gate's default threshold.
 *
 * A profile is one INI file in the profiles directory:
 *
 *   [profile]
 *   name = H200
 *   match = H200              ; comma-separated substrings of the device
 *                             ; name, case-insensitive
 *   backend = cpu             ; or: every device of this backend matches
 *   dram_gbps = 4200          ; measured copy bandwidth, read + write, GB/s
 *   l2_bytes = 62914560
 *   sm_count = 132
 *   noise_floor = 0.01        ; A1 vs A2 drift above this is environmental
 *   gate_max_regression_pct = 5
 *   gate_min_change_ns = 500  ; the gate's absolute floor: a change of B
 *                             ; of at most this many ns is not called
 *   gate_machine_moved_pct = 5 ; optional: the A arm moved by more than
 *                             ; this between two runs, the machine
 *                             ; changed (raw B must confirm B/A; gate.h);
 *                             ; default gate_max_regression_pct
 *   notes = where the numbers come from
 *
 * noise_floor, gate_max_regression_pct and gate_min_change_ns are
 * required (a profile written before the absolute floor existed is an
 * error, not silently given one); the ceilings may be 0 (unknown). Every
 * parse error names file:line and the key.
 *
 * Lookup: a profile whose match substring occurs in the device name wins;
 * else one whose backend matches; else default.ini, and the caller is told
 * that it fell back (so that it can warn). Files are tried in name order.
 */
#ifndef AB_PROFILE_H
#define AB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define PROFILE_DEFAULT_FILE "default.ini"

struct profile {
	char file[256];        /* file name inside the profiles dir, e.g. "h200.ini" */
	char name[64];
	char match[256];       /* comma-separated substrings; empty = none */
	char backend[8];       /* "cpu", "cuda" or empty */
	double dram_gbps;
	int64_t l2_bytes;
	int sm_count;
	double noise_floor;    /* relative, in (0, 1) */
	double gate_max_regression_pct;
	double gate_min_change_ns; /* >= 0, ns; 0: no absolute floor */
	double gate_machine_moved_pct; /* > 0: gate.h's a_moved bar; gate_max_regression_pct when not given */
	char notes[512];
};

/* Parses one profile file. AB_ERR_INPUT with "FILE:LINE: ..." on a bad
 * line, "FILE: missing 'key'" when a required key is absent, AB_ERR_IO
 * when the file cannot be read. */
enum ab_rc profile_parse_file(const char *path, struct profile *out, struct ab_diag *d);

/* The same from text; path is only used in messages and for out->file. */
enum ab_rc profile_parse_text(const char *path, const char *text, struct profile *out, struct ab_diag *d);

/* The profiles directory: $ABBENCH_PROFILES when set, else ./profiles when
 * it is a directory, else the executable's ../profiles (build/abbench sits
 * one level below the repository root). AB_ERR_INPUT when none exists. */
enum ab_rc profile_dir(char *buf, size_t len, struct ab_diag *d);

/* Whether profile p matches this device (the rules above): 2 by name,
 * 1 by backend, 0 not at all. */
int profile_matches(const struct profile *p, const char *device_name, const char *backend);

/* Finds the profile for a device in dir. *fell_back is set when no profile
 * matched and default.ini was used. A parse error in any file is an error
 * (AB_ERR_INPUT): a broken profile must not silently change a threshold. */
enum ab_rc profile_lookup(const char *dir, const char *device_name, const char *backend, struct profile *out,
		       bool *fell_back, struct ab_diag *d);

/* profile_dir followed by profile_lookup. */
enum ab_rc profile_find(const char *device_name, const char *backend, struct profile *out, bool *fell_back,
		     struct ab_diag *d);

#endif
