// SPDX-License-Identifier: GPL-2.0
/*
 * csv: quoting is decided per field: a separator such as '.' or '-' can
 * be inside a number too.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "output/csv.h"

static bool needs_quotes(const char *s, const char *sep)
{
	return strstr(s, sep) || strpbrk(s, "\"\r\n");
}

void cxs_csv_field(FILE *f, const char *sep, const char *s, int first)
{
	if (!first)
		fputs(sep, f);
	if (!needs_quotes(s, sep)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void cxs_csv_num(FILE *f, const char *sep, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	cxs_csv_field(f, sep, buf, 0);
}

void cxs_csv_figure(FILE *f, const char *sep, double v, bool clock)
{
	if (isnan(v))
		fputs(sep, f);
	else
		cxs_csv_num(f, sep, "%.15g", clock ? v / 1e6 : v);
}
