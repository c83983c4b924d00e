/*
 * printer_html.c - the "html" format: the static dashboard of a history
 * (print/publish.c), plain HTML and CSS with relative links.
 */
#include "print/printer.h"
#include "print/publish.h"

extern const struct printer printer_html;

const struct printer printer_html = {
	"html", "a static HTML dashboard (plain HTML and CSS, relative links)",
	{
		[PRINTER_DASHBOARD] = publish_write,
	},
};
