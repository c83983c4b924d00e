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

/* GitHub's flavour: tables and strikethrough; raw HTML kept. Not the
 * autolink extension: the report's cells hold text from outside (a device
 * name, a host, notes, an arm's details), and a "www." or "http://" there
 * must stay text, never become a link (md_cell escapes the rest). */
enum ab_rc md_html_render(const char *md_path, const char *html_path, const char *title, const char *css,
			  struct ab_diag *d)
{
	static const char *const ext[] = { "table", "strikethrough" };
	const int opt = CMARK_OPT_UNSAFE | CMARK_OPT_GITHUB_PRE_LANG;
	char chunk[65536];
	size_t n;
	FILE *in = fopen(md_path, "rb");
	if (!in)
		return ab_fail(d, AB_ERR_IO, "cannot read '%s': %s", md_path, strerror(errno));
	cmark_gfm_core_extensions_ensure_registered();
	cmark_parser *p = cmark_parser_new(opt); /* nothing of cmark's is NULL: its allocator aborts */
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		cmark_syntax_extension *e = cmark_find_syntax_extension(ext[i]);
		if (e)
			cmark_parser_attach_syntax_extension(p, e);
	}
	while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
		cmark_parser_feed(p, chunk, n);
	if (ferror(in)) { /* a page cut short would read as the whole report */
		cmark_parser_free(p);
		fclose(in);
		return ab_fail(d, AB_ERR_IO, "cannot read '%s'", md_path);
	}
	fclose(in);
	cmark_node *doc = cmark_parser_finish(p);
	char *html = cmark_render_html(doc, opt, cmark_parser_get_syntax_extensions(p));
	cmark_node_free(doc);
	cmark_parser_free(p);
	struct md_file mf;
	enum ab_rc rc = md_file_open(&mf, html_path, d);
	if (!rc) {
		html_printf(mf.f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			    "<title>%s</title>\n<link rel=\"stylesheet\" href=\"%s\">\n</head>\n"
			    "<body class=\"report\">\n<main>\n", title, css);
		fprintf(mf.f, "%s</main>\n</body>\n</html>\n", html);
		rc = md_file_commit(&mf, d);
	}
	free(html);
	return rc;
}
