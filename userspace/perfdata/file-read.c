// SPDX-License-Identifier: GPL-2.0
/*
 * file-read: perf stat record's data from a path or standard input, read
 * whole (a stat record is small): a pipe-mode stream's records
 * (perfdata/stat-read.c), or a perf.data file's own parts, as perf's
 * util/header.c reads them: the header, the attrs with their ids, and
 * the features a stat record needs (CMDLINE for the table's header,
 * EVENT_DESC for the names); then its data section, read as a stream's
 * records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/format.h"
#include "perfdata/reader.h"
#include "perfdata/stat-data.h"
#include "util/util.h"

/* perf's do_read_string(): u32 length, then that many bytes. */
static const char *read_string(const char **p, const char *end)
{
	uint32_t len;
	const char *s;

	if (end - *p < (long)sizeof(len))
		return NULL;
	memcpy(&len, *p, sizeof(len));
	if (end - *p - (long)sizeof(len) < (long)len || !len)
		return NULL;
	s = *p + sizeof(len);
	if (!memchr(s, '\0', len))
		return NULL;
	*p = s + len;
	return s;
}

static int read_cmdline(struct cxs_stat_reader *r, const char *p, const char *end)
{
	struct cxs_stat_data *d = r->d;
	const char *s;
	uint32_t n, i;

	if (end - p < (long)sizeof(n))
		return 0;
	memcpy(&n, p, sizeof(n));
	p += sizeof(n);
	if (n > (size_t)(end - p) / 4)
		return cxs_stat_reader_fail(r, "a bad CMDLINE feature");
	d->cmdline = calloc(n ?: 1, sizeof(*d->cmdline));
	if (!d->cmdline)
		return cxs_stat_reader_fail(r, "out of memory");
	for (i = 0; i < n && (s = read_string(&p, end)); i++) {
		d->cmdline[i] = strdup(s);
		if (!d->cmdline[i])
			return cxs_stat_reader_fail(r, "out of memory");
		d->nr_cmdline++;
	}
	return 0;
}

/*
 * HEADER_EVENT_DESC: the events' names, in the attrs' order (perf matches
 * them by index: an event perf could not open has no ids to match by).
 */
static int read_event_desc(struct cxs_stat_reader *r, const char *p, const char *end)
{
	uint32_t nre, sz, nri, i;
	const char *name;

	if (end - p < 8)
		return 0;
	memcpy(&nre, p, 4);
	memcpy(&sz, p + 4, 4);
	p += 8;
	for (i = 0; i < nre; i++) {
		if (end - p < (long)sz + 4)
			return cxs_stat_reader_fail(r, "a bad EVENT_DESC feature");
		p += sz;
		memcpy(&nri, p, 4);
		p += 4;
		name = read_string(&p, end);
		if (!name || (size_t)(end - p) < (size_t)nri * 8)
			return cxs_stat_reader_fail(r, "a bad EVENT_DESC feature");
		p += (size_t)nri * 8;
		if (i < (uint32_t)r->d->nr_events)
			cxs_stat_set_name(r->d, i, name);
	}
	return 0;
}

/* The features after the data: a section each, in the order of the bits. */
static int read_features(struct cxs_stat_reader *r, const struct cxs_perf_file_header *h)
{
	const struct cxs_perf_file_section *sec;
	size_t at = h->data.offset + h->data.size;
	int feat, err = 0;

	for (feat = 0; feat < CXS_HEADER_FEAT_BITS && !err; feat++) {
		if (!(h->adds_features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		if (at + sizeof(*sec) > r->len)
			return cxs_stat_reader_fail(r, "the feature sections are cut short");
		sec = (const void *)(r->p + at);
		at += sizeof(*sec);
		if (sec->offset > r->len || sec->size > r->len - sec->offset)
			return cxs_stat_reader_fail(r, "a feature section past the end of the file");
		if (feat == CXS_HEADER_CMDLINE)
			err = read_cmdline(r, r->p + sec->offset,
					   r->p + sec->offset + sec->size);
		else if (feat == CXS_HEADER_EVENT_DESC)
			err = read_event_desc(r, r->p + sec->offset,
					      r->p + sec->offset + sec->size);
	}
	return err;
}

/* A perf.data file (not a stream): 0, or -1. */
static int read_file(struct cxs_stat_reader *r)
{
	const struct cxs_perf_file_header *h = (const void *)r->p;
	const struct perf_event_attr *attr;
	size_t i, nr, ids_off, ids_size;

	if (r->len < sizeof(*h) || h->size < sizeof(*h) ||
	    h->attr_size < PERF_ATTR_SIZE_VER0 + 16)
		return cxs_stat_reader_fail(r, "a bad perf.data header");
	if (h->attrs.offset > r->len || h->attrs.size > r->len - h->attrs.offset ||
	    h->data.offset > r->len || h->data.size > r->len - h->data.offset)
		return cxs_stat_reader_fail(r, "a perf.data section past the end of the file");
	nr = h->attrs.size / h->attr_size;
	for (i = 0; i < nr; i++) {
		attr = (const void *)(r->p + h->attrs.offset + i * h->attr_size);
		/* the ids' section follows the attr, whatever its size */
		memcpy(&ids_off, (const char *)attr + h->attr_size - 16, 8);
		memcpy(&ids_size, (const char *)attr + h->attr_size - 8, 8);
		if (ids_off > r->len || ids_size > r->len - ids_off)
			return cxs_stat_reader_fail(r, "an event's ids past the end of the file");
		if (cxs_stat_reader_add_event(r, attr, h->attr_size - 16,
			      (const uint64_t *)(r->p + ids_off), ids_size / 8))
			return -1;
	}
	/* names first: an EVENT_UPDATE in the data names over them, as perf */
	if (read_features(r, h))
		return -1;
	return cxs_stat_read_records(r, h->data.offset, h->data.offset + h->data.size);
}

/* The whole of @path, or of standard input for "-". */
static int slurp(const char *path, char **out, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	int ret;

	if (fd < 0)
		return -errno;
	ret = cxs_read_all(fd, out, len);
	if (fd)
		close(fd);
	return ret;
}

int cxs_stat_read(const char *path, struct cxs_stat_data *d,
		  char *err, size_t errlen)
{
	struct cxs_stat_reader r = { .d = d, .err = err, .errlen = errlen };
	const struct cxs_perf_pipe_file_header *h;
	char *p = NULL;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = slurp(path, &p, &r.len);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return -1;
	}
	r.p = p;
	h = (const void *)p;
	if (r.len < sizeof(*h) || h->magic != CXS_PERF_MAGIC) {
		ret = cxs_stat_reader_fail(&r, r.len >= 8 && __builtin_bswap64(h->magic) == CXS_PERF_MAGIC ?
			   "written on a machine of the other byte order" :
			   "not perf's data (no PERFILE2 magic)");
	} else if (h->size == sizeof(*h)) {
		d->pipe = true;
		ret = cxs_stat_read_records(&r, sizeof(*h), r.len);
	} else {
		ret = read_file(&r);
	}
	if (!ret && !d->nr_rounds)
		ret = cxs_stat_reader_fail(&r, "no stat data (no PERF_RECORD_STAT_ROUND): not written by perf stat record?");
	if (ret) {
		/* the message names the input */
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s", strcmp(path, "-") ? path : "standard input", msg);
		cxs_stat_data_free(d);
	}
	free(r.pending);
	free(r.prev);
	free(p);
	return ret;
}
