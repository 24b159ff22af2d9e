// SPDX-License-Identifier: GPL-2.0
/*
 * irq-sources: the series' hardirq source rows (see run/irq-sources.h). arm64's
 * IPIs are one percpu irq per IPI, all named "IPI": /proc/interrupts calls them
 * IPI<hwirq> with a description, and so do these rows.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/irq-sources.h"
#include "util/util.h"

void cxs_sources_init(struct cxs_sources *t, const char *interrupts_path)
{
	memset(t, 0, sizeof(*t));
	memset(t->map, -1, sizeof(t->map));
	t->interrupts_path = interrupts_path;
}

static bool is_ipi(const struct cxs_source_row *row)
{
	return row->kind == CTXCOUNT_SOURCE_KIND_IRQ && row->has_hwirq &&
	       !strcmp(row->name, "IPI");
}

void cxs_source_label(const struct cxs_source_row *row, const char *ipi_desc,
		      char *buf, size_t len)
{
	const char *sep = row->name[0] ? " " : "";

	switch (row->kind) {
	case CTXCOUNT_SOURCE_KIND_OUTSIDE:
		snprintf(buf, len, "hardirq: outside handlers");
		break;
	case CTXCOUNT_SOURCE_KIND_OTHER:
		snprintf(buf, len, "hardirq: other sources");
		break;
	case CTXCOUNT_SOURCE_KIND_VECTOR:
		snprintf(buf, len, "hardirq:%s", row->name);
		break;
	default:
		if (is_ipi(row))
			snprintf(buf, len, "hardirq:IPI%llu%s%s",
				 (unsigned long long)row->hwirq,
				 ipi_desc ? " " : "", ipi_desc ?: "");
		else
			snprintf(buf, len, "hardirq:%u%s%s", row->irq, sep,
				 row->name);
	}
}

/* "IPI5:" at the start of @line (after blanks), then counts, then text. */
static int ipi_line_desc(const char *line, const char *tag, char *buf,
			 size_t len)
{
	const char *p = line + strspn(line, " ");
	size_t n;

	if (strncmp(p, tag, strlen(tag)))
		return -1;
	p += strlen(tag);
	for (;;) {
		p += strspn(p, " \t");
		n = strspn(p, "0123456789");
		if (!n || (p[n] != ' ' && p[n] != '\t'))
			break;
		p += n;
	}
	n = strcspn(p, "\n");
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (!n)
		return -1;
	snprintf(buf, len, "%.*s", (int)n, p);
	return 0;
}

int cxs_interrupts_ipi_desc(const char *text, uint64_t n, char *buf,
			    size_t len)
{
	char tag[32];
	const char *line;

	snprintf(tag, sizeof(tag), "IPI%llu:", (unsigned long long)n);
	for (line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!ipi_line_desc(line, tag, buf, len))
			return 0;
	}
	return -1;
}

/* The whole of a /proc file, NUL-terminated; NULL on failure. */
static char *slurp(const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	char *buf = NULL;
	size_t len;

	if (fd < 0)
		return NULL;
	if (cxs_read_all(fd, &buf, &len))
		buf = NULL;
	close(fd);
	return buf;
}

static bool same_source(const struct cxs_source_row *a,
			const struct cxs_source_row *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == CTXCOUNT_SOURCE_KIND_OUTSIDE ||
	    a->kind == CTXCOUNT_SOURCE_KIND_OTHER)
		return true;
	return a->irq == b->irq && a->has_hwirq == b->has_hwirq &&
	       a->hwirq == b->hwirq && !strcmp(a->name, b->name);
}

/* What learn() is doing: /proc/interrupts is read once, when needed. */
struct learning {
	struct cxs_sources *t;
	char *interrupts;
	bool interrupts_read;
};

static int add_row(struct learning *l, const struct cxs_source_row *src)
{
	struct cxs_source_row *row = &l->t->row[l->t->nr];
	char desc[CXS_SOURCE_LABEL_LEN];
	bool have_desc = false;

	*row = *src;
	if (is_ipi(row)) {
		if (!l->interrupts_read)
			l->interrupts = slurp(l->t->interrupts_path);
		l->interrupts_read = true;
		have_desc = l->interrupts &&
			    !cxs_interrupts_ipi_desc(l->interrupts, row->hwirq,
						     desc, sizeof(desc));
	}
	cxs_source_label(row, have_desc ? desc : NULL, row->label,
			 sizeof(row->label));
	return l->t->nr++;
}

static int row_of(struct learning *l, const struct cxs_source_row *src)
{
	static const struct cxs_source_row other = {
		.kind = CTXCOUNT_SOURCE_KIND_OTHER,
	};
	struct cxs_sources *t = l->t;
	int j;

	for (j = 0; j < t->nr; j++)
		if (same_source(&t->row[j], src))
			return j;
	/* The last row is kept for "other sources". */
	if (t->nr < CXS_SOURCE_ROWS - 1 ||
	    (t->nr < CXS_SOURCE_ROWS && src->kind == CTXCOUNT_SOURCE_KIND_OTHER))
		return add_row(l, src);
	return row_of(l, &other);
}

static bool id_has_values(const struct ctxc_reply *rp, int id)
{
	int i;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		if (rp->ev[i].src[id])
			return true;
	return false;
}

/* The row an id stands for in @rp, or kind UNSPEC for none. */
static void source_of(const struct ctxc_reply *rp, int id,
		      struct cxs_source_row *row)
{
	const struct ctxc_source *s = &rp->src[id];

	memset(row, 0, sizeof(*row));
	if (s->present) {
		row->kind = s->kind;
		row->irq = s->irq;
		row->has_hwirq = s->has_hwirq;
		row->hwirq = s->hwirq;
		snprintf(row->name, sizeof(row->name), "%s", s->name);
	} else if (id_has_values(rp, id)) {
		row->kind = id == CTXCOUNT_SOURCE_ID_OUTSIDE ?
			    CTXCOUNT_SOURCE_KIND_OUTSIDE :
			    CTXCOUNT_SOURCE_KIND_OTHER;
	}
}

void cxs_sources_learn(struct cxs_sources *t, const struct ctxc_reply *rp)
{
	struct learning l = { .t = t };
	struct cxs_source_row row;
	int id;

	for (id = 0; id < CTXC_SOURCE_IDS; id++) {
		t->map[id] = -1;
		if (id < CTXCOUNT_SOURCE_ID_OUTSIDE)
			continue;
		source_of(rp, id, &row);
		if (row.kind != CTXCOUNT_SOURCE_KIND_UNSPEC)
			t->map[id] = row_of(&l, &row);
	}
	free(l.interrupts);
}

void cxs_sources_by_row(const struct cxs_sources *t, const uint64_t *by_id,
			uint64_t *rows)
{
	int id;

	memset(rows, 0, t->nr * sizeof(*rows));
	for (id = 0; id < CTXC_SOURCE_IDS; id++)
		if (t->map[id] >= 0)
			rows[t->map[id]] += by_id[id];
}

/* For qsort: the means to sort by, and the rows. */
struct ranked {
	double mean;
	int row;
};

static int by_mean_desc(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->mean != y->mean)
		return x->mean < y->mean ? 1 : -1;
	return x->row - y->row;
}

int cxs_sources_order(const struct cxs_counter_values *c, bool all,
		      int *order)
{
	struct ranked r[CXS_SOURCE_ROWS];
	int j, n = 0;

	for (j = 0; j < c->nr_src && j < CXS_SOURCE_ROWS; j++) {
		r[n] = (struct ranked){ cxs_sample_mean(&c->src[j]), j };
		if (all || r[n].mean != 0)
			n++;
	}
	qsort(r, n, sizeof(*r), by_mean_desc);
	for (j = 0; j < n; j++)
		order[j] = r[j].row;
	return n;
}

void cxs_sources_reading(const struct cxs_sources *t,
			 const struct ctxc_event_val *v, uint64_t *rows,
			 struct cxs_counter_reading *rd)
{
	memset(rd, 0, sizeof(*rd));
	rd->full = v->full;
	memcpy(rd->bucket, v->bucket, sizeof(rd->bucket));
	rd->time_enabled = v->time_enabled;
	rd->time_running = v->time_running;
	if (!t)
		return;
	cxs_sources_by_row(t, v->src, rows);
	rd->src = rows;
	rd->nr_src = t->nr;
}
