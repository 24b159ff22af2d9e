/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reader: what perfdata's two readers share, file-read.c (the entry
 * point, a perf.data file's header and features) and stat-read.c (the
 * records, which file-read.c calls). Not for use outside perfdata/.
 */
#ifndef CTXSTAT_PERFDATA_READER_H
#define CTXSTAT_PERFDATA_READER_H

#include <stddef.h>
#include <stdint.h>

#include "perfdata/stat-data.h"

struct cxs_stat_reader {
	const char *p;		/* the whole input */
	size_t len;
	struct cxs_stat_data *d;
	struct cxs_stat_value *pending;	/* each counter's last reading */
	struct cxs_stat_value *prev;	/* ... at the last round */
	char *err;
	size_t errlen;
};

/* @fmt's message in the reader's error buffer; -1. */
int cxs_stat_reader_fail(struct cxs_stat_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An event of @attr (@attr_size bytes as the file has it) and its ids. */
int cxs_stat_reader_add_event(struct cxs_stat_reader *r, const void *attr,
			      size_t attr_size, const uint64_t *ids, size_t nr_ids);

/* The records from offset @at to @end of the input: 0, or -1. */
int cxs_stat_read_records(struct cxs_stat_reader *r, size_t at, size_t end);

#endif
