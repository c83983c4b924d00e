/*
 * test_cert.c - the certificate in memory (common/cert.h): the rule of
 * what may be certified, environments and their differences, eps as
 * text, the document written and read back (the same text, the same
 * sha256), every change of a field changing the sha256, the refusals of
 * cert_parse, the signature log's lines, and coverage
 * (analysis/coverage.h) judging them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/coverage.h"
#include "common/cert.h"

/* ---- what may be certified -------------------------------------------------- */

static struct results_slot slot(const char *label, char arm, const char *md5, bool exact, int64_t mismatches)
{
	struct results_slot s;
	memset(&s, 0, sizeof s);
	snprintf(s.label, sizeof s.label, "%s", label);
	s.arm = arm;
	s.n_outputs = 1;
	snprintf(s.outputs[0].tensor, sizeof s.outputs[0].tensor, "out");
	snprintf(s.outputs[0].md5, sizeof s.outputs[0].md5, "%s", md5);
	s.outputs[0].bit_exact = exact;
	s.outputs[0].mismatches = mismatches;
	return s;
}

static bool exact(struct results_slot *slots, int n, const char *a, const char *b, char *why)
{
	struct results_case c;
	memset(&c, 0, sizeof c);
	c.slots = slots;
	c.n_slots = n;
	snprintf(c.arm_a, sizeof c.arm_a, "%s", a);
	snprintf(c.arm_b, sizeof c.arm_b, "%s", b);
	return cert_case_exact(&c, why, 256);
}

static void test_case_exact(void **state)
{
	(void)state;
	char why[256] = "";
	const char *m = "0123456789abcdef0123456789abcdef", *o = "ffffffffffffffffffffffffffffffff";
	struct results_slot aba[] = { slot("A1", 'a', m, true, 0), slot("B", 'b', m, true, 0), slot("A2", 'a', m, true, 0) };
	assert_true(exact(aba, 3, "eager", "fused", why));
	aba[1] = slot("B", 'b', o, false, 12);
	assert_false(exact(aba, 3, "eager", "fused", why));
	assert_string_equal(why, "slot B: 'out' not byte-equal to A1 (12 elements differ)");
	aba[1] = slot("B", 'b', m, true, 0);
	aba[2] = slot("A2", 'a', o, true, 0); /* marked equal, yet another md5: not certified */
	assert_false(exact(aba, 3, "eager", "fused", why));
	assert_string_equal(why, "slot A2: 'out' not byte-equal to A1");
	aba[2] = slot("A2", 'a', m, true, 0);
	assert_false(exact(aba, 3, "eager", "eager", why));
	assert_string_equal(why, "arm a and arm b are both 'eager': an A/A case proves no fused arm");
	struct results_slot aa[] = { slot("A1", 'a', m, true, 0), slot("A2", 'a', m, true, 0) };
	assert_false(exact(aa, 2, "eager", "fused", why));
	assert_string_equal(why, "the case has no slot of arm b");
	assert_false(exact(aba, 1, "eager", "fused", why));
	assert_string_equal(why, "the case has fewer than two slots");
}

/* ---- environments ------------------------------------------------------------ */

static void test_env(void **state)
{
	(void)state;
	struct cert_env was = { 0 }, now = { 0 };
	char buf[256];
	cert_env_add_words(&was, "torch=2.11.0 compute_capability=9.0 python=3.12.3");
	cert_env_add_words(&was, "torch=9 bad word= =x"); /* what it has stays; malformed words are skipped */
	assert_string_equal(cert_env_get(&was, "torch"), "2.11.0");
	assert_null(cert_env_get(&was, "bad"));
	cert_env_set(&was, "backend", "cuda");
	cert_env_sort(&was);
	assert_string_equal(was.kv[0].key, "backend");
	assert_string_equal(was.kv[1].key, "compute_capability");
	assert_string_equal(was.kv[3].key, "torch");
	now = was;
	assert_int_equal(cert_env_diff(&was, &now, NULL, buf, sizeof buf), 0);
	assert_string_equal(buf, "");
	cert_env_set(&now, "torch", "2.12.0");
	cert_env_set(&now, "compute_capability", "10.0");
	cert_env_set(&now, "triton", "3.6.0");
	assert_int_equal(cert_env_diff(&was, &now, NULL, buf, sizeof buf), 3);
	assert_string_equal(buf, "compute capability 9.0 -> 10.0, torch 2.11.0 -> 2.12.0, triton (none) -> 3.6.0");
	static const char *const only[] = { "torch", NULL };
	assert_int_equal(cert_env_diff(&was, &now, only, buf, sizeof buf), 1);
	assert_string_equal(buf, "torch 2.11.0 -> 2.12.0");
	char key[40];
	memset(key, 'k', sizeof key - 1);
	key[sizeof key - 1] = '\0';
	assert_false(cert_env_set(&now, key, "v")); /* a key too long */
}

static void test_env_of_case(void **state)
{
	(void)state;
	struct results_run r;
	struct results_case c;
	struct cert_env e;
	memset(&r, 0, sizeof r);
	memset(&c, 0, sizeof c);
	snprintf(r.backend, sizeof r.backend, "cuda");
	snprintf(r.device.name, sizeof r.device.name, "NVIDIA H200");
	r.device.cc_major = 9;
	snprintf(r.device.driver_version, sizeof r.device.driver_version, "cuda 13.0");
	snprintf(r.device.runtime_version, sizeof r.device.runtime_version, "13.0");
	snprintf(r.env, sizeof r.env, "cupti=130100");
	r.n_arm_sources = 1;
	r.arm_sources[0].arm = 'b';
	snprintf(r.arm_sources[0].name, sizeof r.arm_sources[0].name, "tri");
	snprintf(r.arm_sources[0].versions, sizeof r.arm_sources[0].versions, "python=3.12.3 torch=2.11.0 triton=3.6.0");
	snprintf(c.arm_a, sizeof c.arm_a, "eager");
	snprintf(c.arm_b, sizeof c.arm_b, "tri");
	cert_env_of_case(&r, &c, &e);
	char words[400] = "";
	for (int i = 0; i < e.n; i++)
		snprintf(words + strlen(words), sizeof words - strlen(words), "%s=%s ", e.kv[i].key, e.kv[i].value);
	assert_string_equal(words, "backend=cuda device=NVIDIA H200 compute_capability=9.0 driver=cuda 13.0 runtime=13.0 "
				   "cupti=130100 python=3.12.3 torch=2.11.0 triton=3.6.0 ");
	snprintf(c.arm_b, sizeof c.arm_b, "fused"); /* a built-in arm: no python keys */
	cert_env_of_case(&r, &c, &e);
	assert_null(cert_env_get(&e, "torch"));
}

static void test_eps_text(void **state)
{
	(void)state;
	char buf[32];
	cert_eps_text(1e-5, buf, sizeof buf);
	assert_string_equal(buf, "1e-05");
	cert_eps_text(1e-6, buf, sizeof buf);
	assert_string_equal(buf, "1e-06");
	cert_eps_text((double)1e-5f, buf, sizeof buf); /* a float's eps keeps its digits */
	assert_true(strtod(buf, NULL) == (double)1e-5f);
	cert_eps_text(0.1, buf, sizeof buf);
	assert_string_equal(buf, "0.1");
}

/* ---- the document -------------------------------------------------------------- */

static void make_cert(struct cert *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->issuer_version, sizeof c->issuer_version, "0.1.0");
	snprintf(c->issuer_commit, sizeof c->issuer_commit, "abc123");
	struct cert_run *r = cert_add_run(c);
	assert_non_null(r);
	r->ids = calloc(1, sizeof *r->ids);
	r->ids[r->n_ids++] = 3;
	snprintf(r->scenario, sizeof r->scenario, "glm_1024");
	snprintf(r->backend, sizeof r->backend, "cuda");
	snprintf(r->scenario_dir, sizeof r->scenario_dir, "/w/d\xc3\xa9j\xc3\xa0\t\x1b");
	struct cert_entry *e = cert_add_entry(c);
	assert_non_null(e);
	snprintf(e->case_name, sizeof e->case_name, "img_ln_modulate");
	e->builtin_site = true;
	e->site_text = cert_strdup("");
	snprintf(e->sig.site, sizeof e->sig.site, "ln_modulate");
	e->sig.rank = 3;
	int64_t shape[] = { 1, 4096, 4096 };
	for (int i = 0; i < 3; i++) {
		snprintf(e->sig.axes[i], sizeof e->sig.axes[i], "%c", "BTW"[i]);
		e->sig.shape[i] = shape[i];
	}
	snprintf(e->sig.dtype, sizeof e->sig.dtype, "bf16");
	e->sig.eps = 1e-5;
	snprintf(e->shape_text, sizeof e->shape_text, "1x4096x4096");
	e->n_tensors = 1;
	snprintf(e->tensors[0].name, sizeof e->tensors[0].name, "x");
	snprintf(e->tensors[0].dtype, sizeof e->tensors[0].dtype, "bf16");
	snprintf(e->seed, sizeof e->seed, "18446744073709551615");
	snprintf(e->input_kinds, sizeof e->input_kinds, "normal special");
	e->input_ini = cert_strdup("input = normal\n");
	for (int j = 0; j < 2; j++) {
		snprintf(e->arm[j].kind, sizeof e->arm[j].kind, "builtin");
		snprintf(e->arm[j].name, sizeof e->arm[j].name, "%s", j ? "fused" : "eager");
		e->arm[j].section = cert_strdup("");
	}
	cert_env_set(&e->env, "backend", "cuda");
	cert_env_set(&e->env, "device", "NVIDIA H200");
	e->n_outputs = 1;
	snprintf(e->outputs[0].tensor, sizeof e->outputs[0].tensor, "out");
	snprintf(e->outputs[0].md5, sizeof e->outputs[0].md5, "0123456789abcdef0123456789abcdef");
	e->outputs[0].bytes = 33554432;
	struct cert_excluded *x = cert_add_excluded(c);
	assert_non_null(x);
	snprintf(x->case_name, sizeof x->case_name, "inexact");
	snprintf(x->reason, sizeof x->reason, "slot B: 'out' not byte-equal to A1");
	assert_int_equal(cert_seal(c, NULL), AB_OK);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct cert c, back;
	char *text = NULL, *again = NULL, *canon = NULL;
	struct ab_diag d = { "" };
	make_cert(&c);
	assert_int_equal(cert_write(&c, false, &text, &d), AB_OK);
	assert_int_equal(cert_parse(text, strlen(text), "t.json", &back, &d), AB_OK);
	assert_string_equal(back.sha256, c.sha256);
	assert_int_equal(back.n_entries, 1);
	assert_string_equal(back.entries[0].seed, "18446744073709551615");
	assert_string_equal(back.entries[0].input_kinds, "normal special");
	assert_true(back.entries[0].sig.eps == 1e-5);
	assert_string_equal(back.runs[0].scenario_dir, c.runs[0].scenario_dir);
	assert_int_equal(cert_write(&back, false, &again, &d), AB_OK);
	assert_string_equal(text, again);
	/* the canonical form: no blank outside strings, keys sorted, ESC as \u001B */
	assert_int_equal(cert_write(&c, true, &canon, &d), AB_OK);
	assert_non_null(strstr(canon, "\"scenario_dir\":\"/w/d\xc3\xa9j\xc3\xa0\\t\\u001B\""));
	assert_null(strstr(canon, c.sha256)); /* not its own seal */
	assert_int_equal(strncmp(canon, "{\"abbench\":{\"git_commit\":\"abc123\",\"version\":\"0.1.0\"},\"entries\":[{", 61), 0);
	free(text);
	free(again);
	free(canon);
	cert_free(&back);
	cert_free(&c);
}

/* A field of the model changed: the seal follows. */
static void test_seal_follows_fields(void **state)
{
	(void)state;
	struct cert c;
	char first[65];
	make_cert(&c);
	snprintf(first, sizeof first, "%s", c.sha256);
	struct cert_entry *e = &c.entries[0];
	e->sig.shape[1] = 4097;
	assert_int_equal(cert_seal(&c, NULL), AB_OK);
	assert_string_not_equal(c.sha256, first);
	e->sig.shape[1] = 4096;
	assert_int_equal(cert_seal(&c, NULL), AB_OK);
	assert_string_equal(c.sha256, first);
	e->sig.eps = 1e-6;
	assert_int_equal(cert_seal(&c, NULL), AB_OK);
	assert_string_not_equal(c.sha256, first);
	e->sig.eps = 1e-5;
	cert_env_set(&e->env, "torch", "2.11.0");
	assert_int_equal(cert_seal(&c, NULL), AB_OK);
	assert_string_not_equal(c.sha256, first);
	cert_free(&c);
}

static void parse_fails(const char *text, const char *want)
{
	struct cert c;
	struct ab_diag d = { "" };
	assert_int_equal(cert_parse(text, strlen(text), "t.json", &c, &d), AB_ERR_INPUT);
	if (!strstr(d.msg, want))
		fail_msg("got: %s\nwant: %s", d.msg, want);
}

/* text with its first from replaced by to (malloc'd). */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	char *out = malloc(strlen(text) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static void test_parse_refusals(void **state)
{
	(void)state;
	struct cert c;
	char *text = NULL, *bad;
	make_cert(&c);
	assert_int_equal(cert_write(&c, false, &text, NULL), AB_OK);
	bad = replaced(text, "\"shape_text\": \"1x4096x4096\"", "\"shape_text\": \"1x4096x4095\"");
	parse_fails(bad, "it was changed after it was issued");
	free(bad);
	bad = replaced(text, "\"format_version\": 2", "\"format_version\": 3");
	parse_fails(bad, "format_version' is 3, not 2 to 2");
	free(bad);
	bad = replaced(text, "\"bytes\": 33554432", "\"bytes\": 3.5");
	parse_fails(bad, "holds a real number (3.5): a certificate has none");
	free(bad);
	bad = replaced(text, "\"affine\": false", "\"affine\": 0");
	parse_fails(bad, "entries[0].signature: 'affine' must be true or false");
	free(bad);
	bad = replaced(text, "\"run\": 0", "\"run\": 1");
	parse_fails(bad, "entries[0]: 'run' is 1, not 0 to 0");
	free(bad);
	bad = replaced(text, "\"kind\": \"builtin\"", "\"kind\": \"magic\"");
	parse_fails(bad, "entries[0].arms.a: kind 'magic' is none of builtin, plugin, cubin, python");
	free(bad);
	bad = replaced(text, "\"eps\": \"1e-05\"", "\"eps\": \"small\"");
	parse_fails(bad, "entries[0].signature: eps 'small' is not a positive number");
	free(bad);
	bad = replaced(text, "\"eps\": \"1e-05\"", "\"eps\": \"0e-05\"");
	parse_fails(bad, "entries[0].signature: eps '0e-05' is not a positive number");
	free(bad);
	/* Written back from the number, another spelling would change the
	   sealed content: the fuzzer's find. */
	bad = replaced(text, "\"eps\": \"1e-05\"", "\"eps\": \"1.0e-5\"");
	parse_fails(bad, "entries[0].signature: eps '1.0e-5' is not as abbench writes it ('1e-05')");
	free(bad);
	bad = replaced(text, "\"excluded\": [", "\"excluded\": [], \"extra\": [");
	parse_fails(bad, "unknown member 'extra'");
	free(bad);
	parse_fails("{\"format\": \"abbench.certificate\", \"format\": 1}", "duplicate object key");
	parse_fails("[]", "not a JSON object");
	parse_fails("{\"format\": \"abbench.show\"}", "format is 'abbench.show', not 'abbench.certificate'");
	parse_fails("", "line 1:");
	free(text);
	cert_free(&c);
}

/* ---- signatures a model logged, and coverage ------------------------------------ */

static void test_logged(void **state)
{
	(void)state;
	struct cert_logged l;
	char why[200];
	const char *line = "{\"site\": \"ln_modulate\", \"shape\": [1, 4096, 4096], \"dtype\": \"bf16\", \"eps\": 1e-05, "
			   "\"affine\": false, \"count\": 60, \"env\": {\"torch\": \"2.11.0\"}}";
	assert_true(cert_logged_parse(line, strlen(line), &l, why, sizeof why));
	assert_int_equal(l.count, 60);
	assert_true(l.sig.eps == 1e-5);
	assert_int_equal(l.sig.rank, 3);
	assert_string_equal(cert_env_get(&l.env, "torch"), "2.11.0");
	const char *bare = "{\"site\": \"s\", \"shape\": [7], \"dtype\": \"f32\", \"eps\": 1, \"affine\": true}";
	assert_true(cert_logged_parse(bare, strlen(bare), &l, why, sizeof why));
	assert_int_equal(l.count, 1);
	assert_true(l.sig.eps == 1.0 && l.sig.affine);
	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "{\"site\": \"s\", \"shape\": [], \"dtype\": \"f32\", \"eps\": 1, \"affine\": true}", "shape: expected a list" },
		{ "{\"site\": \"s\", \"shape\": [1], \"dtype\": \"f32\", \"eps\": -1, \"affine\": true}", "eps: expected a positive" },
		{ "{\"site\": \"s\", \"shape\": [1], \"dtype\": \"f32\", \"eps\": 1}", "affine: expected true or false" },
		{ "{\"site\": \"\", \"shape\": [1], \"dtype\": \"f32\", \"eps\": 1, \"affine\": true}", "site: expected a name" },
		{ "{\"site\": \"s\", \"shape\": [1], \"dtype\": \"f32\", \"eps\": 1, \"affine\": true, \"count\": 0}", "count:" },
		{ "{\"site\": \"s\", \"shape\": [1], \"dtype\": \"f32\", \"eps\": 1, \"affine\": true, \"env\": {\"a\": 1}}", "env:" },
		{ "[1]", "expected a JSON object" },
		{ "{", "column" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_false(cert_logged_parse(bad[i].line, strlen(bad[i].line), &l, why, sizeof why));
		if (!strstr(why, bad[i].want))
			fail_msg("line %zu: got: %s\nwant: %s", i, why, bad[i].want);
	}
}

static struct cert_logged logged(int64_t t, const char *torch, int64_t count)
{
	struct cert_logged l;
	memset(&l, 0, sizeof l);
	snprintf(l.sig.site, sizeof l.sig.site, "ln_modulate");
	snprintf(l.sig.dtype, sizeof l.sig.dtype, "bf16");
	l.sig.rank = 3;
	l.sig.shape[0] = 1;
	l.sig.shape[1] = t;
	l.sig.shape[2] = 4096;
	l.sig.eps = 1e-5;
	l.count = count;
	if (torch)
		cert_env_set(&l.env, "torch", torch);
	cert_env_set(&l.env, "device", "anything"); /* not judged: no new group */
	return l;
}

static void test_coverage(void **state)
{
	(void)state;
	struct cert c;
	struct coverage cv = { 0 };
	make_cert(&c);
	cert_env_set(&c.entries[0].env, "torch", "2.11.0");
	struct cert_logged lines[] = { logged(4096, "2.11.0", 30), logged(4096, "2.11.0", 30), logged(4096, NULL, 5),
				       logged(4096, "2.12.0", 7), logged(264, "2.11.0", 100) };
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		assert_int_equal(coverage_add(&cv, &lines[i], NULL), AB_OK);
	assert_int_equal(cv.n, 4);
	coverage_judge(&cv, &c);
	assert_int_equal(cv.rows[0].count, 100); /* most calls first */
	assert_int_equal(cv.rows[0].status, COVERAGE_MISSING);
	assert_int_equal(cv.rows[0].proof, 0); /* the site has an entry: its arms prove it */
	assert_int_equal(cv.rows[1].count, 60);
	assert_int_equal(cv.rows[1].lines, 2);
	assert_int_equal(cv.rows[1].status, COVERAGE_CERTIFIED);
	assert_int_equal(cv.rows[2].count, 7);
	assert_int_equal(cv.rows[2].status, COVERAGE_OTHER_ENV);
	assert_string_equal(cv.rows[2].why, "torch 2.11.0 -> 2.12.0");
	assert_int_equal(cv.rows[3].status, COVERAGE_CERTIFIED); /* no torch logged: nothing to judge by */
	assert_int_equal(cv.calls, 172);
	assert_int_equal(cv.calls_certified, 65);
	assert_int_equal(cv.n_certified, 2);
	assert_int_equal(cv.n_other_env, 1);
	assert_int_equal(cv.n_missing, 1);
	assert_string_equal(coverage_status_str(COVERAGE_OTHER_ENV), "other environment");
	coverage_free(&cv);
	cert_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_exact),     cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_of_case),    cmocka_unit_test(test_eps_text),
		cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_seal_follows_fields),
		cmocka_unit_test(test_parse_refusals), cmocka_unit_test(test_logged),
		cmocka_unit_test(test_coverage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
