/*
 * fuzz_cert.c - libFuzzer harness for the certificate's readers
 * (common/cert_json.c, common/cert_sig.c; docs/CERTIFICATE.md): any bytes
 * through cert_parse as they are (almost always refused by the seal), then
 * sealed anew when they are JSON (so that the reader's checks behind the
 * seal are reached), and each line through cert_logged_parse. It must end
 * in a certificate or a message, never a crash, a hang, a leak or a
 * sanitizer report; a certificate read must write back to a text that
 * reads as the same (its sha256 too). `make fuzz` runs it on
 * tests/fuzz/corpus/cert.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cert.h"
#include "common/digest.h"

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

static void try_cert(const char *text, size_t len)
{
	struct cert c;
	if (cert_parse(text, len, "fuzz", &c, NULL) == AB_OK) {
		round_trip(&c);
		cert_free(&c);
	}
}

/* The bytes as JSON, sealed with the sha256 of their canonical form. */
static void try_sealed(const uint8_t *data, size_t size)
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
			try_cert(text, strlen(text));
		free(text);
	}
	free(canon);
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cert_logged l;
	char why[200];
	try_cert((const char *)data, size);
	try_sealed(data, size);
	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t n = nl ? (size_t)(nl - (data + at)) : size - at;
		if (cert_logged_parse((const char *)data + at, n, &l, why, sizeof why) && l.count < 1)
			abort(); /* the contract: a count is positive */
		at += n + 1;
	}
	return 0;
}
