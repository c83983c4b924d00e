/*
 * figure_fmt.c - figures formatted by hint for each sink, and the tables
 * of a view (figure_fmt.h).
 */
#include "print/figure_fmt.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "print/escape.h"
#include "print/json_out.h"
#include "print/md.h"

/* ---- numbers and words, for text and markdown alike ----------------------- */

/* A number hint as people read it; md: markdown (a good ratio bold). */
static char *number_text(const struct figure *f, const struct figure_value *v, bool md, char *buf, size_t len)
{
	const char *bold = md && v->good ? "**" : "", *l = f->label ? f->label : "";
	int dg = f->digits ? f->digits : 3;
	char t[32], t2[32];
	if (v->absent) {
		snprintf(buf, len, "%s", v->words ? v->words : "n/a");
		return buf;
	}
	switch (f->hint) {
	case FIGURE_DURATION: /* "22.60 us"; with its label "GPU 22.60 us"; with a second value, ", host 38.10 us" */
		snprintf(buf, len, isnan(v->x2) ? "%s%s%s" : "%s%s%s, %s %s", l, l[0] ? " " : "",
			 md_time(v->x, t, sizeof t), f->label2 ? f->label2 : "and", md_time(v->x2, t2, sizeof t2));
		break;
	case FIGURE_RATIO: /* "4.001x [3.990, 4.009]", bold where good in markdown */
		if (!f->ci)
			snprintf(buf, len, "%s%.*fx%s", bold, dg, v->x, bold);
		else if (isnan(v->lo))
			snprintf(buf, len, "%s%.*fx%s [n/a]", bold, dg, v->x, bold);
		else
			snprintf(buf, len, "%s%.*fx%s [%.*f, %.*f]", bold, dg, v->x, bold, dg, v->lo, dg, v->hi);
		break;
	case FIGURE_FRACTION: snprintf(buf, len, "%.2f%%", 100 * v->x); break;
	case FIGURE_PERCENT: snprintf(buf, len, "%.*f%%", f->digits ? f->digits : 1, v->x); break;
	case FIGURE_BANDWIDTH: /* "3.2 (19.8%)", "3.2 (cache-resident)", "3.2" */
		if (v->words)
			snprintf(buf, len, "%.1f (%s)", v->x, v->words);
		else if (!isnan(v->x2))
			snprintf(buf, len, "%.1f (%.1f%%)", v->x, v->x2);
		else
			snprintf(buf, len, "%.1f", v->x);
		break;
	case FIGURE_BYTES: md_bytes(v->x, buf, len); break;
	case FIGURE_NUMBER: snprintf(buf, len, "%.*g", dg, v->x); break;
	case FIGURE_SPREAD: md_spread_str(v->x, v->lo, v->hi, v->n, buf, len); break;
	case FIGURE_COUNT: snprintf(buf, len, isnan(v->x2) ? "%.0f" : "%.0f/%.0f", v->x, v->x2); break;
	default: snprintf(buf, len, "?"); break;
	}
	return buf;
}

static bool is_words(enum figure_hint h)
{
	return h == FIGURE_TEXT || h == FIGURE_NAME || h == FIGURE_DIGEST || h == FIGURE_FLAG || h == FIGURE_VERDICT;
}

/* The words of a word hint, but a digest's (text cuts it, markdown codes
 * it) and a known flag's without a word of its own (is_yes_no: each sink
 * spells it). */
static const char *words_of(const struct figure *f, const struct figure_value *v)
{
	if (v->absent && (f->hint == FIGURE_FLAG || f->hint == FIGURE_TEXT || f->hint == FIGURE_NAME))
		return v->words ? v->words : "n/a";
	return f->hint == FIGURE_VERDICT ? v->words : v->text ? v->text : "";
}

static bool is_yes_no(const struct figure *f, const struct figure_value *v)
{
	return f->hint == FIGURE_FLAG && !v->absent && !v->text;
}

char *figure_fmt_text(const struct figure *f, const struct figure_value *v, char *buf, size_t len)
{
	char raw[256] = "";
	size_t o = 0;
	if (!is_words(f->hint))
		return number_text(f, v, false, buf, len);
	if (f->hint != FIGURE_DIGEST)
		return escape_term(is_yes_no(f, v) ? v->x ? "yes" : "NO" : words_of(f, v), buf, len);
	for (const char *p = v->text; p && *p && o + 1 < sizeof raw;) { /* each md5 cut to its first 8 digits */
		size_t n = strcspn(p, "+");
		o += (size_t)snprintf(raw + o, sizeof raw - o, "%s%.*s", o ? "+" : "", (int)(n < 8 ? n : 8), p);
		p += n + (p[n] == '+');
	}
	return escape_term(raw, buf, len);
}

char *figure_fmt_text_at(const char *key, const struct figure_at *at, char *buf, size_t len)
{
	struct figure_value v;
	const struct figure *f = figure_find(key);
	if (!f) {
		snprintf(buf, len, "?");
		return buf;
	}
	figure_value_of(f, at, &v);
	return figure_fmt_text(f, &v, buf, len);
}

void figure_fmt_md(FILE *out, const struct figure *f, const struct figure_value *v)
{
	char buf[256];
	if (!is_words(f->hint))
		fputs(number_text(f, v, true, buf, sizeof buf), out);
	else if (f->hint == FIGURE_DIGEST || (f->hint == FIGURE_NAME && !v->absent))
		md_code(out, v->text);
	else if (is_yes_no(f, v))
		fputs(v->x ? "yes" : "**no**", out);
	else
		md_cell(out, words_of(f, v));
}

void term_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	escape_vprintf(f, ab_put_escaped, NULL, fmt, ap);
	va_end(ap);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *digest_list(const char *s)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (const char *p = s; ok && p && *p;) {
		size_t n = strcspn(p, "+");
		ok = json_out_push(a, json_stringn(p, n));
		p += n + (p[n] == '+');
	}
	return json_out_whole(a, ok);
}

json_t *figure_fmt_json(const struct figure *f, const struct figure_value *v)
{
	double x = v->absent ? NAN : v->x;
	switch (f->hint) {
	case FIGURE_TEXT: case FIGURE_NAME:
		return v->absent ? json_null() : json_string(v->text ? v->text : "");
	case FIGURE_VERDICT: return json_string(v->text ? v->text : "");
	case FIGURE_DIGEST: return digest_list(v->text);
	case FIGURE_FLAG: return json_boolean(v->x != 0);
	case FIGURE_COUNT: case FIGURE_BYTES: return isnan(x) ? json_null() : json_integer((json_int_t)x);
	case FIGURE_RATIO:
		return f->ci ? json_out_interval((struct stats_interval){ x, v->lo, v->hi }) : json_out_num(x);
	default: return json_out_num(x);
	}
}

json_t *figure_fmt_json2(const struct figure *f, const struct figure_value *v)
{
	if ((f->hint == FIGURE_COUNT || f->hint == FIGURE_BYTES) && !isnan(v->x2))
		return json_integer((json_int_t)v->x2);
	return json_out_num(v->x2);
}

/* ---- tables ------------------------------------------------------------------ */

/* A column head: an arm row's is "A ARM HEAD" (ARM: the run's arm, "(per
 * case)" when each case names its own). */
static char *column_head(const struct figure *f, char arm, const struct results_run *r, char *buf, size_t len)
{
	const char *name = arm == 'a' ? r->arm_a : r->arm_b;
	if (f->level != FIGURE_ARM)
		snprintf(buf, len, "%s", f->head ? f->head : f->key);
	else
		snprintf(buf, len, "%c %s%s%s", arm == 'a' ? 'A' : 'B', name[0] ? name : "(per case)",
			 f->head[0] ? " " : "", f->head);
	return buf;
}

/* A case table: its columns (a row of the view each, an arm row's twice,
 * for A and B, or B alone where b_only; the first, f NULL, the case's
 * name), and its rows: c's slots (c not NULL), else the cases idx[0..n)
 * of S (idx NULL: every case). */
struct column {
	const struct figure *f;
	char arm; /* 'a', 'b' for an arm row; 0 otherwise */
};

struct table {
	const struct summary_run *S;
	const struct summary_case *c;
	const int *idx;
	int n_rows, nc;
	struct column cols[64];
};

static void cell_value(const struct table *t, int r, const struct column *col, struct figure_value *v)
{
	const struct summary_case *c = t->c ? t->c : &t->S->cases[t->idx ? t->idx[r] : r];
	const struct summary_slot *slot = t->c ? &t->c->slots[r] : NULL;
	struct figure_at at = { t->S, c, col->arm == 'a' ? &c->a : col->arm == 'b' ? &c->b : NULL, slot };
	if (slot && !at.arm)
		at.arm = slot->slot->arm == 'a' ? &c->a : &c->b;
	figure_value_of(col->f, &at, v);
}

/* The columns of view after the name's: compact leaves out the rows
 * marked full_only, and a row marked omit_unknown goes where no row of the
 * table knows it (host time on the CPU backend). */
static void table_columns(struct table *t, enum figure_view view, bool compact)
{
	const struct figure *rows[FIGURE_MAX];
	int n = figure_view_rows(view, rows, FIGURE_MAX), k = 1;
	t->cols[0] = (struct column){ NULL, 0 };
	for (int i = 0; i < n; i++) {
		if (compact && (rows[i]->full_only & FIGURE_BIT(view)))
			continue;
		if (rows[i]->level == FIGURE_ARM && !(rows[i]->b_only & FIGURE_BIT(view)) && k < 64)
			t->cols[k++] = (struct column){ rows[i], 'a' };
		if (k < 64)
			t->cols[k++] = (struct column){ rows[i], rows[i]->level == FIGURE_ARM ? 'b' : 0 };
	}
	t->nc = 1;
	for (int i = 1; i < k; i++) {
		bool known = !t->cols[i].f->omit_unknown;
		for (int r = 0; !known && r < t->n_rows; r++) {
			struct figure_value v;
			cell_value(t, r, &t->cols[i], &v);
			known = !v.absent;
		}
		if (known)
			t->cols[t->nc++] = t->cols[i];
	}
}

void figure_fmt_md_table(FILE *out, const struct figure_fmt_md_table *m, const struct summary_run *S, const int *idx,
			 int n)
{
	struct table t = { S, NULL, idx, idx ? n : S->n_cases, 0, { { NULL, 0 } } };
	char heads[64][128], align[65] = "";
	const char *hp[64] = { m->label_head };
	table_columns(&t, m->view, m->compact);
	align[0] = m->axis ? 'r' : 'l';
	for (int k = 1; k < t.nc; k++) {
		hp[k] = column_head(t.cols[k].f, t.cols[k].arm, S->run, heads[k], sizeof heads[k]);
		align[k] = t.cols[k].f->hint == FIGURE_FLAG ? 'c' : is_words(t.cols[k].f->hint) ? 'l' : 'r';
	}
	md_table_head(out, t.nc, hp, align);
	for (int r = 0; r < t.n_rows; r++) {
		const struct summary_case *c = &S->cases[idx ? idx[r] : r];
		fputs("| ", out);
		if (m->axis)
			fprintf(out, "%lld", (long long)c->c->axis_value);
		else
			md_case_name(out, c->c->name, c->own_arms, c->arm_a, c->arm_b);
		for (int k = 1; k < t.nc; k++) {
			struct figure_value v;
			cell_value(&t, r, &t.cols[k], &v);
			fputs(" | ", out);
			figure_fmt_md(out, t.cols[k].f, &v);
		}
		fputs(" |\n", out);
	}
}

/* Characters a terminal shows for s (UTF-8 continuation bytes take none). */
static int display_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

#define CELL 256 /* a cell: a 63-byte name with every byte escaped (\xNN) fits */

/* The cell of row r (0: the heads) in column k of a text table, as a
 * terminal shows it; each is made once to size its column and again to
 * print it. */
static const char *text_cell(const struct table *t, int r, int k, char *buf)
{
	const struct column *col = &t->cols[k];
	char h[CELL];
	struct figure_value v;
	if (!r && !col->f)
		return strcpy(buf, "case");
	if (!r)
		return escape_term(column_head(col->f, col->arm, t->S->run, h, sizeof h), buf, CELL);
	if (!col->f)
		return escape_term(t->S->cases[r - 1].c->name, buf, CELL);
	cell_value(t, r - 1, col, &v);
	return figure_fmt_text(col->f, &v, buf, CELL);
}

void figure_fmt_text_table(FILE *out, const struct summary_run *S, const struct summary_case *c,
			   void (*after)(FILE *out, const struct summary_slot *slot))
{
	struct table t = { S, c, NULL, c ? c->n_slots : S->n_cases, 0, { { NULL, 0 } } };
	int width[64] = { 0 }, first = c ? 1 : 0; /* a slot's table has no name column */
	char s[CELL];
	table_columns(&t, c ? FIGURE_IN_SHOW : FIGURE_IN_RUN, false);
	for (int r = 0; r <= t.n_rows; r++)
		for (int k = first; k < t.nc; k++) {
			int w = display_width(text_cell(&t, r, k, s));
			width[k] = w > width[k] ? w : width[k];
		}
	for (int r = 0; r <= t.n_rows; r++) {
		const struct summary_case *own = !c && r && S->cases[r - 1].own_arms ? &S->cases[r - 1] : NULL;
		fputs(c ? "  " : "", out);
		for (int k = first; k < t.nc; k++) {
			int pad = width[k] - display_width(text_cell(&t, r, k, s));
			if (t.cols[k].f && !is_words(t.cols[k].f->hint))
				fprintf(out, "%*s%s", pad, "", s);
			else
				fprintf(out, "%s%*s", s, k == t.nc - 1 && !own ? 0 : pad, "");
			if (k < t.nc - 1)
				fputs("  ", out);
		}
		if (own) /* the case's own arms, not the columns' */
			term_printf(out, "  a=%s b=%s", own->arm_a, own->arm_b);
		fputc('\n', out);
		if (r && c && after)
			after(out, &c->slots[r - 1]);
	}
}
