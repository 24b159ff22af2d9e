// SPDX-License-Identifier: GPL-2.0
/*
 * stat-read: perf stat record's data, as perf stat report reads it
 * (tools/perf/builtin-stat.c's __cmd_report() over util/session.c): a
 * perf.data file or a pipe-mode stream, read whole (a stat record is
 * small), its records processed in order. The readings of a
 * PERF_RECORD_STAT are kept until a PERF_RECORD_STAT_ROUND closes them
 * into a round. Records that a stat record does not need (perf's
 * kernel mmap, features sent in a pipe) are skipped by their size. The
 * entry point, and a file's header and features: perfdata/file-read.c,
 * which calls the records' reader here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/format.h"
#include "perfdata/reader.h"
#include "perfdata/stat-data.h"

int cxs_stat_reader_fail(struct cxs_stat_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The event whose ids hold @id, and the id's index in them; -1 if none. */
static int event_of_id(const struct cxs_stat_data *d, uint64_t id)
{
	int e, k;

	for (e = 0; e < d->nr_events; e++)
		for (k = 0; k < d->ev[e].nr_ids; k++)
			if (d->ev[e].ids[k] == id)
				return e;
	return -1;
}

int cxs_stat_reader_add_event(struct cxs_stat_reader *r, const void *attr, size_t attr_size,
		     const uint64_t *ids, size_t nr_ids)
{
	struct cxs_stat_data *d = r->d;
	struct cxs_stat_event *ev;

	if (d->nr_cpus || d->nr_threads)
		return cxs_stat_reader_fail(r, "an event after the CPU or thread map");
	ev = realloc(d->ev, (d->nr_events + 1) * sizeof(*ev));
	if (!ev)
		return cxs_stat_reader_fail(r, "out of memory");
	d->ev = ev;
	ev = &ev[d->nr_events];
	memset(ev, 0, sizeof(*ev));
	/* an attr of another size: what both know of it */
	memcpy(&ev->attr, attr, attr_size < sizeof(ev->attr) ? attr_size : sizeof(ev->attr));
	ev->scale = 1;
	ev->ids = malloc((nr_ids ?: 1) * sizeof(*ev->ids));
	if (!ev->ids)
		return cxs_stat_reader_fail(r, "out of memory");
	memcpy(ev->ids, ids, nr_ids * sizeof(*ids));
	ev->nr_ids = nr_ids;
	d->nr_events++;
	return 0;
}

static int read_event_update(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const struct cxs_perf_record_event_update *u = (const void *)rec;
	const char *payload = rec + sizeof(*u);
	size_t n = size - sizeof(*u);
	struct cxs_stat_event *ev;
	int e;

	if (size < sizeof(*u))
		return cxs_stat_reader_fail(r, "a short EVENT_UPDATE record");
	e = event_of_id(r->d, u->id);
	if (e < 0)
		return 0;	/* perf too ignores an update of no event */
	ev = &r->d->ev[e];
	switch (u->type) {
	case CXS_PERF_EVENT_UPDATE_UNIT:
		snprintf(ev->unit, sizeof(ev->unit), "%.*s", (int)strnlen(payload, n), payload);
		break;
	case CXS_PERF_EVENT_UPDATE_SCALE:
		if (n >= sizeof(double))
			memcpy(&ev->scale, payload, sizeof(double));
		break;
	case CXS_PERF_EVENT_UPDATE_NAME:
		snprintf(ev->name, sizeof(ev->name), "%.*s", (int)strnlen(payload, n), payload);
		break;
	}
	return 0;
}

static int read_thread_map(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const struct cxs_perf_record_thread_map *m = (const void *)rec;
	struct cxs_stat_data *d = r->d;
	uint64_t i;

	if (d->nr_threads)
		return 0;	/* perf: "Extra thread map event, ignoring." */
	if (size < sizeof(*m) || !m->nr ||
	    m->nr > (size - sizeof(*m)) / sizeof(m->entries[0]))
		return cxs_stat_reader_fail(r, "a bad THREAD_MAP record");
	d->pids = malloc(m->nr * sizeof(*d->pids));
	d->comms = calloc(m->nr, sizeof(*d->comms));
	if (!d->pids || !d->comms)
		return cxs_stat_reader_fail(r, "out of memory");
	for (i = 0; i < m->nr; i++) {
		d->pids[i] = (int64_t)m->entries[i].pid;
		/* perf's strncpy(): not NUL-terminated at 16 */
		memcpy(d->comms[i], m->entries[i].comm, sizeof(d->comms[i]));
		d->comms[i][sizeof(d->comms[i]) - 1] = '\0';
	}
	d->nr_threads = m->nr;
	return 0;
}

static int add_cpu(struct cxs_stat_reader *r, int cpu)
{
	struct cxs_stat_data *d = r->d;
	int *c = realloc(d->cpus, (d->nr_cpus + 1) * sizeof(*c));

	if (!c)
		return cxs_stat_reader_fail(r, "out of memory");
	d->cpus = c;
	c[d->nr_cpus++] = cpu;
	return 0;
}

/* perf's three encodings (util/cpumap.c, cpu_map__new_data()). */
static int read_cpu_map(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const char *data = rec + sizeof(struct perf_event_header);
	size_t n = size - sizeof(struct perf_event_header);
	const struct cxs_perf_cpu_map_cpus *cpus = (const void *)data;
	const struct cxs_perf_cpu_map_mask *mask = (const void *)data;
	const struct cxs_perf_cpu_map_range *range = (const void *)data;
	uint16_t type;
	int i, bits, err = 0;
	uint64_t word;

	if (r->d->nr_cpus)
		return 0;	/* perf: "Extra cpu map event, ignoring." */
	if (n < sizeof(*range))
		return cxs_stat_reader_fail(r, "a short CPU_MAP record");
	memcpy(&type, data, sizeof(type));
	switch (type) {
	case CXS_PERF_CPU_MAP_CPUS:
		if (sizeof(*cpus) + cpus->nr * sizeof(uint16_t) > n)
			return cxs_stat_reader_fail(r, "a bad CPU_MAP record");
		for (i = 0; i < cpus->nr && !err; i++) {
			uint16_t c;

			memcpy(&c, (const char *)cpus + sizeof(*cpus) + i * 2, 2);
			err = add_cpu(r, c == (uint16_t)-1 ? -1 : c);
		}
		break;
	case CXS_PERF_CPU_MAP_MASK:
		/* 4-byte words at once, 8-byte ones after 4 bytes of padding */
		if (mask->long_size != 4 && mask->long_size != 8)
			return cxs_stat_reader_fail(r, "a CPU_MAP mask of %u-byte words", mask->long_size);
		bits = mask->long_size * 8;
		for (i = 0; i < mask->nr * bits && !err; i++) {
			size_t at = sizeof(*mask) + (mask->long_size == 8 ? 4 : 0) +
				    (i / bits) * mask->long_size;

			if (at + mask->long_size > n)
				return cxs_stat_reader_fail(r, "a bad CPU_MAP record");
			word = 0;
			memcpy(&word, data + at, mask->long_size);
			if (word & (1ULL << (i % bits)))
				err = add_cpu(r, i);
		}
		break;
	case CXS_PERF_CPU_MAP_RANGE_CPUS:
		if (range->any_cpu)
			err = add_cpu(r, -1);
		for (i = range->start_cpu; i <= range->end_cpu && !err; i++)
			err = add_cpu(r, i);
		break;
	default:
		return cxs_stat_reader_fail(r, "a CPU_MAP of unknown type %u", type);
	}
	return err;
}

static int read_stat_config(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const struct cxs_perf_record_stat_config *c = (const void *)rec;
	uint64_t i;

	if (size < sizeof(*c) || c->nr > (size - sizeof(*c)) / sizeof(c->data[0]))
		return cxs_stat_reader_fail(r, "a bad STAT_CONFIG record");
	for (i = 0; i < c->nr; i++) {
		switch (c->data[i].tag) {
		case CXS_PERF_STAT_CONFIG_AGGR_MODE:
			r->d->aggr_mode = c->data[i].val;
			break;
		case CXS_PERF_STAT_CONFIG_INTERVAL:
			r->d->interval_ms = c->data[i].val;
			break;
		case CXS_PERF_STAT_CONFIG_SCALE:
			r->d->no_scale = !c->data[i].val;
			break;
		}
	}
	return 0;
}

/* The maps are complete at the first reading: room for a round's. */
static int pending_values(struct cxs_stat_reader *r)
{
	struct cxs_stat_data *d = r->d;

	if (r->pending)
		return 0;
	if (!d->nr_events || !d->nr_cpus || !d->nr_threads)
		return cxs_stat_reader_fail(r, "a STAT record before the events and the CPU and thread maps");
	r->pending = calloc(cxs_stat_nr_values(d), sizeof(*r->pending));
	return r->pending ? 0 : cxs_stat_reader_fail(r, "out of memory");
}

static int read_stat(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const struct cxs_perf_record_stat *st = (const void *)rec;
	struct cxs_stat_data *d = r->d;
	struct cxs_stat_value *v;
	int e, c;

	if (size < sizeof(*st))
		return cxs_stat_reader_fail(r, "a short STAT record");
	if (pending_values(r))
		return -1;
	e = event_of_id(d, st->id);
	if (e < 0)
		return cxs_stat_reader_fail(r, "a STAT record of unknown id %llu",
			    (unsigned long long)st->id);
	for (c = 0; c < d->nr_cpus; c++)
		if (d->cpus[c] == (int)st->cpu)
			break;
	if (c == d->nr_cpus || st->thread >= (uint32_t)d->nr_threads)
		return cxs_stat_reader_fail(r, "a STAT record of CPU %d thread %u, not in the maps",
			    (int)st->cpu, st->thread);
	v = cxs_stat_value_at(d, r->pending, e, c, st->thread);
	*v = (struct cxs_stat_value){ st->val, st->ena, st->run, true };
	return 0;
}

/*
 * As perf: a reading is a counter's total so far (-I's intervals read
 * the same counters again), and a round is what each counter's last
 * reading adds to the one before (evsel__compute_deltas(), which perf
 * stat report applies to every round).
 */
static int read_stat_round(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const struct cxs_perf_record_stat_round *sr = (const void *)rec;
	struct cxs_stat_data *d = r->d;
	struct cxs_stat_value *v;
	size_t i, n = cxs_stat_nr_values(d);

	if (size < sizeof(*sr))
		return cxs_stat_reader_fail(r, "a short STAT_ROUND record");
	if (pending_values(r))
		return -1;
	if (!r->prev && !(r->prev = calloc(n, sizeof(*r->prev))))
		return cxs_stat_reader_fail(r, "out of memory");
	if (cxs_stat_add_round(d, sr->type, sr->time))
		return cxs_stat_reader_fail(r, "out of memory");
	v = d->rounds[d->nr_rounds - 1].v;
	for (i = 0; i < n; i++) {
		v[i] = r->pending[i];
		v[i].val -= r->prev[i].val;
		v[i].ena -= r->prev[i].ena;
		v[i].run -= r->prev[i].run;
	}
	memcpy(r->prev, r->pending, n * sizeof(*r->prev));
	return 0;
}

static int read_header_attr(struct cxs_stat_reader *r, const char *rec, size_t size)
{
	const struct cxs_perf_record_attr *a = (const void *)rec;
	size_t attr_size, off;

	if (size < sizeof(a->header) + PERF_ATTR_SIZE_VER0)
		return cxs_stat_reader_fail(r, "a short HEADER_ATTR record");
	attr_size = a->attr.size ?: PERF_ATTR_SIZE_VER0;
	off = sizeof(a->header) + ((attr_size + 7) & ~(size_t)7);
	if (off > size)
		return cxs_stat_reader_fail(r, "a bad HEADER_ATTR record");
	return cxs_stat_reader_add_event(r, &a->attr, attr_size, (const uint64_t *)(rec + off),
			 (size - off) / sizeof(uint64_t));
}

int cxs_stat_read_records(struct cxs_stat_reader *r, size_t at, size_t end)
{
	const struct perf_event_header *h;
	const char *rec;
	int err = 0;

	while (!err && at + sizeof(*h) <= end) {
		rec = r->p + at;
		h = (const void *)rec;
		if (h->size < sizeof(*h) || at + h->size > end)
			return cxs_stat_reader_fail(r, "a record of bad size %u at offset %zu", h->size, at);
		switch (h->type) {
		case CXS_PERF_RECORD_HEADER_ATTR:
			err = read_header_attr(r, rec, h->size);
			break;
		case CXS_PERF_RECORD_EVENT_UPDATE:
			err = read_event_update(r, rec, h->size);
			break;
		case CXS_PERF_RECORD_THREAD_MAP:
			err = read_thread_map(r, rec, h->size);
			break;
		case CXS_PERF_RECORD_CPU_MAP:
			err = read_cpu_map(r, rec, h->size);
			break;
		case CXS_PERF_RECORD_STAT_CONFIG:
			err = read_stat_config(r, rec, h->size);
			break;
		case CXS_PERF_RECORD_STAT:
			err = read_stat(r, rec, h->size);
			break;
		case CXS_PERF_RECORD_STAT_ROUND:
			err = read_stat_round(r, rec, h->size);
			break;
		}
		at += h->size;
	}
	return err;
}
