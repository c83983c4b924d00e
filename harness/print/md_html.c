/*
 * md_html.c - a report's markdown as an HTML page for the dashboard, by
 * cmark-gfm (md.h: md_html_render).
 */
#include "print/md.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "print/escape.h"

/* The whole file in memory. */
static char *slurp(const char *path, size_t *len, struct ab_diag *d)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	if (!f) {
		ab_fail(d, AB_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
			*len = fread(buf, 1, (size_t)n, f);
			buf[*len] = '\0';
		}
	}
	fclose(f);
	if (!buf)
		ab_fail(d, AB_ERR_NOMEM, "cannot read '%s' into memory", path);
	return buf;
}

/* GitHub's flavour: tables and strikethrough; raw HTML kept. Not the
 * autolink extension: the report's cells hold text from outside (a device
 * name, a host, notes, an arm's details), and a "www." or "http://" there
 * must stay text, never become a link (md_cell escapes the rest). */
static char *render(const char *md, size_t len)
{
	const int opt = CMARK_OPT_UNSAFE | CMARK_OPT_GITHUB_PRE_LANG;
	cmark_gfm_core_extensions_ensure_registered();
	cmark_parser *p = cmark_parser_new(opt);
	if (!p)
		return NULL;
	const char *ext[] = { "table", "strikethrough" };
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		cmark_syntax_extension *e = cmark_find_syntax_extension(ext[i]);
		if (e)
			cmark_parser_attach_syntax_extension(p, e);
	}
	cmark_parser_feed(p, md, len);
	cmark_node *doc = cmark_parser_finish(p);
	char *html = doc ? cmark_render_html(doc, opt, cmark_parser_get_syntax_extensions(p)) : NULL;
	if (doc)
		cmark_node_free(doc);
	cmark_parser_free(p);
	return html;
}

enum ab_rc md_html_render(const char *md_path, const char *html_path, const char *title, const char *css,
			  struct ab_diag *d)
{
	size_t len = 0;
	char *md = slurp(md_path, &len, d);
	if (!md)
		return d->msg[0] && strstr(d->msg, "memory") ? AB_ERR_NOMEM : AB_ERR_IO;
	char *html = render(md, len);
	free(md);
	if (!html)
		return ab_fail(d, AB_ERR_NOMEM, "cannot render '%s' as HTML", md_path);
	struct md_file mf;
	enum ab_rc rc = md_file_open(&mf, html_path, d);
	if (!rc) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", mf.f);
		escape_html(mf.f, title);
		fputs("</title>\n<link rel=\"stylesheet\" href=\"", mf.f);
		escape_html(mf.f, css);
		fputs("\">\n</head>\n<body class=\"report\">\n<main>\n", mf.f);
		fputs(html, mf.f);
		fputs("</main>\n</body>\n</html>\n", mf.f);
		rc = md_file_commit(&mf, d);
	}
	free(html);
	return rc;
}
