// SPDX-License-Identifier: GPL-2.0
/*
 * stat-write: a stat record in perf's format, as perf stat record writes
 * it (tools/perf/builtin-stat.c, util/synthetic-events.c, util/header.c):
 *
 *   file: perf_file_header, the ids, the attrs, the data, the feature
 *         sections (HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CMDLINE,
 *         EVENT_DESC, STAT), perf's order throughout;
 *   pipe: perf_pipe_file_header, then a PERF_RECORD_HEADER_ATTR per event.
 *
 * The data, in both: per event its EVENT_UPDATEs (unit and scale for a
 * clock, as perf, and the name in both modes, so that a :t event is named
 * so whichever way perf reads it), THREAD_MAP, CPU_MAP, STAT_CONFIG, then
 * per round a STAT per event, CPU and thread and the STAT_ROUND.
 * Everything is built in memory and written once: a stat record is small.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "perfdata/format.h"
#include "perfdata/stat-data.h"
#include "util/util.h"

/*
 * perf's sizeof(struct perf_record_event_update): the three u64 and its
 * union, whose largest member (the packed cpu map of an EVENT_UPDATE
 * CPUS) takes it to 40. The records are that plus the payload, rounded
 * up to 8.
 */
#define EVENT_UPDATE_SIZE	40

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

/* Room for @n more zeroed bytes at the end; NULL (and failed) without. */
static void *buf_grow(struct buf *b, size_t n)
{
	char *p;
	size_t cap;

	if (b->failed)
		return NULL;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	p = b->p + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

static void buf_put(struct buf *b, const void *src, size_t n)
{
	void *p = buf_grow(b, n);

	if (p)
		memcpy(p, src, n);
}

/* perf's do_write_string(): u32 length, NUL and zeros to NAME_ALIGN */
static void buf_put_string(struct buf *b, const char *s)
{
	uint32_t len = (strlen(s) + 1 + CXS_PERF_NAME_ALIGN - 1) &
		       ~(uint32_t)(CXS_PERF_NAME_ALIGN - 1);
	char *p;

	buf_put(b, &len, sizeof(len));
	p = buf_grow(b, len);
	if (p)
		memcpy(p, s, strlen(s));
}

/* A record of @size bytes of @type, zeroed after its header. */
static void *put_record(struct buf *b, uint32_t type, size_t size)
{
	struct perf_event_header *h = buf_grow(b, size);

	if (h) {
		h->type = type;
		h->size = size;
	}
	return h;
}

static void put_event_update(struct buf *b, uint64_t type, uint64_t id,
			     const void *payload, size_t n)
{
	struct cxs_perf_record_event_update *u;

	u = put_record(b, CXS_PERF_RECORD_EVENT_UPDATE,
		       ALIGN8(EVENT_UPDATE_SIZE + n));
	if (!u)
		return;
	u->type = type;
	u->id = id;
	memcpy(u + 1, payload, n);
}

static void put_attrs_pipe(struct buf *b, const struct cxs_stat_data *d)
{
	const size_t attr_size = ALIGN8(sizeof(struct perf_event_attr));
	struct cxs_perf_record_attr *a;
	int i;

	for (i = 0; i < d->nr_events; i++) {
		a = put_record(b, CXS_PERF_RECORD_HEADER_ATTR,
			       sizeof(a->header) + attr_size +
			       d->ev[i].nr_ids * sizeof(uint64_t));
		if (!a)
			return;
		a->attr = d->ev[i].attr;
		memcpy((char *)&a->attr + attr_size, d->ev[i].ids,
		       d->ev[i].nr_ids * sizeof(uint64_t));
	}
}

static void put_event_updates(struct buf *b, const struct cxs_stat_data *d)
{
	const struct cxs_stat_event *ev;
	int i;

	for (i = 0; i < d->nr_events; i++) {
		ev = &d->ev[i];
		if (!ev->nr_ids)
			continue;
		if (ev->unit[0])
			put_event_update(b, CXS_PERF_EVENT_UPDATE_UNIT, ev->ids[0],
					 ev->unit, strlen(ev->unit) + 1);
		if (ev->scale != 1)
			put_event_update(b, CXS_PERF_EVENT_UPDATE_SCALE, ev->ids[0],
					 &ev->scale, sizeof(ev->scale));
		if (ev->name[0])
			put_event_update(b, CXS_PERF_EVENT_UPDATE_NAME, ev->ids[0],
					 ev->name, strlen(ev->name) + 1);
	}
}

static void put_maps(struct buf *b, const struct cxs_stat_data *d)
{
	struct cxs_perf_record_thread_map *tm;
	struct cxs_perf_cpu_map_cpus *cm;
	int i;

	tm = put_record(b, CXS_PERF_RECORD_THREAD_MAP, sizeof(*tm) +
			d->nr_threads * sizeof(tm->entries[0]));
	if (!tm)
		return;
	tm->nr = d->nr_threads;
	for (i = 0; i < d->nr_threads; i++) {
		tm->entries[i].pid = d->pids[i];
		if (d->comms)
			memcpy(tm->entries[i].comm, d->comms[i], sizeof(tm->entries[i].comm));
	}
	/* the CPUS encoding: the one every perf reads */
	cm = put_record(b, CXS_PERF_RECORD_CPU_MAP, sizeof(struct perf_event_header) +
			ALIGN8(sizeof(*cm) + d->nr_cpus * sizeof(uint16_t)));
	if (!cm)
		return;
	cm = (void *)((char *)cm + sizeof(struct perf_event_header));
	cm->type = CXS_PERF_CPU_MAP_CPUS;
	cm->nr = d->nr_cpus;
	for (i = 0; i < d->nr_cpus; i++)
		cm->cpu[i] = d->cpus[i];
}

/* perf 6.1's three terms, in its order */
static void put_stat_config(struct buf *b, const struct cxs_stat_data *d)
{
	struct cxs_perf_record_stat_config *c;

	c = put_record(b, CXS_PERF_RECORD_STAT_CONFIG,
		       sizeof(*c) + 3 * sizeof(c->data[0]));
	if (!c)
		return;
	c->nr = 3;
	c->data[0] = (struct cxs_perf_stat_config_entry){
		CXS_PERF_STAT_CONFIG_AGGR_MODE, d->aggr_mode };
	c->data[1] = (struct cxs_perf_stat_config_entry){
		CXS_PERF_STAT_CONFIG_INTERVAL, d->interval_ms };
	c->data[2] = (struct cxs_perf_stat_config_entry){
		CXS_PERF_STAT_CONFIG_SCALE, !d->no_scale };
}

/*
 * A STAT per event, CPU and thread (perf's loop order), then the round.
 * A reading is the counter's total so far, as perf's of a counter that
 * keeps counting: perf stat report prints what each adds to the last
 * (@total: the totals before this round, updated).
 */
static void put_round(struct buf *b, const struct cxs_stat_data *d,
		      const struct cxs_stat_round *r, struct cxs_stat_value *total)
{
	struct cxs_perf_record_stat_round *sr;
	struct cxs_perf_record_stat *st;
	const struct cxs_stat_value *v;
	struct cxs_stat_value *sum;
	int e, c, t;

	for (e = 0; e < d->nr_events; e++)
		for (c = 0; c < d->nr_cpus; c++)
			for (t = 0; t < d->nr_threads; t++) {
				v = cxs_stat_value_at(d, r->v, e, c, t);
				if (!v->set)
					continue;
				sum = cxs_stat_value_at(d, total, e, c, t);
				sum->val += v->val;
				sum->ena += v->ena;
				sum->run += v->run;
				st = put_record(b, CXS_PERF_RECORD_STAT, sizeof(*st));
				if (!st)
					return;
				st->id = d->ev[e].ids[c * d->nr_threads + t];
				st->cpu = d->cpus[c];
				st->thread = t;
				st->val = sum->val;
				st->ena = sum->ena;
				st->run = sum->run;
			}
	sr = put_record(b, CXS_PERF_RECORD_STAT_ROUND, sizeof(*sr));
	if (sr) {
		sr->type = r->type;
		sr->time = r->time;
	}
}

static void put_data(struct buf *b, const struct cxs_stat_data *d)
{
	int i;

	struct cxs_stat_value *total = calloc(cxs_stat_nr_values(d) ?: 1, sizeof(*total));

	if (!total) {
		b->failed = true;
		return;
	}
	put_event_updates(b, d);
	put_maps(b, d);
	put_stat_config(b, d);
	for (i = 0; i < d->nr_rounds; i++)
		put_round(b, d, &d->rounds[i], total);
	free(total);
}

static const int features[] = {
	CXS_HEADER_HOSTNAME, CXS_HEADER_OSRELEASE, CXS_HEADER_VERSION,
	CXS_HEADER_ARCH, CXS_HEADER_NRCPUS, CXS_HEADER_CMDLINE,
	CXS_HEADER_EVENT_DESC, CXS_HEADER_STAT,
};

/* Feature @feat's section, as perf's write_<feat>() in util/header.c. */
static void put_feature(struct buf *b, int feat, const struct cxs_stat_data *d)
{
	struct utsname u;
	uint32_t n;
	long cpus;
	int i;

	uname(&u);
	switch (feat) {
	case CXS_HEADER_HOSTNAME:
		buf_put_string(b, u.nodename);
		break;
	case CXS_HEADER_OSRELEASE:
		buf_put_string(b, u.release);
		break;
	case CXS_HEADER_VERSION:
		buf_put_string(b, "ctxstat " CXS_VERSION);
		break;
	case CXS_HEADER_ARCH:
		buf_put_string(b, u.machine);
		break;
	case CXS_HEADER_NRCPUS:
		/* perf's order: CPUs present (max + 1), then online */
		cpus = sysconf(_SC_NPROCESSORS_CONF);
		n = cpus > 0 ? cpus : 1;
		buf_put(b, &n, sizeof(n));
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus > 0 ? cpus : 1;
		buf_put(b, &n, sizeof(n));
		break;
	case CXS_HEADER_CMDLINE:
		n = d->nr_cmdline;
		buf_put(b, &n, sizeof(n));
		for (i = 0; i < d->nr_cmdline; i++)
			buf_put_string(b, d->cmdline[i]);
		break;
	case CXS_HEADER_EVENT_DESC:
		n = d->nr_events;
		buf_put(b, &n, sizeof(n));
		n = sizeof(struct perf_event_attr);
		buf_put(b, &n, sizeof(n));
		for (i = 0; i < d->nr_events; i++) {
			buf_put(b, &d->ev[i].attr, sizeof(d->ev[i].attr));
			n = d->ev[i].nr_ids;
			buf_put(b, &n, sizeof(n));
			buf_put_string(b, d->ev[i].name);
			buf_put(b, d->ev[i].ids, n * sizeof(uint64_t));
		}
		break;
	case CXS_HEADER_STAT:
		/* perf's write_stat() writes nothing: the bit says it all */
		break;
	}
}

/*
 * perf_session__do_write_header()'s layout: the header, every event's
 * ids, the perf_file_attrs, the data, the feature table, the features.
 */
static void put_file(struct buf *b, const struct cxs_stat_data *d)
{
	const size_t nr_feat = sizeof(features) / sizeof(features[0]);
	struct cxs_perf_file_section *table;
	struct cxs_perf_file_header *h;
	struct cxs_perf_file_attr fa;
	size_t ids_at, table_at, start;
	struct buf data = { 0 };
	size_t i;
	int e;

	if (!buf_grow(b, sizeof(*h)))
		return;
	ids_at = b->len;
	for (e = 0; e < d->nr_events; e++)
		buf_put(b, d->ev[e].ids, d->ev[e].nr_ids * sizeof(uint64_t));
	h = (void *)b->p;
	h->attrs.offset = b->len;
	for (e = 0; e < d->nr_events; e++) {
		memset(&fa, 0, sizeof(fa));
		fa.attr = d->ev[e].attr;
		fa.ids.offset = ids_at;
		fa.ids.size = d->ev[e].nr_ids * sizeof(uint64_t);
		ids_at += fa.ids.size;
		buf_put(b, &fa, sizeof(fa));
	}
	put_data(&data, d);
	if (data.failed) {
		b->failed = true;
		return;
	}
	start = b->len;
	buf_put(b, data.p, data.len);
	free(data.p);
	table_at = b->len;
	if (!buf_grow(b, nr_feat * sizeof(*table)))
		return;
	for (i = 0; i < nr_feat; i++) {
		size_t at = b->len;

		put_feature(b, features[i], d);
		if (b->failed)
			return;
		table = (void *)(b->p + table_at);
		table[i].offset = at;
		table[i].size = b->len - at;
	}
	h = (void *)b->p;
	h->magic = CXS_PERF_MAGIC;
	h->size = sizeof(*h);
	h->attr_size = sizeof(struct cxs_perf_file_attr);
	h->attrs.size = d->nr_events * sizeof(struct cxs_perf_file_attr);
	h->data.offset = start;
	h->data.size = table_at - start;
	for (i = 0; i < nr_feat; i++)
		h->adds_features[features[i] / 64] |= 1ULL << (features[i] % 64);
}

static void put_pipe(struct buf *b, const struct cxs_stat_data *d)
{
	struct cxs_perf_pipe_file_header h = {
		.magic = CXS_PERF_MAGIC,
		.size = sizeof(h),
	};

	buf_put(b, &h, sizeof(h));
	put_attrs_pipe(b, d);
	put_data(b, d);
}

int cxs_stat_write(int fd, const struct cxs_stat_data *d,
		   char *err, size_t errlen)
{
	struct buf b = { 0 };
	int ret = 0;

	if (d->pipe)
		put_pipe(&b, d);
	else
		put_file(&b, d);
	if (b.failed) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
	} else if (cxs_write_all(fd, b.p, b.len)) {
		snprintf(err, errlen, "%s", strerror(errno));
		ret = -1;
	}
	free(b.p);
	return ret;
}
