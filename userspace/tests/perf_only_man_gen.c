// SPDX-License-Identifier: GPL-2.0
/*
 * perf_only_man_gen PAGE: PAGE (ctxstat.1) on stdout, its section PERF
 * OPTIONS NOT SUPPORTED generated again from options/perf-only.c. A build
 * tool of `make -C userspace man`, not installed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/perf_only_man.h"

int main(int argc, char **argv)
{
	char err[256], *page = NULL;
	size_t len = 0;
	FILE *in, *mem;
	int c;

	if (argc != 2) {
		fprintf(stderr, "usage: %s ctxstat.1 > new-ctxstat.1\n", argv[0]);
		return 2;
	}
	in = fopen(argv[1], "r");
	mem = open_memstream(&page, &len);
	if (!in || !mem) {
		perror(argv[1]);
		return 1;
	}
	while ((c = getc(in)) != EOF)
		putc(c, mem);
	if (ferror(in) || fclose(mem)) {
		perror(argv[1]);
		return 1;
	}
	fclose(in);
	if (cxs_perf_only_splice(page, len, stdout, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	if (fflush(stdout)) {
		perror("stdout");
		return 1;
	}
	free(page);
	return 0;
}
