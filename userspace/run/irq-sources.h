/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irq-sources: --irq-sources' rows of a series. A session numbers its
 * hardirq sources in the order it first saw them, and every run has a
 * session of its own, so rows are kept by what a source is (kind,
 * number, name), not by id: each READ's ids are mapped to the rows, new
 * sources appended. Rows are labelled as /proc/interrupts names them.
 */
#ifndef CTXSTAT_RUN_IRQ_SOURCES_H
#define CTXSTAT_RUN_IRQ_SOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <ctxcount/ctxcount.h>

#include "stats/counts.h"

/*
 * Rows of a series: more than one session's table (CTXCOUNT_MAX_SOURCES
 * and the fixed rows) for -r runs that see different sources. A source
 * that finds them full goes to the "other sources" row, which the last
 * one is kept for.
 */
#define CXS_SOURCE_ROWS		128
#define CXS_SOURCE_LABEL_LEN	80

struct cxs_source_row {
	uint32_t kind;		/* enum ctxcount_source_kind */
	uint32_t irq;
	bool has_hwirq;
	uint64_t hwirq;
	char name[CTXCOUNT_SOURCE_NAME_LEN];
	/* "hardirq:24 virtio0-input.0", "hardirq: outside handlers" */
	char label[CXS_SOURCE_LABEL_LEN];
};

struct cxs_sources {
	int nr;
	struct cxs_source_row row[CXS_SOURCE_ROWS];
	/* The last READ's ids: map[id] is its row, -1 for none. */
	int map[CTXC_SOURCE_IDS];
	/* Where arm64's IPI<n> descriptions are read: /proc/interrupts. */
	const char *interrupts_path;
};

/* Empty, the descriptions read from @interrupts_path. */
void cxs_sources_init(struct cxs_sources *t, const char *interrupts_path);

/*
 * Map READ @rp's source ids to rows (new sources become rows). An id a
 * reply has values for but no description: OUTSIDE and OTHER are known
 * by their id, a handler goes to the "other sources" row.
 */
void cxs_sources_learn(struct cxs_sources *t, const struct ctxc_reply *rp);

/*
 * Values by id (an event's CTXCOUNT_EVENT_A_SOURCES, as mapped by the
 * last learn) as values by row, @rows[t->nr].
 */
void cxs_sources_by_row(const struct cxs_sources *t, const uint64_t *by_id,
			uint64_t *rows);

/*
 * Event value @v as a reading for stats/counts.c; with @t (--irq-sources) its
 * sources by row, in @rows (room for CXS_SOURCE_ROWS).
 */
void cxs_sources_reading(const struct cxs_sources *t,
			 const struct ctxc_event_val *v, uint64_t *rows,
			 struct cxs_counter_reading *rd);

/*
 * The rows of @c to print, largest mean first (ties: first seen first):
 * those with a non-zero mean, every row with @all. Returns how many went
 * into @order (room for c->nr_src).
 */
int cxs_sources_order(const struct cxs_counter_values *c, bool all,
		      int *order);

/*
 * The label of a row (pure, for tests): @ipi_desc is arm64's text after
 * "IPI<n>:" in /proc/interrupts, or NULL.
 */
void cxs_source_label(const struct cxs_source_row *row, const char *ipi_desc,
		      char *buf, size_t len);

/*
 * The description /proc/interrupts text @text gives the line "IPI<n>:"
 * (after its per-CPU counts) into @buf: 0, or -1 when there is none.
 */
int cxs_interrupts_ipi_desc(const char *text, uint64_t n, char *buf,
			    size_t len);

#endif
