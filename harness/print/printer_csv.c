/*
 * printer_csv.c - the "csv" format: one row per case and slot with the
 * case's figures (print/export_csv.h has the columns), for spreadsheets
 * and pandas.
 */
#include "print/export_csv.h"
#include "print/printer.h"

extern const struct printer printer_csv;

const struct printer printer_csv = {
	"csv", "one row per case and slot (columns: abbench export --help)",
	{
		[PRINTER_SUMMARY] = export_csv_print,
	},
};
