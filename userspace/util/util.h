/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util: the helpers every ctxstat file may need: the element count of an
 * array, a message into a caller's buffer, the C locale, whether a file
 * could be written, and where sysfs is.
 */
#ifndef CTXSTAT_UTIL_UTIL_H
#define CTXSTAT_UTIL_UTIL_H

#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Format a message into @buf (@len bytes, always terminated) for the
 * caller to print; returns -1, the failure it reports.
 */
int cxs_err(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cxs_verr(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * The C locale, for every number a program reads (CSV, JSON, saved
 * results, option values), whatever LC_NUMERIC says; people's tables
 * keep the user's locale (thousands grouped, as perf). Use as
 *   locale_t old = uselocale(cxs_c_locale()); ... uselocale(old);
 * (locale_t)0 if it cannot be had: uselocale() then changes nothing.
 */
locale_t cxs_c_locale(void);

/*
 * Whether @path could be opened for writing, as open(2) would decide:
 * 0 or an errno. With @made_beside, the file is made anew in its
 * directory and renamed over @path, so the directory must take a new
 * file even when @path exists.
 */
int cxs_path_writable(const char *path, bool made_beside);

/*
 * Write all @len bytes of @buf to @fd, again after EINTR or a short
 * write: 0, or -1 with errno set (EIO when write() wrote nothing).
 */
int cxs_write_all(int fd, const void *buf, size_t len);

/*
 * Read @fd to its end (a /proc file or a pipe: no size known in
 * advance) into *@out, NUL-terminated, its length in *@len (the NUL
 * not counted): 0, or -errno and *@out untouched.
 */
int cxs_read_all(int fd, char **out, size_t *len);

/* Where sysfs is: $CTX_SYSFS_ROOT (a test's fake tree), else /sys. */
const char *cxs_sysfs_root(void);

#endif
