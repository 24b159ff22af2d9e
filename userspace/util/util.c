// SPDX-License-Identifier: GPL-2.0
/* util: see util/util.h. */
#include <stdio.h>

#include "util/util.h"

locale_t cxs_c_locale(void)
{
	static locale_t c;

	if (!c)
		c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return c;
}

int cxs_verr(char *buf, size_t len, const char *fmt, va_list ap)
{
	if (len)
		vsnprintf(buf, len, fmt, ap);
	return -1;
}

int cxs_err(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cxs_verr(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}
