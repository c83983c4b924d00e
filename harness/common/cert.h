/*
 * cert.h - a certificate of bit-exactness (docs/CERTIFICATE.md) in memory,
 * its JSON document `abbench.certificate` both ways, and the sha256 that
 * seals it.
 *
 * A certificate lists the signatures (site, shape by axis, dtypes, eps,
 * affine) on which arm b was byte-equal to arm a in every slot of a
 * stored run, each with what it was proven on: the inputs (their kinds,
 * generators and seed), each arm's provenance (a built-in kernel's build
 * commit; a module's, library's or binary's sha256 and function), the
 * environment (device, compute capability, driver, runtimes, CUPTI,
 * python, numpy, torch, triton where an arm used them), the md5 of each
 * output and the runs. Cases that were not byte-equal are listed apart,
 * never certified.
 *
 * The canonical form, over which `sha256` is computed: the document
 * without its "sha256" member, written by jansson with JSON_COMPACT |
 * JSON_SORT_KEYS (no blank anywhere, object keys in byte order, strings
 * as UTF-8 with only '"', '\\' and the control characters escaped: \b \f
 * \n \r \t, others as \u00XX with upper-case hex). A certificate holds
 * integers, strings, booleans, arrays and objects, never a real number
 * (eps is a string), so that any language can rebuild the form byte for
 * byte (python/abbench_cert.py does). The file on disk is the same
 * document indented; cert_parse recomputes the form from what it reads
 * and refuses a certificate whose sha256 disagrees.
 *
 * Environments are KEY=VALUE maps (struct cert_env); a key's words:
 * backend, device, compute_capability, driver, runtime, cupti, python,
 * numpy, torch, triton (cert_env_key_order).
 */
#ifndef AB_CERT_H
#define AB_CERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/results.h"

#define CERT_FORMAT "abbench.certificate"
#define CERT_FORMAT_VERSION 2
#define CERT_MAX_ENV 16
#define CERT_MAX_RANK 8
#define CERT_MAX_TENSORS 32
#define CERT_TEXT_MAX 65536 /* a site's text, an arm's section, an entry's input lines */

struct cert_kv {
	char key[32];
	char value[128];
};

/* An environment: at most CERT_MAX_ENV keys, each once. */
struct cert_env {
	int n;
	struct cert_kv kv[CERT_MAX_ENV];
};

/* A signature: what a model's call meets and a certificate proves. */
struct cert_sig {
	char site[32];
	int rank;
	char axes[CERT_MAX_RANK][16];
	int64_t shape[CERT_MAX_RANK];
	char dtype[8];       /* the case's dtype (its site's first output's) */
	double eps;
	bool affine;
};

struct cert_tensor {
	char name[32];
	char dtype[8];
};

/* One arm of an entry. kind "builtin": a variant of abbench's own site
 * code, build_commit the build that ran it; else "plugin", "cubin" or
 * "python" with the artefact's absolute path, sha256 and function. How to
 * name it again in a scenario: shortcut (its KIND:PATH:NAME) or section
 * (its [arm NAME] lines), as the run's scenario wrote them but for a path
 * to a file, made absolute. */
struct cert_arm {
	char kind[16];
	char name[32];
	char function[128];
	char build_commit[64];
	char path[512];
	char sha256[65];
	char detail[256];
	char shortcut[640];
	char *section;       /* malloc'd; "" for none */
};

struct cert_output {
	char tensor[32];
	char md5[33];
	int64_t bytes;
};

/* A source run: its ids (a run set's shards), the scenario it measured
 * and where that scenario's relative paths lead. */
struct cert_run {
	int n_ids;
	int64_t *ids;
	char run_set[64];
	char scenario[64];
	char scenario_hash[65];
	char scenario_dir[512];
	char backend[8];
	bool fake_timer;
	char git_commit[64];
};

struct cert_entry {
	int run;             /* index into cert.runs */
	char case_name[64];
	char sweep[64];      /* the swept [case] it came from, "" when not swept */
	char sweep_axis[16];
	bool builtin_site;
	char site_sha256[65]; /* a declared site's: sha256 of site_text; "" for a built-in one */
	char *site_text;      /* a declared site's canonical text ([site NAME] and its keys); "" else */
	struct cert_sig sig;
	char shape_text[64];
	int n_tensors;
	struct cert_tensor tensors[CERT_MAX_TENSORS]; /* inputs and outputs with their dtypes */
	char seed[24];        /* the scenario's seed, in decimal */
	char input_kinds[96]; /* blank-separated: normal, offsets, special, uniform, constant, randint */
	char input_desc[128]; /* as the run stored it */
	char *input_ini;      /* the case's input keys as scenario lines */
	struct cert_arm arm[2];
	struct cert_env env;
	int n_outputs;
	struct cert_output outputs[RESULTS_MAX_OUTPUTS];
};

struct cert_excluded {
	int run;
	char case_name[64];
	char site[32];
	char shape_text[64];
	char reason[256];
};

struct cert {
	char issuer_version[32]; /* the abbench that issued it */
	char issuer_commit[64];
	int n_runs;
	struct cert_run *runs;
	int n_entries;
	struct cert_entry *entries;
	int n_excluded;
	struct cert_excluded *excluded;
	char sha256[65];        /* of the canonical form; set by cert_seal and cert_parse */
};

void cert_free(struct cert *c);

/* Appends a zeroed run, entry or exclusion; NULL when out of memory. */
struct cert_run *cert_add_run(struct cert *c);
struct cert_entry *cert_add_entry(struct cert *c);
struct cert_excluded *cert_add_excluded(struct cert *c);

/* A malloc'd copy of text for the entry and arm text fields (NULL text: ""). */
char *cert_strdup(const char *text);

/* ---- the document ------------------------------------------------------------- */

/* Computes c->sha256 over the canonical form. */
enum ab_rc cert_seal(struct cert *c, struct ab_diag *d);

/* The document as text (malloc'd, ending in a newline): indented, with
 * its sha256 (cert_seal first), or the canonical form (no sha256). */
enum ab_rc cert_write(const struct cert *c, bool canonical, char **out, struct ab_diag *d);

/* Reads a certificate: JSON (no duplicate key), the format and version,
 * every member of the documented schema and no other, no real number,
 * then the sha256 against the canonical form of what was read.
 * AB_ERR_INPUT naming name and the member at fault ("entries[2].sig:
 * ..."), or, for a sha256 that disagrees, that the certificate was
 * changed after it was sealed. */
enum ab_rc cert_parse(const char *text, size_t len, const char *name, struct cert *out, struct ab_diag *d);

/* ---- environments ------------------------------------------------------------ */

/* Sets key to value (replacing it); false when full or too long. */
bool cert_env_set(struct cert_env *e, const char *key, const char *value);
/* The value of key, NULL when absent. */
const char *cert_env_get(const struct cert_env *e, const char *key);
/* Adds the KEY=VALUE words of text (results_check_env's form) that e lacks. */
void cert_env_add_words(struct cert_env *e, const char *text);
/* Sorts e into the order environments are printed in: the known keys'
 * order (backend, device, compute_capability, driver, runtime, cupti,
 * python, numpy, torch, triton), then the others by name. */
void cert_env_sort(struct cert_env *e);
/* The keys whose values differ between was and now, as
 * "torch 2.11.0 -> 2.12.0, compute capability 9.0 -> 10.0" ("(none)"
 * for a key one side lacks); only keys of only when only is not NULL.
 * Returns how many differ. */
int cert_env_diff(const struct cert_env *was, const struct cert_env *now, const char *const *only, char *buf,
		  size_t len);

/* The environment of case c's arms in run r: the device (backend, device,
 * compute_capability on CUDA, driver, runtime), the run's env words
 * (cupti), and the versions of c's user arms (python, numpy, torch,
 * triton). */
void cert_env_of_case(const struct results_run *r, const struct results_case *c, struct cert_env *out);

/* ---- what may be certified ----------------------------------------------------- */

/* Whether case c is byte-equal in every slot: each slot's every output
 * bit_exact and its md5 that of the first slot, with both arms present
 * and two different arms. why: the first reason it is not. */
bool cert_case_exact(const struct results_case *c, char *why, size_t len);

/* ---- signatures a model logged (cert_sig.c) ------------------------------------- */

/* The keys of an environment a model's run is judged by (where both the
 * entry and the run have them): what decides a kernel's bytes there. The
 * same list is python/abbench_cert.py's JUDGED_KEYS. */
extern const char *const cert_judged_keys[]; /* compute_capability, torch, triton; NULL-terminated */

/* One line of a signature log (docs/CERTIFICATE.md): a JSON object
 * {"site", "shape": [...] in the site's axis order, "dtype", "eps",
 * "affine", and optional "count" (default 1) and "env" {KEY: VALUE}}. */
struct cert_logged {
	struct cert_sig sig; /* axes unnamed: rank and shape only */
	struct cert_env env;
	int64_t count;
};

/* Parses one line; false with the reason ("shape: expected a list of 1
 * to 8 positive integers") in why. */
bool cert_logged_parse(const char *line, size_t len, struct cert_logged *out, char *why, size_t why_len);

/* Whether two signatures are the same: site, dtype, eps, affine and the
 * shape's values in order (axis names are not compared: a log has none). */
bool cert_sig_equal(const struct cert_sig *a, const struct cert_sig *b);

/* eps as the shortest decimal text that reads back as the same double. */
void cert_eps_text(double eps, char *buf, size_t len);

#endif
