/*
 * scenario_read.c - the lines of a scenario, before inih sees them, and
 * its sections (scenario_int.h).
 *
 * The reader handles what inih does poorly for us: it rejects lines inih
 * would silently split (longer than its line buffer), recognises section
 * headers itself (inih truncates long section names and never reports a
 * section without keys), and strips leading blanks so that an indented
 * line is never taken as the continuation of the previous value.
 */
#include "config/scenario_int.h"
#include "common/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum ab_rc add_case(struct pctx *c, const char *name)
{
	struct scenario *s = c->scn;
	for (int i = 0; i < s->n_cases; i++)
		if (strcmp(s->cases[i].name, name) == 0)
			return scenario_perr(c, c->line, NULL, "[case %s]: duplicate case name (first at line %d)", name,
				    s->cases[i].line);
	if (s->n_cases == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		struct scenario_case *nc = realloc(s->cases, (size_t)cap * sizeof *nc);
		if (!nc)
			return scenario_nomem(c);
		s->cases = nc;
		struct scope *ns = realloc(c->cscope, (size_t)cap * sizeof *ns);
		if (!ns)
			return scenario_nomem(c);
		c->cscope = ns;
		struct sweep *nw = realloc(c->sweeps, (size_t)cap * sizeof *nw);
		if (!nw)
			return scenario_nomem(c);
		c->sweeps = nw;
		struct case_text *nt = realloc(c->ctext, (size_t)cap * sizeof *nt);
		if (!nt)
			return scenario_nomem(c);
		c->ctext = nt;
		c->cap = cap;
	}
	struct scenario_case *cs = &s->cases[s->n_cases];
	*cs = (struct scenario_case){ .eps = 1e-5, .affine = false, .count = 1, .line = c->line, .arm_ref = { -1, -1 } };
	memcpy(cs->name, name, strlen(name) + 1);
	c->cscope[s->n_cases] = (struct scope){ .header_line = c->line };
	c->sweeps[s->n_cases].dim = -1;
	memset(&c->ctext[s->n_cases], 0, sizeof c->ctext[0]);
	c->cur = s->n_cases++;
	c->sec = SEC_CASE;
	return AB_OK;
}

static enum ab_rc open_case(struct pctx *c, const char *inner, const char *name)
{
	size_t n = strlen(name);
	if (n == 0)
		return scenario_perr(c, c->line, NULL, "[%s]: a case needs a name, as in [case img_ln_modulate]", inner);
	if (!scenario_name_ok(name))
		return scenario_perr(c, c->line, NULL, "[%s]: case name '%s' may use only letters, digits, '_', '-' and '.'",
			    inner, name);
	if (n >= SCENARIO_NAME_MAX)
		return scenario_perr(c, c->line, NULL, "[%s]: case name is %zu characters long, at most %d allowed", inner, n,
			    SCENARIO_NAME_MAX - 1);
	return add_case(c, name);
}

/* "[case NAME]" or "[arm NAME]": the word, then the name after blanks. */
static const char *named_section(const char *inner, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(inner, word, n) != 0 || (inner[n] != '\0' && !isspace((unsigned char)inner[n])))
		return NULL;
	inner += n;
	while (isspace((unsigned char)*inner))
		inner++;
	return inner;
}

/* inner is the text between the brackets, blanks trimmed. An included
 * file has [site NAME] sections only. */
static enum ab_rc open_section(struct pctx *c, const char *inner)
{
	const char *name = named_section(inner, "site");
	if (name)
		return scenario_site_open(c, inner, name);
	if (c->included)
		return scenario_perr(c, c->line, NULL, "[%s]: an included file holds [site NAME] sections only", inner);
	for (int s = SEC_SCENARIO; s < SEC_CASE; s++) {
		if (strcmp(inner, scenario_keys_sections[s].name) != 0)
			continue;
		if (c->fixed[s].header_line)
			return scenario_perr(c, c->line, NULL, "[%s]: section repeated (first at line %d)", inner,
				    c->fixed[s].header_line);
		c->fixed[s].header_line = c->line;
		c->sec = (enum section)s;
		return AB_OK;
	}
	if ((name = named_section(inner, "case")))
		return open_case(c, inner, name);
	if ((name = named_section(inner, "arm")))
		return scenario_arms_open(c, inner, name);
	static const char *const sections_known[] = { "scenario", "arms", "model", "case", "arm", "site" };
	char first[32], dym[64] = "";
	snprintf(first, sizeof first, "%.*s", (int)strcspn(inner, " \t"), inner);
	const char *near = suggest_nearest(first, sections_known, 6);
	if (near)
		snprintf(dym, sizeof dym, "did you mean [%s%s]? ", near,
			 !strcmp(near, "case") || !strcmp(near, "arm") || !strcmp(near, "site") ? " NAME" : "");
	return scenario_perr(c, c->line, NULL,
		    "[%s]: unknown section (%ssections: [scenario], [arms], [model], [case NAME], [arm NAME], [site NAME])",
		    inner, dym);
}

/* A "[...]" line (leading blanks already gone). */
static enum ab_rc section_line(struct pctx *c, const char *line)
{
	char inner[256];
	const char *close = strchr(line, ']');
	if (!close)
		return scenario_perr(c, c->line, NULL, "section header '%s' has no closing ']'", line);
	const char *rest = close + 1;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest && *rest != ';' && *rest != '#')
		return scenario_perr(c, c->line, NULL, "text after the section header: '%s'", rest);
	const char *b = line + 1, *e = close;
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	/* The line fits inih's buffer, so the name fits ours. */
	memcpy(inner, b, (size_t)(e - b));
	inner[e - b] = '\0';
	return open_section(c, inner);
}

/* Whether a key line has its '=' or ':' before any inline comment, as inih
 * demands (a ';' after a blank starts a comment). */
static bool has_separator(const char *s)
{
	bool was_space = false;
	for (; *s; s++) {
		if (*s == '=' || *s == ':')
			return true;
		if (was_space && *s == ';')
			return false;
		was_space = isspace((unsigned char)*s);
	}
	return false;
}

/* Looks at a line before inih does: sections are ours, and a line inih
 * would call an error gets a message. */
static enum ab_rc classify_line(struct pctx *c, const char *line)
{
	if (*line == '[')
		return section_line(c, line);
	if (*line == '\0' || *line == ';' || *line == '#' || has_separator(line))
		return AB_OK;
	return scenario_perr(c, c->line, NULL, "expected '[section]', 'key = value' or a comment, not '%s'", line);
}

/* inih's reader over the text in memory, one line per call (fgets-like).
 * Returns NULL at the end or after an error, which stops inih. */
char *scenario_read_line(char *str, int num, void *stream)
{
	struct pctx *c = stream;
	if (c->rc != AB_OK || *c->pos == '\0')
		return NULL;
	const char *line = c->pos;
	size_t len = strcspn(line, "\n");
	c->pos += len + (line[len] == '\n');
	c->line++;
	if (len && line[len - 1] == '\r')
		len--;
	if (c->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
		line += 3, len -= 3;
	/* inih needs room for "\r\n\0" in its buffer of num bytes. */
	if (num < 4 || len > (size_t)num - 3) {
		scenario_perr(c, c->line, NULL, "line is %zu characters long, at most %d allowed", len, num - 3);
		return NULL;
	}
	while (len && isspace((unsigned char)*line))
		line++, len--;
	memcpy(str, line, len);
	str[len] = '\0';
	return classify_line(c, str) == AB_OK ? str : NULL;
}
