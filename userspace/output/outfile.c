// SPDX-License-Identifier: GPL-2.0
/*
 * outfile: a stdio stream over a cookie (fopencookie(3)) whose first
 * write opens the file; the output code writes to it as to any FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/outfile.h"
#include "util/util.h"

struct lazy {
	char *path;
	int flags;
	int fd;			/* -1 until the first write */
	char started[64];	/* written first, "" for none */
};

static ssize_t lazy_write(void *cookie, const char *buf, size_t len)
{
	struct lazy *l = cookie;

	if (l->fd < 0) {
		l->fd = open(l->path, l->flags | O_CLOEXEC, 0666);
		if (l->fd < 0 ||
		    cxs_write_all(l->fd, l->started, strlen(l->started)))
			return -1;
	}
	return cxs_write_all(l->fd, buf, len) ? -1 : (ssize_t)len;
}

static int lazy_close(void *cookie)
{
	struct lazy *l = cookie;
	int ret = l->fd >= 0 ? close(l->fd) : 0;

	free(l->path);
	free(l);
	return ret;
}

FILE *cxs_outfile_open(const char *path, bool append, bool started)
{
	cookie_io_functions_t io = { .write = lazy_write, .close = lazy_close };
	struct lazy *l = calloc(1, sizeof(*l));
	int err = l ? cxs_path_writable(path, false) : ENOMEM;
	time_t now = time(NULL);
	FILE *f = NULL;

	if (!err) {
		l->fd = -1;
		l->flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
		l->path = strdup(path);
		/* perf: fprintf(output, "# started on %s\n", ctime(...)) */
		if (started)
			snprintf(l->started, sizeof(l->started),
				 "# started on %s\n", ctime(&now));
		f = l->path ? fopencookie(l, "w", io) : NULL;
		err = f ? 0 : ENOMEM;
	}
	if (!f) {
		fprintf(stderr, "ctxstat: cannot open %s: %s\n", path,
			strerror(err));
		if (l)
			free(l->path);
		free(l);
	}
	return f;
}

int cxs_outfile_close(FILE *f, const char *path, const char *who)
{
	bool std = f == stdout || f == stderr;
	int bad = fflush(f) || ferror(f);
	int err = errno ?: EIO;

	if (!std && fclose(f) && !bad) {
		bad = 1;
		err = errno;
	}
	if (!bad)
		return 0;
	/* stderr itself may be what failed: the exit status says it */
	fprintf(stderr, "%s: cannot write to %s: %s\n", who,
		path ?: (f == stdout ? "standard output" : "standard error"),
		strerror(err));
	return -1;
}
