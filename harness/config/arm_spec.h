/*
 * arm_spec.h - a user arm as a scenario writes it: an [arm NAME] section,
 * or a KIND:PATH:NAME shortcut in [arms] (plugin:PATH:ARM), kept as the
 * text it is (docs/PLUGINS.md):
 *
 *   [arm my_ln]
 *   type = cubin                 ; the arm's kind (harness/arms/arm_kind.h)
 *   site = ln_modulate           ; optional for some kinds: checked against every case
 *   triton = out/ln_mod.json     ; the kind's own keys, kept as records
 *   grid = M
 *
 * config/ reads the section generically: its name, kind and site, and
 * every other key = value line as a record with its line, each key once.
 * What those keys mean is the kind's to say: harness/arms/ checks each
 * section with its kind's row (arms_check) and opens its files at plan
 * time, both before any database is opened. A new kind of arm needs no
 * change here.
 *
 * This module holds the records, their lookups, and what every kind's
 * messages share: paths against the scenario's folder and the
 * "SCENARIO:LINE: ..." errors.
 */
#ifndef AB_ARM_SPEC_H
#define AB_ARM_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/diag.h"
#include "config/expr.h"
#include "kernels/common/site.h"

#define ARM_SPEC_NAME_MAX 32   /* fits results_slot.variant */
#define ARM_SPEC_KIND_MAX 32
#define ARM_SPEC_TEXT_MAX 200  /* a key or a value: a scenario line's length */
#define ARM_SPEC_MAX_KEYS 24   /* records of one section */
#define ARM_SPEC_PATH_MAX 4096 /* a path resolved against the scenario's folder */

/* One key = value line of a section, as written (blanks trimmed). */
struct arm_spec_key {
	char key[ARM_SPEC_TEXT_MAX];
	char value[ARM_SPEC_TEXT_MAX];
	int line;
};

struct arm_spec {
	char name[ARM_SPEC_NAME_MAX];
	char kind[ARM_SPEC_KIND_MAX];   /* type = KIND, or a shortcut's KIND; "" when not given */
	const struct site_desc *site;   /* site = NAME, found once the file is read; NULL when not given (and for a shortcut) */
	char site_name[64];             /* site = NAME as written */
	int header;                     /* the [arm NAME] line; a shortcut's a or b line */
	int kind_line, site_line;       /* 0 when not given; a shortcut's kind_line is its header */
	char via[2];                    /* a shortcut: "a" or "b", the key that holds it; "" for a section */
	char path[ARM_SPEC_TEXT_MAX];   /* a shortcut's PATH, as written */
	/* Keys every kind has, read by config/: the traffic the arm claims
	 * (bytes = EXPR of the site's symbols; "" for the site's minimum) and
	 * the stat and scratch tensors it writes (writes = NAME, ...: a dump
	 * keeps them). */
	char bytes[ARM_SPEC_TEXT_MAX];
	int bytes_line;
	const struct expr *bytes_expr;  /* compiled against its site (the scenario's) */
	char writes[ARM_SPEC_TEXT_MAX];
	int writes_line;
	uint32_t writes_mask;           /* SITE_IO bits of those tensors */
	int n_keys;
	struct arm_spec_key keys[ARM_SPEC_MAX_KEYS]; /* a section's other keys, in file order */
};

/* ---- reading a spec --------------------------------------------------------- */

/* Whether spec is a KIND:PATH:NAME shortcut. */
bool arm_spec_is_shortcut(const struct arm_spec *spec);

/* The record of key, NULL when the section has none (always for a shortcut). */
const struct arm_spec_key *arm_spec_find(const struct arm_spec *spec, const char *key);

/* The line to report key at: its record's, a shortcut's header, 0 when a
 * section lacks it. */
int arm_spec_line(const struct arm_spec *spec, const char *key);

/* What names key in a message: the key, or for a shortcut "a" or "b". */
const char *arm_spec_label(const struct arm_spec *spec, const char *key);

/* ---- text helpers ---------------------------------------------------------- */

/* Whether text (a value of a or b) is written as a shortcut: KIND:...
 * (variant and arm names never hold a ':'). */
bool arm_spec_looks_like_shortcut(const char *text);

/* Splits "KIND:PATH:NAME" (NAME after the last ':'); false with a reason
 * when it is not of that form or a part does not fit. */
bool arm_spec_split_shortcut(const char *text, char *kind, size_t kind_cap, char *path, size_t path_cap, char *name,
			     size_t name_cap, char *err, size_t len);

/* value resolved against the folder of scenario_path (absolute values are
 * kept); false when the result does not fit cap. */
bool arm_spec_resolve_path(const char *scenario_path, const char *value, char *out, size_t cap);

/* ---- errors once the scenario is read --------------------------------------- */

/* "SCENARIO:LINE: arm 'NAME': message" (line 0: the header's). */
enum ab_rc arm_spec_fail(struct ab_diag *d, enum ab_rc rc, const char *scenario_path, const struct arm_spec *spec,
			 int line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* "SCENARIO:LINE: KEY: message", as the scenario's own key errors read;
 * KEY as arm_spec_label names it. AB_ERR_INPUT. */
enum ab_rc arm_spec_key_fail(struct ab_diag *d, const char *scenario_path, const struct arm_spec *spec, const char *key,
			     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Nothing when the section has key; else AB_ERR_INPUT with
 * "SCENARIO:HEADER: [arm NAME]: missing key 'KEY' (why)". A shortcut has
 * every key its form carries: callers ask only of sections. */
enum ab_rc arm_spec_require(struct ab_diag *d, const char *scenario_path, const struct arm_spec *spec, const char *key,
			    const char *why);

#endif
