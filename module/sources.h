/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-source hardirq rows (CTXCOUNT_SESSION_F_IRQ_SOURCES): a session's
 * bounded table of the interrupt handlers it saw, and per CPU what each
 * one counted. The hooks that open and close handler windows are in
 * irqsrc.c; the window's counts gather in the CTX_SRC row of a session's
 * sums (cpustate.h, account.h) and are moved from there to a source row.
 *
 * A source is named by a key: irq + 1 for a Linux irq's handler,
 * CTX_SRC_KEY_VECTOR | vector for an x86 system vector (0: none). Keys
 * get rows in the order a session first sees them, up to its maximum;
 * later ones share the OTHER row. Rows are never given back while the
 * session lives, so their ids are stable.
 */
#ifndef _CTXCOUNT_SOURCES_H
#define _CTXCOUNT_SOURCES_H

#include <linux/ctxcount.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "attribute.h"
#include "cpustate.h"
#include "totals.h"

#define CTX_SRC_KEY_VECTOR	0x80000000U

/**
 * struct ctx_src_info - what READ reports of a source
 * @kind: enum ctxcount_source_kind (IRQ or VECTOR)
 * @irq: the Linux irq number, or the vector
 * @hwirq: the irq's hardware number, with @has_hwirq
 * @has_hwirq: @hwirq is known
 * @name: the handler's name when the row was claimed, or the vector's
 */
struct ctx_src_info {
	u32 kind;
	u32 irq;
	u64 hwirq;
	bool has_hwirq;
	char name[CTXCOUNT_SOURCE_NAME_LEN];
};

/**
 * struct ctx_srctab - a session's sources
 * @max: handler rows; row @max is OTHER
 * @nr_events: the session's events
 * @bits: @ent has 1 << @bits entries (at least twice @max)
 * @nr: rows claimed so far; @info[0..@nr) is stable (release/acquire)
 * @lock: serializes claims (raw: taken in hard interrupt context)
 * @ent: open addressing by hash of the key: key << 32 | (row + 1), 0 empty
 * @info: per row, what READ reports
 * @rows: per CPU, the source rows (ctx_src_block_len() u64s: the runs
 *	of each row, then row-major per row and event what it counted)
 * @snap: per CPU, READ's copy of @rows
 */
struct ctx_srctab {
	unsigned int max;
	unsigned int nr_events;
	unsigned int bits;
	unsigned int nr;
	raw_spinlock_t lock;
	u64 *ent;
	struct ctx_src_info *info;
	u64 __percpu *rows;
	u64 __percpu *snap;
};

/* On while a started session has sources: the handler hooks work then. */
DECLARE_STATIC_KEY_FALSE(ctx_src_live);

static __always_inline bool ctx_src_is_live(void)
{
	return static_branch_unlikely(&ctx_src_live);
}

/* u64s in one CPU's block of rows of a table of @max rows. */
static inline size_t ctx_src_block_len(unsigned int max,
				       unsigned int nr_events)
{
	return (size_t)(max + 1) * (nr_events + 1);
}

/* In a block: the runs of @row, and what it counted of event @i. */
static inline u64 *ctx_src_count(u64 *block, unsigned int row)
{
	return &block[row];
}

static inline u64 *ctx_src_val(u64 *block, unsigned int max,
			       unsigned int nr_events, unsigned int row,
			       unsigned int i)
{
	return &block[max + 1 + row * nr_events + i];
}

/**
 * struct ctx_src_report - a session's sources, for READ's reply
 * @max: its table's handler rows (row @max is OTHER)
 * @nr_events: its events
 * @nr: rows claimed when the rows were read
 * @info: what those rows are (@max entries)
 * @tot: the rows summed over the CPUs (ctx_src_block_len() u64s)
 * @cpus: one block per row of the per-CPU totals, or NULL
 */
struct ctx_src_report {
	unsigned int max;
	unsigned int nr_events;
	unsigned int nr;
	struct ctx_src_info *info;
	u64 *tot;
	u64 *cpus;
};

unsigned int ctx_src_row(struct ctx_srctab *t, u32 key, const char *name);
unsigned int ctx_src_default_max(void);

/*
 * Move what @ac's handler window counted (its CTX_SRC row) to source row
 * @row, counting a run of it if @run.
 */
static __always_inline void ctx_src_move(struct ctx_acct_cpu *ac,
					 unsigned int row, bool run)
{
	const struct ctx_srctab *t = ac->src;
	u64 *w = ac->sum.buckets[CTX_SRC];
	u64 *v = ctx_src_val(ac->src_rows, t->max, t->nr_events, row, 0);
	unsigned int i;

	for (i = 0; i < ac->nr_events; i++) {
		v[i] += w[i];
		w[i] = 0;
	}
	if (run)
		(*ctx_src_count(ac->src_rows, row))++;
}

/*
 * The row of @key for @ac, remembered per CPU: a CPU mostly meets the
 * same source again (its timer), and rows never change.
 */
static __always_inline unsigned int ctx_src_row_of(struct ctx_acct_cpu *ac,
						   u32 key, const char *name)
{
	if (likely(ac->src_key == key))
		return ac->src_row;
	ac->src_row = ctx_src_row(ac->src, key, name);
	ac->src_key = key;
	return ac->src_row;
}

/*
 * ctx_src_move() after ctx_attribute_fast(), in one pass: the counts
 * since the last boundary go straight to the row, with what the window
 * counted before it was split (an NMI inside it). The handler rows'
 * hottest path: a pass less over the events per handler run.
 */
static __always_inline void ctx_src_close_fast(struct ctx_acct_cpu *ac,
					       unsigned int row, bool run)
{
	const struct ctx_srctab *t = ac->src;
	struct ctx_acct_slot *sl = ac->slot, *end = ac->slot_end;
	u64 *w = ac->sum.buckets[CTX_SRC];
	u64 *v = ctx_src_val(ac->src_rows, t->max, t->nr_events, row, 0);
	u64 now;

	do {
		now = ctx_counter_read_direct(sl->event);
		*v++ += *w + now - sl->last;
		*w++ = 0;
		sl->last = now;
	} while (++sl < end);
	if (run)
		(*ctx_src_count(ac->src_rows, row))++;
}

/**
 * ctx_src_close() - a boundary that ends (part of) a handler window
 * @st: this CPU's state
 * @key: the source whose window the counts since the last boundary are
 * @name: its handler's name
 * @run: count a run of it (the window's exit)
 *
 * Per open interval: for a session with sources on, the counts go to
 * @key's row (through the CTX_SRC row unless read inline); sessions
 * without sources keep theirs in the CTX_SRC row until ctx_src_settle().
 *
 * Context: interrupts disabled, CPU claimed.
 */
static __always_inline void ctx_src_close(struct ctx_cpu_state *st, u32 key,
					  const char *name, bool run)
{
	struct ctx_acct_cpu *ac;

	hlist_for_each_entry(ac, &st->active, active_node) {
		if (ac->src && likely(ac->fast)) {
			ctx_src_close_fast(ac, ctx_src_row_of(ac, key, name),
					   run);
			continue;
		}
		ctx_attribute(ac, CTX_SRC);
		if (ac->src)
			ctx_src_move(ac, ctx_src_row_of(ac, key, name), run);
	}
}

void ctx_src_settle(struct ctx_acct_cpu *ac);

struct ctx_srctab *ctx_src_alloc(unsigned int max, unsigned int nr_events);
void ctx_src_free(struct ctx_srctab *t);
void ctx_src_bind(struct ctx_srctab *t, struct ctx_acct_cpu *ac, int cpu);
void ctx_src_started(struct ctx_srctab *t, bool started);
u64 *ctx_src_snap(struct ctx_srctab *t, int cpu);
void ctx_src_rows_copy(const struct ctx_srctab *t, u64 *dst, const u64 *rows);
size_t ctx_src_rows_size(const struct ctx_srctab *t);
void ctx_src_sum(const struct ctx_srctab *t, u64 *dst, u64 *block,
		 struct ctx_totals *sum);
int ctx_src_report_init(struct ctx_src_report *r, const struct ctx_srctab *t,
			struct ctx_cpu_totals *rows, unsigned int nr_rows);
void ctx_src_report_info(struct ctx_src_report *r, struct ctx_srctab *t);
void ctx_src_report_free(struct ctx_src_report *r);

#endif /* _CTXCOUNT_SOURCES_H */
