/*
 * md_html.h - a report's markdown as an HTML page, rendered by cmark-gfm
 * (GitHub's own CommonMark fork, Debian's libcmark-gfm-dev, linked
 * statically; its table extension renders the report's tables as GitHub
 * does), for the dashboard: every run's report opens as a page, not as
 * raw markdown.
 *
 * The report's raw HTML (<details>, <summary>) is kept (the report escapes
 * every text from the database itself, print/md.h), and its relative links
 * and images (the charts beside it) keep working from the page.
 */
#ifndef AB_MD_HTML_H
#define AB_MD_HTML_H

#include "common/diag.h"

/* Renders the markdown file md_path into html_path (an outfile: whole or
 * not at all), a page titled title with the dashboard's style sheet at
 * css (a relative path). AB_ERR_IO, AB_ERR_NOMEM. */
enum ab_rc md_html_render(const char *md_path, const char *html_path, const char *title, const char *css,
			  struct ab_diag *d);

#endif
