/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat-record: a stat series as perf stat record's data
 * (perfdata/stat-data.h), for `ctxstat record`: an event per displayed
 * event (a :t one named so, its value the task bucket), a round per run.
 */
#ifndef CTXSTAT_RESULTS_STAT_RECORD_H
#define CTXSTAT_RESULTS_STAT_RECORD_H

#include "perfdata/stat-data.h"
#include "run/runner.h"

/*
 * @r's runs into @d (zeroed first); @cmdline (@nr strings, the tool's
 * path first) for HEADER_CMDLINE. 0, or -ENOMEM with @d freed.
 */
int cxs_stat_record_of_runs(const struct cxs_runner *r, char **cmdline,
			    int nr, struct cxs_stat_data *d);

#endif
