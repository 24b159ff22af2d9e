/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util: the two helpers every ctxstat file may need: the element count
 * of an array, and a message into a caller's buffer.
 */
#ifndef CTXSTAT_UTIL_H
#define CTXSTAT_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Format a message into @buf (@len bytes, always terminated) for the
 * caller to print; returns -1, the failure it reports.
 */
int ctx_err(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ctx_verr(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
