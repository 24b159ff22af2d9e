/* SPDX-License-Identifier: GPL-2.0 */
/*
 * results-table: the table kernel developers post, from saved results: a row
 * per benchmark and event, a column per configuration, cells "mean +-
 * standard error", and for every column after the first the change
 * against the first with compare's verdict. Plain text, CSV or Markdown.
 */
#ifndef CTXSTAT_OUTPUT_RESULTS_TABLE_H
#define CTXSTAT_OUTPUT_RESULTS_TABLE_H

#include <stdio.h>

#include "results/results.h"

enum cxs_table_format {
	CXS_TABLE_TEXT,
	CXS_TABLE_CSV,
	CXS_TABLE_MARKDOWN,
};

/*
 * Print @set as a table, changes of less than @threshold_pct percent not
 * called one. 0, or -1 when it holds no result (or no memory).
 */
int cxs_results_table(FILE *f, enum cxs_table_format fmt, const char *sep,
		      double threshold_pct, const struct cxs_result_set *set);

#endif
