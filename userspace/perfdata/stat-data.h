/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat-data: what a perf stat record file holds, in memory: the events
 * (attr, name, unit, scale), the CPU and thread maps, the stat config,
 * and each round's readings per event, CPU and thread, as perf stat
 * record writes them (PERF_RECORD_STAT) and perf stat report reads them.
 * perfdata/stat-write.c writes one, perfdata/stat-read.c reads one; this
 * file neither knows ctxstat's runs nor prints.
 */
#ifndef CTXSTAT_PERFDATA_STAT_DATA_H
#define CTXSTAT_PERFDATA_STAT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define CXS_STAT_NAME_MAX	256
#define CXS_STAT_UNIT_MAX	32

struct cxs_stat_event {
	struct perf_event_attr attr;
	char name[CXS_STAT_NAME_MAX];	/* "" when the file names none */
	char unit[CXS_STAT_UNIT_MAX];	/* "msec" for a clock, else "" */
	double scale;			/* 1, or 1e-6 for a clock's ns */
	/* perf's ids of the event, one per CPU and thread of the maps */
	uint64_t *ids;
	int nr_ids;
};

/* One counter's reading: perf_counts_values, before any scaling. */
struct cxs_stat_value {
	uint64_t val, ena, run;
	bool set;	/* a PERF_RECORD_STAT gave it */
};

/*
 * A PERF_RECORD_STAT_ROUND and what each counter counted since the round
 * before (on disk, a reading is the counter's total so far: perf stat
 * report prints the difference, stat-read.c keeps it, stat-write.c sums).
 */
struct cxs_stat_round {
	uint64_t type;	/* CXS_PERF_STAT_ROUND_* */
	uint64_t time;	/* ns */
	struct cxs_stat_value *v;	/* cxs_stat_value_at() */
};

struct cxs_stat_data {
	struct cxs_stat_event *ev;
	int nr_events;
	int *cpus;		/* CPU numbers; -1: any CPU (a task's counter) */
	int nr_cpus;
	int64_t *pids;		/* the thread map's; -1: none */
	char (*comms)[16];	/* ... their comms; NULL: all "" */
	int nr_threads;
	uint64_t aggr_mode;	/* CXS_PERF_AGGR_* (perf's value) */
	uint64_t interval_ms;
	bool no_scale;		/* STAT_CONFIG's SCALE was 0 */
	/* HEADER_CMDLINE's strings (the tool's path first); none in a pipe */
	char **cmdline;
	int nr_cmdline;
	bool pipe;		/* pipe-mode stream rather than a file */
	struct cxs_stat_round *rounds;
	int nr_rounds;
};

/* The reading of event @e on CPU index @cpu for thread index @thread. */
static inline struct cxs_stat_value *
cxs_stat_value_at(const struct cxs_stat_data *d, struct cxs_stat_value *v,
		  int e, int cpu, int thread)
{
	return &v[((size_t)e * d->nr_cpus + cpu) * d->nr_threads + thread];
}

static inline size_t cxs_stat_nr_values(const struct cxs_stat_data *d)
{
	return (size_t)d->nr_events * d->nr_cpus * d->nr_threads;
}

/*
 * Append a round of @type at @time whose readings are all unset: 0, or
 * -ENOMEM. The maps and events must be complete first.
 */
int cxs_stat_add_round(struct cxs_stat_data *d, uint64_t type, uint64_t time);

/* A copy of @s in @d->ev[@e].name (cut at CXS_STAT_NAME_MAX). */
void cxs_stat_set_name(struct cxs_stat_data *d, int e, const char *s);

void cxs_stat_data_free(struct cxs_stat_data *d);

/*
 * Write @d to @fd: a perf.data file (seekable @fd, header, attrs, data,
 * features HOSTNAME to STAT) or, with @d->pipe, perf's pipe-mode stream.
 * 0, or -1 with a message in @err.
 */
int cxs_stat_write(int fd, const struct cxs_stat_data *d,
		   char *err, size_t errlen);

/*
 * Read perf stat record's data from @path ("-": standard input), file or
 * pipe mode alike, into @d (zeroed first). 0, or -1 with a message in
 * @err and @d freed.
 */
int cxs_stat_read(const char *path, struct cxs_stat_data *d,
		  char *err, size_t errlen);

#endif
