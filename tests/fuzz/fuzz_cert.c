/*
 * fuzz_cert.c - libFuzzer harness for the certificate's readers
 * (common/cert_json.c, common/cert_sig.c; docs/CERTIFICATE.md) and what
 * `certify --check` and `coverage` do with what they read: any bytes
 * through cert_parse as they are (almost always refused by the seal), then
 * sealed anew when they are JSON (so that the reader's checks behind the
 * seal are reached), and each line through cert_logged_parse.
 *
 * An input holding a form feed line ("\f\n") is a certificate before it
 * and a signature log after it, as `abbench coverage CERT LOG` reads
 * them: a certificate read (as it is or sealed anew) has each entry
 * written as certify --check's scenario and that text parsed again
 * (config/cert_scenario.c, config/scenario.c), and the log's lines are
 * grouped, judged against it and the missing ones written as coverage's
 * --emit-scenario (analysis/coverage.c). Without one, the whole input is
 * both, as before.
 *
 * It must end in a certificate or a message, never a crash, a hang, a
 * leak or a sanitizer report; a certificate read must write back to a
 * text that reads as the same (its sha256 too); a logged count is
 * positive and coverage's counts add up. `make fuzz` runs it on
 * tests/fuzz/corpus/cert.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/coverage.h"
#include "common/cert.h"
#include "common/digest.h"
#include "config/cert_scenario.h"
#include "config/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A certificate read must be written back and read again, the same. */
static void round_trip(const struct cert *c)
{
	struct cert back;
	char *text = NULL;
	if (cert_write(c, false, &text, NULL) || cert_parse(text, strlen(text), "again", &back, NULL))
		abort();
	if (strcmp(back.sha256, c->sha256) || back.n_entries != c->n_entries || back.n_excluded != c->n_excluded)
		abort();
	cert_free(&back);
	free(text);
}

/* The signature log's lines, each through the line reader; the ones read
 * grouped (coverage_add). */
static void read_log(const uint8_t *data, size_t size, struct coverage *cv)
{
	struct cert_logged l;
	char why[200];
	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t n = nl ? (size_t)(nl - (data + at)) : size - at;
		if (cert_logged_parse((const char *)data + at, n, &l, why, sizeof why)) {
			if (l.count < 1)
				abort(); /* the contract: a count is positive */
			if (coverage_add(cv, &l, NULL))
				abort(); /* out of memory only */
		}
		at += n + 1;
	}
}

/* cases[0..n) written as a scenario of purpose, then read again as
 * certify --check reads its own (a refusal is a message; arms are not
 * loaded: that would run the certificate's files). */
static void write_and_parse(const struct cert_scenario_case *cases, int n, enum cert_scenario_purpose purpose)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	enum ab_rc rc = cert_scenario_write(f, "fuzz", purpose, cases, n, NULL);
	if (fclose(f))
		abort();
	struct scenario *s = NULL;
	if (!rc && scenario_parse_text("/nonexistent/fuzz-cert/check.ini", text, &s, NULL) == AB_OK)
		scenario_free(s);
	free(text);
}

/* What certify --check and coverage make of certificate c and log cv:
 * each entry's check scenario, then the log judged against c and the
 * scenario of the signatures it lacks. */
static void use_cert(const struct cert *c, struct coverage *cv)
{
	for (int i = 0; i < c->n_entries && i < 8; i++) {
		struct cert_scenario_case one = { &c->entries[i], &c->entries[i].sig, NULL };
		write_and_parse(&one, 1, CERT_SCENARIO_CHECK);
	}
	if (!cv)
		return;
	coverage_judge(cv, c);
	struct cert_scenario_case cases[16];
	char names[16][16];
	int n = 0, certified = 0, other = 0, missing = 0;
	int64_t calls = 0;
	for (int i = 0; i < cv->n; i++) {
		const struct coverage_row *r = &cv->rows[i];
		certified += r->status == COVERAGE_CERTIFIED;
		other += r->status == COVERAGE_OTHER_ENV;
		missing += r->status == COVERAGE_MISSING;
		calls = calls > INT64_MAX - r->count ? INT64_MAX : calls + r->count; /* held, as coverage.c holds it */
		if ((r->entry >= c->n_entries) || (r->proof >= c->n_entries) ||
		    (r->status == COVERAGE_CERTIFIED && r->entry < 0))
			abort(); /* an entry that is not the certificate's */
		if (r->status == COVERAGE_CERTIFIED || r->proof < 0 || n == 16)
			continue;
		snprintf(names[n], sizeof names[n], "sig%d", n + 1);
		cases[n] = (struct cert_scenario_case){ &c->entries[r->proof], &r->sig, names[n] };
		n++;
	}
	if (certified != cv->n_certified || other != cv->n_other_env || missing != cv->n_missing || calls != cv->calls)
		abort(); /* the totals are the rows' */
	if (n)
		write_and_parse(cases, n, CERT_SCENARIO_PROVE);
}

static void try_cert(const char *text, size_t len, struct coverage *cv)
{
	struct cert c;
	if (cert_parse(text, len, "fuzz", &c, NULL) == AB_OK) {
		round_trip(&c);
		use_cert(&c, cv);
		cert_free(&c);
	}
}

/* The bytes as JSON, sealed with the sha256 of their canonical form. */
static void try_sealed(const uint8_t *data, size_t size, struct coverage *cv)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	char sha[65], *canon, *text;
	if (!json_is_object(doc)) {
		json_decref(doc);
		return;
	}
	json_object_del(doc, "sha256");
	canon = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	if (canon && digest_sha256_hex(canon, strlen(canon), sha, NULL) == AB_OK) {
		json_object_set_new(doc, "sha256", json_string(sha));
		text = json_dumps(doc, JSON_INDENT(1));
		if (text)
			try_cert(text, strlen(text), cv);
		free(text);
	}
	free(canon);
	json_decref(doc);
}

/* Where the log starts: after the first "\f\n" line; size when none. */
static size_t log_start(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 1 < size; i++)
		if (data[i] == '\f' && data[i + 1] == '\n' && (i == 0 || data[i - 1] == '\n'))
			return i + 2;
	return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct coverage cv = { 0 };
	size_t at = log_start(data, size);
	size_t cert_size = at < size ? at - 2 : size;
	if (at < size) {
		read_log(data + at, size - at, &cv);
	} else {
		read_log(data, size, &cv);
		coverage_free(&cv);
		memset(&cv, 0, sizeof cv);
	}
	try_cert((const char *)data, cert_size, at < size ? &cv : NULL);
	try_sealed(data, cert_size, at < size ? &cv : NULL);
	coverage_free(&cv);
	return 0;
}
