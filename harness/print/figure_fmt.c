/*
 * figure_fmt.c - figures formatted by hint for each sink, and the tables
 * of a view (figure_fmt.h).
 */
#include "print/figure_fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print/escape.h"
#include "print/json_out.h"
#include "print/md.h"

/* ---- numbers, for text and markdown alike --------------------------------- */

static void put_interval(char *buf, size_t len, const char *fmt_lo_hi, int digits, double lo, double hi)
{
	if (isnan(lo))
		snprintf(buf, len, " [n/a]");
	else
		snprintf(buf, len, fmt_lo_hi, digits, lo, digits, hi);
}

/* "4.001x [3.990, 4.009]"; bold marks the point (markdown: a good one). */
static void ratio_text(const struct figure *f, const struct figure_value *v, const char *bold, char *buf, size_t len)
{
	char iv[64] = "";
	int dg = f->digits ? f->digits : 3;
	if (f->ci)
		put_interval(iv, sizeof iv, " [%.*f, %.*f]", dg, v->lo, v->hi);
	snprintf(buf, len, "%s%.*fx%s%s", bold, dg, v->x, bold, iv);
}

/* "3.2 (19.8%)", "3.2 (cache-resident)", "3.2". */
static void bandwidth_text(const struct figure_value *v, char *buf, size_t len)
{
	if (v->words)
		snprintf(buf, len, "%.1f (%s)", v->x, v->words);
	else if (!isnan(v->x2))
		snprintf(buf, len, "%.1f (%.1f%%)", v->x, v->x2);
	else
		snprintf(buf, len, "%.1f", v->x);
}

/* "22.60 us", with its label "GPU 22.60 us", with a second value
 * "GPU 22.60 us, host 38.10 us". */
static void duration_text(const struct figure *f, const struct figure_value *v, char *buf, size_t len)
{
	char a[32], b[32];
	const char *l = f->label ? f->label : "";
	if (isnan(v->x2))
		snprintf(buf, len, "%s%s%s", l, l[0] ? " " : "", md_time(v->x, a, sizeof a));
	else
		snprintf(buf, len, "%s%s%s, %s %s", l, l[0] ? " " : "", md_time(v->x, a, sizeof a),
			 f->label2 ? f->label2 : "and", md_time(v->x2, b, sizeof b));
}

/* A number hint as people read it; md: markdown (a good ratio bold). */
static char *number_text(const struct figure *f, const struct figure_value *v, bool md, char *buf, size_t len)
{
	if (v->absent) {
		snprintf(buf, len, "%s", v->words ? v->words : "n/a");
		return buf;
	}
	switch (f->hint) {
	case FIGURE_DURATION: duration_text(f, v, buf, len); break;
	case FIGURE_RATIO: ratio_text(f, v, md && v->good ? "**" : "", buf, len); break;
	case FIGURE_FRACTION: snprintf(buf, len, "%.2f%%", 100 * v->x); break;
	case FIGURE_PERCENT: snprintf(buf, len, "%.*f%%", f->digits ? f->digits : 1, v->x); break;
	case FIGURE_BANDWIDTH: bandwidth_text(v, buf, len); break;
	case FIGURE_BYTES: md_bytes(v->x, buf, len); break;
	case FIGURE_NUMBER: snprintf(buf, len, "%.*g", f->digits ? f->digits : 3, v->x); break;
	case FIGURE_SPREAD: md_spread_str(v->x, v->lo, v->hi, v->n, buf, len); break;
	case FIGURE_COUNT:
		if (isnan(v->x2))
			snprintf(buf, len, "%.0f", v->x);
		else
			snprintf(buf, len, "%.0f/%.0f", v->x, v->x2);
		break;
	default: snprintf(buf, len, "?"); break;
	}
	return buf;
}

static bool is_words(enum figure_hint h)
{
	return h == FIGURE_TEXT || h == FIGURE_NAME || h == FIGURE_DIGEST || h == FIGURE_FLAG || h == FIGURE_VERDICT;
}

/* Each md5 of a '+'-joined list cut to its first 8 digits. */
static void digest_short(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const char *p = s; p && *p && o + 1 < len;) {
		const char *e = strchr(p, '+');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? "+" : "", (int)(n < 8 ? n : 8), p);
		p = e ? e + 1 : p + n;
	}
}

char *figure_fmt_text(const struct figure *f, const struct figure_value *v, char *buf, size_t len)
{
	char raw[256];
	if (!is_words(f->hint))
		return number_text(f, v, false, buf, len);
	if ((f->hint == FIGURE_FLAG || f->hint == FIGURE_TEXT || f->hint == FIGURE_NAME) && v->absent)
		snprintf(raw, sizeof raw, "%s", v->words ? v->words : "n/a");
	else if (f->hint == FIGURE_FLAG)
		snprintf(raw, sizeof raw, "%s", v->text ? v->text : v->x ? "yes" : "NO");
	else if (f->hint == FIGURE_DIGEST)
		digest_short(v->text, raw, sizeof raw);
	else
		snprintf(raw, sizeof raw, "%s", f->hint == FIGURE_VERDICT ? v->words : v->text ? v->text : "");
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
	if ((f->hint == FIGURE_TEXT || f->hint == FIGURE_NAME) && v->absent) {
		md_cell(out, v->words ? v->words : "n/a");
		return;
	}
	switch (f->hint) {
	case FIGURE_TEXT: md_cell(out, v->text); break;
	case FIGURE_NAME: md_code(out, v->text); break;
	case FIGURE_DIGEST: md_code(out, v->text); break;
	case FIGURE_VERDICT: md_cell(out, v->words); break;
	case FIGURE_FLAG:
		if (v->absent || v->text)
			md_cell(out, v->absent ? v->words ? v->words : "n/a" : v->text);
		else
			fputs(v->x ? "yes" : "**no**", out);
		break;
	default: fputs(number_text(f, v, true, buf, sizeof buf), out); break;
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *digest_list(const char *s)
{
	json_t *a = json_array();
	bool ok = a != NULL;
	for (const char *p = s; ok && p && *p;) {
		const char *e = strchr(p, '+');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		ok = json_out_push(a, json_stringn(p, n));
		p = e ? e + 1 : p + n;
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
		if (f->ci)
			return json_out_interval((struct stats_interval){ x, v->lo, v->hi });
		return json_out_num(x);
	default: return json_out_num(x);
	}
}

json_t *figure_fmt_json2(const struct figure *f, const struct figure_value *v)
{
	if ((f->hint == FIGURE_COUNT || f->hint == FIGURE_BYTES) && !isnan(v->x2))
		return json_integer((json_int_t)v->x2);
	return json_out_num(v->x2);
}

/* ---- heads ------------------------------------------------------------------- */

char *figure_fmt_head(const struct figure *f, char arm, const struct results_run *r, char *buf, size_t len)
{
	const char *name = arm == 'a' ? r->arm_a : r->arm_b;
	if (f->level != FIGURE_ARM)
		snprintf(buf, len, "%s", f->head ? f->head : f->key);
	else
		snprintf(buf, len, "%c %s%s%s", arm == 'a' ? 'A' : 'B', name[0] ? name : "(per case)",
			 f->head[0] ? " " : "", f->head);
	return buf;
}

/* The columns of a case table: a row per column, arm rows twice (A, B)
 * or once (B alone, b_only). */
struct column {
	const struct figure *f;
	char arm; /* 'a', 'b' for an arm row; 0 otherwise */
};

static int case_columns(enum figure_view view, bool compact, struct column *cols, int max)
{
	const struct figure *rows[FIGURE_MAX];
	int n = figure_view_rows(view, rows, FIGURE_MAX), k = 0;
	for (int i = 0; i < n; i++) {
		if (compact && (rows[i]->full_only & FIGURE_BIT(view)))
			continue;
		if (rows[i]->level != FIGURE_ARM) {
			if (k < max)
				cols[k++] = (struct column){ rows[i], 0 };
			continue;
		}
		if (!(rows[i]->b_only & FIGURE_BIT(view)) && k < max)
			cols[k++] = (struct column){ rows[i], 'a' };
		if (k < max)
			cols[k++] = (struct column){ rows[i], 'b' };
	}
	return k;
}

static void column_value(const struct column *col, const struct summary_run *S, const struct summary_case *c,
			 const struct summary_slot *slot, struct figure_value *v)
{
	struct figure_at at = { S, c, col->arm == 'a' ? &c->a : col->arm == 'b' ? &c->b : NULL, slot };
	if (slot && !at.arm)
		at.arm = slot->slot->arm == 'a' ? &c->a : &c->b;
	figure_value_of(col->f, &at, v);
}

/* Leaves out the columns whose row is marked omit_unknown and that no row
 * of the table knows (host time on the CPU backend). The table's rows:
 * c's slots (c not NULL), else the cases idx[0..n) of S (idx NULL: every
 * case). Returns how many columns are left. */
static int drop_unknown(struct column *cols, int nc, const struct summary_run *S, const struct summary_case *c,
			const int *idx, int n)
{
	int k = 0, rows = c ? c->n_slots : idx ? n : S->n_cases;
	for (int i = 0; i < nc; i++) {
		bool known = !cols[i].f->omit_unknown;
		for (int r = 0; !known && r < rows; r++) {
			struct figure_value v;
			column_value(&cols[i], S, c ? c : &S->cases[idx ? idx[r] : r], c ? &c->slots[r] : NULL, &v);
			known = !v.absent;
		}
		if (known)
			cols[k++] = cols[i];
	}
	return k;
}

/* ---- markdown tables ----------------------------------------------------------- */

static char align_of(enum figure_hint h)
{
	return h == FIGURE_FLAG ? 'c' : is_words(h) ? 'l' : 'r';
}

void figure_fmt_md_table(FILE *out, const struct figure_fmt_md_table *t, const struct summary_run *S, const int *idx,
			 int n)
{
	struct column cols[64];
	int nc = drop_unknown(cols, case_columns(t->view, t->compact, cols, 63), S, NULL, idx, n);
	char heads[64][128], align[66];
	const char *hp[64];
	hp[0] = t->label_head;
	align[0] = t->axis ? 'r' : 'l';
	for (int i = 0; i < nc; i++) {
		hp[i + 1] = figure_fmt_head(cols[i].f, cols[i].arm, S->run, heads[i], sizeof heads[i]);
		align[i + 1] = align_of(cols[i].f->hint);
	}
	align[nc + 1] = '\0';
	md_table_head(out, nc + 1, hp, align);
	for (int r = 0; r < (idx ? n : S->n_cases); r++) {
		const struct summary_case *c = &S->cases[idx ? idx[r] : r];
		if (t->axis)
			fprintf(out, "| %lld |", (long long)c->c->axis_value);
		else {
			fputs("| ", out);
			md_case_name(out, c->c->name, c->own_arms, c->arm_a, c->arm_b);
			fputs(" |", out);
		}
		for (int i = 0; i < nc; i++) {
			struct figure_value v;
			column_value(&cols[i], S, c, NULL, &v);
			fputc(' ', out);
			figure_fmt_md(out, cols[i].f, &v);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
}

/* ---- text tables ------------------------------------------------------------------ */

/* Characters a terminal shows for s (UTF-8 continuation bytes take none). */
static int display_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

#define CELL 256 /* a cell: a 63-byte name with every byte escaped (\xNN) fits */

struct text_grid {
	int n_rows, n_cols;
	char (*cell)[CELL];   /* [(n_rows + 1) * n_cols]: the heads first */
	char (*tail)[CELL];   /* [n_rows]: after the last column, unaligned */
	bool right[65];
};

static void grid_print(FILE *out, const struct text_grid *g, const char *indent, const struct summary_case *c,
		       figure_fmt_after_fn after)
{
	int width[65] = { 0 };
	for (int r = 0; r <= g->n_rows; r++)
		for (int k = 0; k < g->n_cols; k++) {
			int w = display_width(g->cell[r * g->n_cols + k]);
			width[k] = w > width[k] ? w : width[k];
		}
	for (int r = 0; r <= g->n_rows; r++) {
		fputs(indent, out);
		for (int k = 0; k < g->n_cols; k++) {
			const char *s = g->cell[r * g->n_cols + k];
			int pad = width[k] - display_width(s);
			bool last = k == g->n_cols - 1 && !(r && g->tail[r - 1][0]);
			if (g->right[k])
				fprintf(out, "%*s%s", pad, "", s);
			else
				fprintf(out, "%s%*s", s, last ? 0 : pad, "");
			if (k < g->n_cols - 1)
				fputs("  ", out);
		}
		if (r && g->tail[r - 1][0])
			fputs(g->tail[r - 1], out);
		fputc('\n', out);
		if (r && c && after)
			after(out, &c->slots[r - 1]);
	}
}

enum ab_rc figure_fmt_text_table(FILE *out, enum figure_view view, const struct summary_run *S,
			     const struct summary_case *c, const char *indent, figure_fmt_after_fn after,
			     struct ab_diag *d)
{
	struct column cols[64];
	int nc = drop_unknown(cols, case_columns(view, false, cols, 63), S, c, NULL, 0), first = c ? 0 : 1;
	struct text_grid g = { c ? c->n_slots : S->n_cases, nc + first, NULL, NULL, { false } };
	g.cell = calloc((size_t)(g.n_rows + 1) * (size_t)g.n_cols, sizeof *g.cell);
	g.tail = calloc((size_t)g.n_rows + 1, sizeof *g.tail);
	if (!g.cell || !g.tail) {
		free(g.cell);
		free(g.tail);
		return ab_fail(d, AB_ERR_NOMEM, "out of memory printing a table");
	}
	if (first)
		snprintf(g.cell[0], CELL, "case");
	for (int k = 0; k < nc; k++) {
		char h[CELL];
		figure_fmt_head(cols[k].f, cols[k].arm, S->run, h, sizeof h);
		escape_term(h, g.cell[first + k], CELL);
		g.right[first + k] = !is_words(cols[k].f->hint);
	}
	for (int r = 0; r < g.n_rows; r++) {
		const struct summary_case *sc = c ? c : &S->cases[r];
		const struct summary_slot *sl = c ? &c->slots[r] : NULL;
		char *row = g.cell[(r + 1) * g.n_cols];
		if (first) {
			char a[128], b[128];
			escape_term(sc->c->name, row, CELL);
			if (sc->own_arms) /* the case's own arms, not the columns' */
				snprintf(g.tail[r], CELL, "  a=%s b=%s", escape_term(sc->arm_a, a, sizeof a),
					 escape_term(sc->arm_b, b, sizeof b));
		}
		for (int k = 0; k < nc; k++) {
			struct figure_value v;
			column_value(&cols[k], S, sc, sl, &v);
			figure_fmt_text(cols[k].f, &v, g.cell[(r + 1) * g.n_cols + first + k], CELL);
		}
	}
	grid_print(out, &g, indent, c, after);
	free(g.cell);
	free(g.tail);
	return AB_OK;
}
