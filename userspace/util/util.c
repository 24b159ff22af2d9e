// SPDX-License-Identifier: GPL-2.0
/* util: see util/util.h. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/util.h"

int cxs_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int cxs_read_all(int fd, char **out, size_t *len)
{
	size_t cap = 0, n = 0;
	char *p = NULL, *q;
	ssize_t got;

	for (;;) {
		/* room for a read and the NUL */
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 65536;
			q = realloc(p, cap);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
		}
		got = read(fd, p + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			got = -errno;
			free(p);
			return got;
		}
		if (!got)
			break;
		n += got;
	}
	p[n] = '\0';
	*out = p;
	*len = n;
	return 0;
}

const char *cxs_sysfs_root(void)
{
	return getenv("CTX_SYSFS_ROOT") ?: "/sys";
}

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

int cxs_path_writable(const char *path, bool made_beside)
{
	char *copy = strdup(path);
	struct stat st;
	int err = 0;
	bool exists;

	if (!copy)
		return ENOMEM;
	exists = !stat(path, &st);
	if (exists) {
		if (S_ISDIR(st.st_mode))
			err = EISDIR;
		else if (access(path, W_OK))
			err = errno;
	} else if (errno != ENOENT) {
		err = errno;
	}
	if (!err && (made_beside || !exists) &&
	    access(dirname(copy), W_OK | X_OK))
		err = errno;
	free(copy);
	return err;
}
