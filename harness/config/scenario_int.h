/*
 * scenario_int.h - what the files of the scenario parser share (config/
 * scenario*.c); nothing outside config/ includes it (scenario.h is the
 * interface).
 *
 *   scenario.c        entry points: the file read and checked, parsed,
 *                     finished, freed; --only; the messages
 *   scenario_read.c   the line reader inih reads through, sections
 *   scenario_keys.c   each section's key table, the value parsers, one key
 *                     stored; the checks of [scenario] and [case] once read
 *   scenario_sweep.c  a shape's swept dimension: parsed, checked, expanded
 *   scenario_arms.c   [arms] a and b, [arm NAME] sections as records,
 *                     KIND:PATH:NAME shortcuts, each case's arms
 *   scenario_site.c   [site NAME] sections: declared sites, built once the
 *                     file (and what it includes) is read
 *   scenario_gen.c    input.NAME = GENERATOR keys: per tensor, per case
 *
 * The parse context (struct pctx) holds the scenario being built and the
 * first error: every function that reports one returns it through
 * scenario_perr, which keeps the first and ignores the rest.
 */
#ifndef AB_SCENARIO_INT_H
#define AB_SCENARIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/scenario.h"

/* Keys of one section's table (struct scope's bit set holds one bit each):
 * [scenario] has 24, room for a few more. */
#define MAX_KEYS 32
#define SCENARIO_INCLUDE_MAX 16 /* files one scenario includes */

enum section { SEC_NONE, SEC_SCENARIO, SEC_ARMS, SEC_MODEL, SEC_CASE, SEC_ARM, SEC_SITE, SEC_COUNT };

enum kind { K_INT, K_U64, K_DOUBLE, K_BOOL, K_FN };

/* Where a key's value goes: the scenario, the current case, or the input
 * distribution of the current section (the defaults in [scenario], the
 * case's own overrides in [case]). [arm NAME] has no table: its keys are
 * records (scenario_arms_key). */
enum base { B_SCN, B_CASE, B_INPUT };

#define KF_OPEN_LO 1u  /* the range excludes lo */
#define KF_OPEN_HI 2u  /* the range excludes hi */
#define KF_EMPTY_OK 4u /* an empty value is allowed */

struct pctx;
struct key_def;

typedef enum ab_rc (*key_fn)(struct pctx *c, const struct key_def *k, void *field, const char *val);

struct key_def {
	const char *name;
	enum kind kind;
	enum base base;
	size_t off, size; /* the field inside its base */
	double lo, hi;    /* range of K_INT and K_DOUBLE */
	unsigned flags;
	key_fn fn; /* K_FN */
};

/* Rows of the key tables: a key stored by its own function (KEY_FN) or
 * parsed as a number or boolean within [lo, hi] (KEY_NUM). */
#define FIELD(type, member) offsetof(type, member), sizeof(((type *)0)->member)
#define KEY_FN(nm, b, type, member, f, fl) { nm, K_FN, b, FIELD(type, member), 0, 0, fl, f }
#define KEY_NUM(nm, kd, b, type, member, l, h, fl) { nm, kd, b, FIELD(type, member), l, h, fl, NULL }

/* Which keys a section (or a case) has seen, and where. */
struct scope {
	int header_line;
	unsigned seen;
	int line[MAX_KEYS];
};
_Static_assert(MAX_KEYS <= sizeof(unsigned) * 8, "struct scope's seen holds a bit per key");

/* The values a case's shape lists for its swept dimension (dim < 0: none),
 * kept until the case is expanded once the file is read. */
struct sweep {
	int dim;
	int n;
	int64_t v[SCENARIO_SWEEP_MAX];
};

/* What a [case] names by text, resolved once the whole file is read (a
 * site or an arm may be declared further down, or in an included file). */
struct case_text {
	char site[64];
	char arm[2][ARM_SPEC_TEXT_MAX]; /* a and b; "" when the case sets none */
};

/* An input.NAME = GENERATOR line of [scenario] (owner -1) or of case
 * owner, kept as written until the case's site is known. */
struct gen_key {
	int owner;
	char tensor[64];
	char text[ARM_SPEC_TEXT_MAX];
	int line;
};

struct pctx {
	struct scenario *scn;
	struct ab_diag *d;
	enum ab_rc rc;
	const char *file;  /* the file being read: the scenario, or a file it includes */
	bool included;     /* an included file: [site NAME] sections only */
	bool sites_only;   /* scenario_parse_sites: no case needed */
	const char *pos; /* reader position in scn->text */
	int line;        /* the line the reader returned last */
	enum section sec;
	int cur;                   /* current case index */
	struct scope fixed[SEC_CASE]; /* [scenario], [arms], [model] */
	struct scope *cscope;      /* one per case */
	struct sweep *sweeps;      /* one per case */
	struct case_text *ctext;   /* one per case */
	int cap;
	int cur_arm;               /* current [arm NAME] index */
	int arm_cap;
	char arm_text[2][ARM_SPEC_TEXT_MAX]; /* the values of a and b, resolved once all is read */
	struct scenario_input dflt; /* the [scenario] input defaults */
	int cur_site;              /* current [site NAME] index */
	int site_cap;
	int n_gkeys, gkey_cap;
	struct gen_key *gkeys;     /* input.NAME lines of [scenario] and [case] */
	int n_included;            /* the files include names, in order */
	char *included_text[SCENARIO_INCLUDE_MAX];
	char included_path[SCENARIO_INCLUDE_MAX][512];
	char included_real[SCENARIO_INCLUDE_MAX][4096];
};

/* ---- scenario.c: messages ------------------------------------------------- */

/* Records the first error as "FILE:LINE: WHAT: reason"; WHAT is a key or a
 * "[section]", or NULL for errors about the line itself. */
enum ab_rc scenario_perr(struct pctx *c, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
enum ab_rc scenario_nomem(struct pctx *c);
/* Appends s to buf (of len bytes) with a ", " separator. */
void scenario_list_add(char *buf, size_t len, const char *s);
void scenario_variant_names(const struct site_desc *s, char *buf, size_t len);
/* A compiled expression kept with the scenario (scn->exprs), or NULL
 * (out of memory, reported). */
struct expr *scenario_keep_expr(struct pctx *c, const struct expr *e);

/* ---- scenario.c: included files ------------------------------------------- */

/* include = a.ini, b.ini in [scenario]: each file (relative to the
 * scenario's folder) read now, its [site NAME] sections added. */
enum ab_rc scenario_include(struct pctx *c, const struct key_def *k, void *field, const char *val);

/* ---- scenario_read.c: lines and sections ------------------------------------ */

/* inih's reader over the text in memory (fgets-like); NULL at the end or
 * after an error, which stops inih. */
char *scenario_read_line(char *str, int num, void *stream);

/* ---- scenario_keys.c: keys ------------------------------------------------- */

extern const struct key_def scenario_keys_scenario[], scenario_keys_arms[], scenario_keys_case[];

/* The key tables of sections, by enum section ("" and NULL for SEC_NONE). */
struct scenario_keys_section {
	const char *name;
	const struct key_def *keys;
};
extern const struct scenario_keys_section scenario_keys_sections[SEC_COUNT];

int scenario_keys_index(const struct key_def *keys, const char *name);
/* The line a key was set on in a scope, 0 when it was not. */
int scenario_keys_line(const struct scope *sc, const struct key_def *keys, const char *name);
/* inih's handler, for each key = value line. */
int scenario_keys_on_key(void *user, const char *section, const char *name, const char *value);
/* Copies a word into a fixed buffer, or complains that it is too long. */
enum ab_rc scenario_keys_set_text(struct pctx *c, const char *key, char *dst, size_t cap, const char *val);
/* Looks val up in a NULL-terminated word list; -1 when absent. */
int scenario_keys_word_index(const char *const *words, const char *val);
enum ab_rc scenario_keys_word_err(struct pctx *c, const char *key, const char *val, const char *const *words);
/* The checks of [scenario] once read: orders of the sampling and input keys. */
enum ab_rc scenario_keys_finish_scenario(struct pctx *c);
/* Case i once read: site and shape given, the shape the site's, input merged. */
enum ab_rc scenario_keys_finish_case(struct pctx *c, int i);

/* ---- scenario_sweep.c: sweeps ---------------------------------------------- */

/* The shape key: plain, or with one swept dimension kept in c->sweeps. */
enum ab_rc scenario_sweep_set_shape(struct pctx *c, const struct key_def *k, void *field, const char *val);
/* Every value of case i's sweep against the site's shape rule. */
enum ab_rc scenario_sweep_check(struct pctx *c, int i);
/* invariance = rows of case i: its shape is swept, and in every tensor of
 * its site that has the swept axis, each axis before it has extent 1 (so
 * that row r is a prefix every case of the sweep shares). */
enum ab_rc scenario_sweep_check_invariance(struct pctx *c, int i);
/* Replaces every swept case, in place, by one case per value. */
enum ab_rc scenario_sweep_expand(struct pctx *c);

/* ---- scenario_site.c: declared sites ----------------------------------------- */

/* "[site NAME]": a new section. */
enum ab_rc scenario_site_open(struct pctx *c, const char *inner, const char *name);
/* A key = value line of the current [site NAME], kept until the file is read. */
enum ab_rc scenario_site_key(struct pctx *c, const char *key, const char *val);
/* Every declared site built from its lines: axes, tensors, require. */
enum ab_rc scenario_site_finish(struct pctx *c);
/* The site a case or an [arm] names (text at line of the current file's
 * scenario), or an error listing the sites. */
enum ab_rc scenario_site_resolve(struct pctx *c, const char *name, int line, const char *key,
				 const struct site_desc **out);
/* The declared site s (of scn), NULL for a built-in one. */
const struct scenario_site *scenario_site_declared(const struct scenario *scn, const struct site_desc *s);

/* ---- scenario_gen.c: per-tensor generators ------------------------------------ */

/* input.NAME = GENERATOR in [scenario] or [case]: kept as text. */
enum ab_rc scenario_gen_key(struct pctx *c, const char *tensor, const char *val);
/* Parses a generator's text for tensor t of site s into g (randint's
 * bounds kept with the scenario); line and key for messages. */
enum ab_rc scenario_gen_parse(struct pctx *c, const struct site_desc *s, const struct site_tensor *t,
			      const char *text, int line, const char *key, struct scenario_gen *g);
/* Case i's generators from [case], [scenario] and its site, each checked
 * against its tensor; every [scenario] line names some case's input. */
enum ab_rc scenario_gen_finish_case(struct pctx *c, int i);
enum ab_rc scenario_gen_check_scenario(struct pctx *c);
/* Once sweeps are expanded: randint's bounds for every case. */
enum ab_rc scenario_gen_bounds(struct pctx *c);

/* ---- scenario_arms.c: user arms -------------------------------------------- */

/* The key a or b of [arms]: kept as text until the whole file is read. */
enum ab_rc scenario_arms_set(struct pctx *c, const struct key_def *k, void *field, const char *val);
struct arm_spec *scenario_arms_current(struct pctx *c);
/* A key = value line of the current [arm NAME]: type and site read, the
 * other keys kept as records for the arm's kind to check. */
enum ab_rc scenario_arms_key(struct pctx *c, const char *key, const char *val);
/* "[arm NAME]": a new section. */
enum ab_rc scenario_arms_open(struct pctx *c, const char *inner, const char *name);
/* Once read: a and b resolved (a shortcut becomes an arm of its own). */
enum ab_rc scenario_arms_finish(struct pctx *c);
/* The key a or b of [case]: kept as text. */
enum ab_rc scenario_arms_case_set(struct pctx *c, const struct key_def *k, void *field, const char *val);
/* Case i's arms resolved (its own a and b, else [arms]'s) and checked
 * against its site. */
enum ab_rc scenario_arms_check_case(struct pctx *c, int i);
/* The run's arms once every case has its own (scenario.arm_a, arm_b). */
void scenario_arms_run_arms(struct pctx *c);

#endif
