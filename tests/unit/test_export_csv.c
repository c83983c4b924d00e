/*
 * test_export_csv.c - the CSV export: written, parsed back with libcsv's
 * own parser (csv_parse), and checked field by field; quoting of a case
 * name with a comma and a quote; the '+'-joined md5s of a two-output
 * slot; number formatting; the case figures from the summary (pooled arm,
 * speedup and interval, drift, the case's exactness); stdout; failed
 * writes leave no file.
 *
 * Expected strings were worked out by hand from the values put into the
 * synthetic run, and the tricky reals checked with Python:
 * '%.15g' % (3100/3) = '1033.33333333333' (the shortest round trip,
 * '1033.3333333333333', carried the last bit's noise), '%.15g' % 1e-5 =
 * '1e-05', '%.15g' % 9.95 = '9.95' (the 16-digit form is
 * '9.949999999999999').
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <csv.h>

#include "print/figure_fmt.h"
#include "print/printer.h"
#include "common/results.h"
#include "fixtures.h"

#define MAX_ROWS 16
#define MAX_FIELDS 128

static char tmpdir[64];
static char csvpath[128];

/* ---- parsing back ------------------------------------------------------- */

struct table {
	int n_rows;
	int n_fields[MAX_ROWS];
	char *f[MAX_ROWS][MAX_FIELDS];
};

static void on_field(void *s, size_t len, void *data)
{
	struct table *t = data;
	int r = t->n_rows, i = t->n_fields[r]++;
	assert_true(r < MAX_ROWS && i < MAX_FIELDS);
	t->f[r][i] = calloc(1, len + 1);
	memcpy(t->f[r][i], s, len);
}

static void on_row(int c, void *data)
{
	(void)c;
	struct table *t = data;
	t->n_rows++;
	assert_true(t->n_rows < MAX_ROWS);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void parse(const char *text, struct table *t)
{
	struct csv_parser p;
	memset(t, 0, sizeof *t);
	assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI), 0);
	assert_int_equal(csv_parse(&p, text, strlen(text), on_field, on_row, t), strlen(text));
	assert_int_equal(csv_fini(&p, on_field, on_row, t), 0);
	csv_free(&p);
}

static void table_free(struct table *t)
{
	for (int r = 0; r < MAX_ROWS; r++)
		for (int i = 0; i < MAX_FIELDS; i++)
			free(t->f[r][i]);
}

/* Column index by header name. */
static int col(const struct table *t, const char *name)
{
	for (int i = 0; i < t->n_fields[0]; i++)
		if (strcmp(t->f[0][i], name) == 0)
			return i;
	fail_msg("no column '%s'", name);
	return -1;
}

static const char *cell(const struct table *t, int row, const char *name)
{
	return t->f[row][col(t, name)];
}

/* ---- the synthetic run ---------------------------------------------------- */

/* synth_run's slots (fixtures.h): label, arm, variant and position are set.
 * Every sample of a slot equals its median, so the pooled A arm is 22
 * samples of 3000.75 ns, B 11 of 1000 ns, and every bootstrap resample
 * gives the speedup 3.00075 itself. */
static void fill_slot(struct results_slot *s, int ci, int si)
{
	s->n_samples = 10 + si;
	s->samples_ns = calloc((size_t)s->n_samples, sizeof *s->samples_ns);
	assert_non_null(s->samples_ns);
	for (int i = 0; i < s->n_samples; i++)
		s->samples_ns[i] = si == 1 ? 1000 : 3000.75;
	s->n_discarded = si;
	snprintf(s->stopping_reason, sizeof s->stopping_reason, "target_noise");
	s->median_ns = si == 1 ? 1000 : 3000.75;
	s->p10_ns = 0.1;
	s->p90_ns = 3100.0 / 3.0;
	s->min_ns = 999;
	s->max_ns = 9007199254740994.0; /* 2^53 + 2 */
	s->mean_ns = 9.95; /* '%.16g' gives 9.949999999999999, '%.15g' 9.95 */
	s->noise = 0.0125;
	s->kernel_median_ns = ci == 1 ? NAN : 2700;
	s->n_outputs = ci == 1 ? 2 : 1;
	for (int o = 0; o < s->n_outputs; o++) {
		struct results_output *x = &s->outputs[o];
		snprintf(x->tensor, sizeof x->tensor, "%s", o ? "k_out" : "q_out");
		memset(x->md5, o ? 'b' : 'a', 32);
		x->md5[0] = (char)('0' + si);
		x->bit_exact = !(si == 1 && o == 1); /* B's k_out differs */
		x->mismatches = x->bit_exact ? 0 : 5 + o;
		x->max_abs_err = o ? 0.5 : 0.0078125;
		x->max_err_ratio = o ? NAN : 0.25;
		x->has_ref = x->ref_ok = true;
	}
}

static struct results_run *make_run(void)
{
	struct results_run *r = synth_run(fill_slot);
	r->id = 42;
	for (int ci = 0; ci < r->n_cases; ci++)
		r->cases[ci].eps = 1e-5;
	r->cases[0].bytes_a = 3000;
	r->cases[0].bytes_b = 1000;
	snprintf(r->cases[1].sweep, sizeof r->cases[1].sweep, "qk");
	snprintf(r->cases[1].axis, sizeof r->cases[1].axis, "T");
	r->cases[1].axis_value = 4360;
	r->device.copy_gbps = 2.0;
	return r;
}

static int setup(void **state)
{
	(void)state;
	if (fx_tmpdir_make(tmpdir, sizeof tmpdir, "csv"))
		return -1;
	snprintf(csvpath, sizeof csvpath, "%s/out.csv", tmpdir);
	return 0;
}

static int count_entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static int teardown(void **state)
{
	(void)state;
	fx_tmpdir_remove(tmpdir);
	return 0;
}

/* The csv printer on the run's summary, into path (an outfile). */
static enum ab_rc export_run(const struct results_run *r, const char *path, struct ab_diag *d)
{
	struct summary_run *s = fx_summary(r, SUMMARY_FULL);
	struct printer_job job = { .summary = s };
	enum ab_rc rc = printer_emit(printer_find("csv"), PRINTER_SUMMARY, &job, path, d);
	fx_summary_free(s);
	return rc;
}

static void write_ok(const struct results_run *r, const char *path)
{
	struct ab_diag d = { "" };
	enum ab_rc rc = export_run(r, path, &d);
	if (rc)
		fprintf(stderr, "export: %s\n", d.msg);
	assert_int_equal(rc, AB_OK);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_header_and_rows(void **state)
{
	(void)state;
	struct results_run *r = make_run();
	write_ok(r, csvpath);
	char *text = slurp(csvpath);
	const char *want = "case,site,shape,dtype,arm,slot,samples,median_ns,p10_ns,p90_ns,md5,bit_exact,";
	assert_int_equal(strncmp(text, want, strlen(want)), 0);
	struct table t;
	parse(text, &t);
	assert_int_equal(t.n_rows, 7); /* header + 2 cases x 3 slots */
	for (int row = 0; row < t.n_rows; row++)
		assert_int_equal(t.n_fields[row], t.n_fields[0]);
	const char *more[] = { "variant", "eps", "input", "stopping_reason", "discarded", "noise", "kernel_median_ns",
			       "max_abs_err", "ref_ok", "run_id" };
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
		assert_true(col(&t, more[i]) >= 12);

	/* row 2: case 0, slot B */
	assert_string_equal(cell(&t, 2, "site"), "ln_modulate");
	assert_string_equal(cell(&t, 2, "shape"), "1x4096x4096");
	assert_string_equal(cell(&t, 2, "dtype"), "bf16");
	assert_string_equal(cell(&t, 2, "arm"), "b");
	assert_string_equal(cell(&t, 2, "slot"), "B");
	assert_string_equal(cell(&t, 2, "variant"), "fused");
	assert_string_equal(cell(&t, 2, "samples"), "11");
	assert_string_equal(cell(&t, 2, "discarded"), "1");
	assert_string_equal(cell(&t, 2, "median_ns"), "1000");
	assert_string_equal(cell(&t, 3, "median_ns"), "3000.75");
	assert_string_equal(cell(&t, 2, "p10_ns"), "0.1");
	assert_string_equal(cell(&t, 2, "p90_ns"), "1033.33333333333"); /* 15 digits, no last-bit noise */
	assert_true(fabs(strtod(cell(&t, 2, "p90_ns"), NULL) / (3100.0 / 3.0) - 1) < 1e-14);
	assert_string_equal(cell(&t, 2, "max_ns"), "9007199254740994");
	assert_string_equal(cell(&t, 2, "eps"), "1e-05");
	assert_string_equal(cell(&t, 2, "noise"), "0.0125");
	assert_string_equal(cell(&t, 2, "mean_ns"), "9.95"); /* %.15g, not 9.949999999999999 */
	assert_string_equal(cell(&t, 2, "input"), "normal(mean=0, std=1)");
	assert_string_equal(cell(&t, 2, "stopping_reason"), "target_noise");
	assert_string_equal(cell(&t, 2, "kernel_median_ns"), "2700");
	assert_string_equal(cell(&t, 5, "kernel_median_ns"), ""); /* NAN */
	assert_string_equal(cell(&t, 2, "run_id"), "42");
	assert_string_equal(cell(&t, 1, "slot"), "A1");
	assert_string_equal(cell(&t, 3, "slot"), "A2");
	assert_string_equal(cell(&t, 3, "arm"), "a");
	/* sweeps and bandwidth: B's 1000 bytes in 1000 ns, 1 GB/s, 50% of 2 GB/s */
	assert_string_equal(cell(&t, 2, "sweep"), "");
	assert_string_equal(cell(&t, 2, "axis_value"), "");
	assert_string_equal(cell(&t, 5, "sweep"), "qk");
	assert_string_equal(cell(&t, 5, "axis"), "T");
	assert_string_equal(cell(&t, 5, "axis_value"), "4360");
	assert_string_equal(cell(&t, 2, "bytes"), "1000");
	assert_string_equal(cell(&t, 2, "gbps"), "1");
	assert_string_equal(cell(&t, 2, "pct_copy"), "50");
	assert_string_equal(cell(&t, 3, "bytes"), "3000");
	assert_true(fabs(strtod(cell(&t, 3, "gbps"), NULL) / (3000 / 3000.75) - 1) < 1e-14);
	assert_string_equal(cell(&t, 5, "bytes"), ""); /* unknown: a run from before the bytes */
	assert_string_equal(cell(&t, 5, "gbps"), "");
	assert_string_equal(cell(&t, 5, "pct_copy"), "");
	table_free(&t);
	free(text);
	results_run_free(r);
}

static void test_case_figures(void **state)
{
	(void)state;
	struct results_run *r = make_run();
	r->cases[1].slots[2].median_ns = 3750.9375; /* A2 of qk 25% above A1 */
	write_ok(r, csvpath);
	char *text = slurp(csvpath);
	struct table t;
	parse(text, &t);
	const char *last[] = { "run_id", "arm_samples", "arm_median_ns", "arm_p10_ns", "arm_p90_ns", "speedup",
			       "speedup_low", "speedup_high", "drift", "case_bit_exact" };
	for (size_t i = 0; i < sizeof last / sizeof last[0]; i++)
		assert_int_equal(col(&t, last[i]), 26 + (int)i);
	for (int row = 1; row <= 3; row += 2) { /* A1 and A2 of case 0: the A arm pooled */
		assert_string_equal(cell(&t, row, "arm_samples"), "22");
		assert_string_equal(cell(&t, row, "arm_median_ns"), "3000.75");
		assert_string_equal(cell(&t, row, "arm_p10_ns"), "3000.75");
	}
	assert_string_equal(cell(&t, 2, "arm_samples"), "11");
	assert_string_equal(cell(&t, 2, "arm_p90_ns"), "1000");
	for (int row = 1; row <= 6; row++) { /* every sample equal: a point interval */
		assert_string_equal(cell(&t, row, "speedup"), "3.00075");
		assert_string_equal(cell(&t, row, "speedup_low"), "3.00075");
		assert_string_equal(cell(&t, row, "speedup_high"), "3.00075");
	}
	assert_string_equal(cell(&t, 1, "drift"), "0");
	assert_string_equal(cell(&t, 4, "drift"), "0.25"); /* 750.1875 / 3000.75, exactly */
	assert_string_equal(cell(&t, 2, "case_bit_exact"), "1");
	assert_string_equal(cell(&t, 4, "case_bit_exact"), "0"); /* B's k_out differs */
	table_free(&t);
	free(text);
	results_run_free(r);
}

static void test_quoting(void **state)
{
	(void)state;
	struct results_run *r = make_run();
	write_ok(r, csvpath);
	char *text = slurp(csvpath);
	/* RFC 4180: the field quoted, its quotes doubled */
	assert_non_null(strstr(text, "\n\"img, \"\"big\"\"\",ln_modulate,"));
	assert_non_null(strstr(text, ",\"normal(mean=0, std=1)\","));
	struct table t;
	parse(text, &t);
	for (int row = 1; row <= 3; row++)
		assert_string_equal(cell(&t, row, "case"), "img, \"big\"");
	assert_string_equal(cell(&t, 4, "case"), "qk");
	table_free(&t);
	free(text);
	results_run_free(r);
}

static void test_multi_output_md5(void **state)
{
	(void)state;
	struct results_run *r = make_run();
	write_ok(r, csvpath);
	char *text = slurp(csvpath);
	struct table t;
	parse(text, &t);
	/* case 0: one output, md5 as is */
	assert_string_equal(cell(&t, 1, "md5"), "0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_string_equal(cell(&t, 2, "bit_exact"), "1");
	/* case 1 (rows 4..6): q_out + k_out in tensor order */
	assert_string_equal(cell(&t, 4, "md5"), "0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa+0bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	assert_string_equal(cell(&t, 5, "md5"), "1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa+1bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	assert_string_equal(cell(&t, 4, "bit_exact"), "1");
	assert_string_equal(cell(&t, 5, "bit_exact"), "0"); /* k_out of B differs */
	assert_string_equal(cell(&t, 6, "bit_exact"), "1");
	assert_string_equal(cell(&t, 5, "mismatches"), "6"); /* 0 + (5 + 1) */
	/* max over outputs: max(0.0078125, 0.5); max_err_ratio ignores k's NAN */
	assert_string_equal(cell(&t, 5, "max_abs_err"), "0.5");
	assert_string_equal(cell(&t, 5, "max_err_ratio"), "0.25");
	assert_string_equal(cell(&t, 1, "max_abs_err"), "0.0078125");
	assert_string_equal(cell(&t, 5, "ref_ok"), "1");
	table_free(&t);
	free(text);

	/* a slot without outputs leaves md5 and verdicts empty */
	r->cases[0].slots[0].n_outputs = 0;
	r->cases[1].slots[0].outputs[1].ref_ok = false;
	write_ok(r, csvpath);
	text = slurp(csvpath);
	parse(text, &t);
	assert_string_equal(cell(&t, 1, "md5"), "");
	assert_string_equal(cell(&t, 1, "bit_exact"), "");
	assert_string_equal(cell(&t, 1, "ref_ok"), "");
	assert_string_equal(cell(&t, 4, "ref_ok"), "0");
	table_free(&t);
	free(text);
	results_run_free(r);
}

static void test_replaces_and_mode(void **state)
{
	(void)state;
	FILE *f = fopen(csvpath, "w");
	fputs("old content that is longer than nothing\n", f);
	fclose(f);
	mode_t old = umask(022);
	struct results_run *r = make_run();
	write_ok(r, csvpath);
	umask(old);
	struct stat sb;
	assert_int_equal(stat(csvpath, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	char *text = slurp(csvpath);
	assert_int_equal(strncmp(text, "case,", 5), 0);
	assert_null(strstr(text, "old content"));
	assert_int_equal(count_entries(tmpdir), 1); /* no temporary left */
	free(text);
	results_run_free(r);
}

static void test_stdout(void **state)
{
	(void)state;
	struct results_run *r = make_run();
	fflush(stdout);
	int saved = dup(1);
	int fd = open(csvpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	close(fd);
	struct ab_diag d = { "" };
	enum ab_rc rc = export_run(r, "-", &d);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(rc, AB_OK);
	char *text = slurp(csvpath);
	struct table t;
	parse(text, &t);
	assert_int_equal(t.n_rows, 7);
	assert_string_equal(t.f[0][0], "case");
	table_free(&t);
	free(text);
	results_run_free(r);
}

static void test_failed_write_leaves_nothing(void **state)
{
	(void)state;
	struct results_run *r = make_run();
	struct ab_diag d = { "" };
	char path[256];
	snprintf(path, sizeof path, "%s/no/such/dir/out.csv", tmpdir);
	assert_int_equal(export_run(r, path, &d), AB_ERR_IO);
	assert_non_null(strstr(d.msg, "cannot write '"));
	assert_non_null(strstr(d.msg, "No such file or directory"));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(count_entries(tmpdir), 0);

	/* a directory is refused before anything is written */
	snprintf(path, sizeof path, "%s/adir", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(export_run(r, path, &d), AB_ERR_USAGE);
	assert_non_null(strstr(d.msg, "is a directory"));
	assert_int_equal(count_entries(tmpdir), 1); /* only adir */
	assert_int_equal(count_entries(path), 0);
	results_run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header_and_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_case_figures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multi_output_md5, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaces_and_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_leaves_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
