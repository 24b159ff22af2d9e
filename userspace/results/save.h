/* SPDX-License-Identifier: GPL-2.0 */
/*
 * save: --save, every run's values of a stat series (one result) or of a
 * comparison (two results, one benchmark), as results/results.h writes them.
 */
#ifndef CTXSTAT_RESULTS_SAVE_H
#define CTXSTAT_RESULTS_SAVE_H

#include "run/runner.h"

/*
 * Whether the --save file @path can be written, checked before the first
 * run so that no series is lost to a typo: 0, or -1 after printing why.
 */
int cxs_save_check(const char *path);

/*
 * Save @r's runs to its --save file: written whole to a temporary file
 * beside it, then renamed over it, so that a failure leaves the file as
 * it was. 0, or -1 after printing why.
 */
int cxs_save_stat(const struct cxs_runner *r);

/* Save A's and B's runs to A's --save file. 0, or -1 after printing why. */
int cxs_save_compare(const struct cxs_runner *a, const struct cxs_runner *b);

#endif
