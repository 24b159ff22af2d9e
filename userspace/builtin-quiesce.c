// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-quiesce: ctxstat quiesce: find the script beside this ctxstat,
 * installed or in the source tree, and become it. Relative to the binary
 * rather than at a path fixed when building, so that any PREFIX and
 * DESTDIR work.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/util.h"

/* Where the script is, from the directory ctxstat is in. */
static const char *const beside[] = {
	"../libexec/ctxstat/quiesce",	/* make install */
	"../../scripts/quiesce",	/* the source tree's userspace/build/ctxstat */
};

int cmd_quiesce(int argc, char **argv)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	(void)argc;
	if (n < 0) {
		perror("ctxstat quiesce: /proc/self/exe");
		return 1;
	}
	exe[n] = '\0';
	dir = dirname(exe);
	for (i = 0; i < ARRAY_SIZE(beside); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, beside[i]);
		if (access(path, X_OK))
			continue;
		argv[0] = path;
		execv(path, argv);
		fprintf(stderr, "ctxstat quiesce: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(stderr, "ctxstat quiesce: neither %s nor %s in %s\n",
		beside[0], beside[1], dir);
	return 1;
}
