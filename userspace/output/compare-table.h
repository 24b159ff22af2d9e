/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare-table: ctxstat compare's printed comparison: the table for people,
 * or CSV.
 */
#ifndef CTXSTAT_OUTPUT_COMPARE_TABLE_H
#define CTXSTAT_OUTPUT_COMPARE_TABLE_H

#include <stdio.h>

#include "stats/ab-test.h"

struct cxs_compare_print {
	FILE *f;
	const char *sep;	/* CSV with this separator, NULL for the table */
	char **cmd_a, **cmd_b;
	int runs;		/* per side */
};

void cxs_compare_print(const struct cxs_compare_print *p,
		       const struct cxs_compare_row *rows, int nr);

#endif
